#ifndef CNCURSESW_SHIM_H
#define CNCURSESW_SHIM_H
// SwiftPM drops the -D_XOPEN_SOURCE that pkg-config gives, which hides the wide-character API; asking for it
// here brings back cchar_t, setcchar, mvadd_wch and get_wch.
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <langinfo.h>
#include <wchar.h>
#include <ncursesw/curses.h>

// Macros Swift cannot import, as functions. Prefixed with the target's name.

static inline attr_t CNcursesw_A_NORMAL(void) { return A_NORMAL; }
static inline attr_t CNcursesw_A_BOLD(void) { return A_BOLD; }
static inline attr_t CNcursesw_A_DIM(void) { return A_DIM; }
static inline attr_t CNcursesw_A_UNDERLINE(void) { return A_UNDERLINE; }
static inline attr_t CNcursesw_A_REVERSE(void) { return A_REVERSE; }
static inline attr_t CNcursesw_A_STANDOUT(void) { return A_STANDOUT; }
static inline attr_t CNcursesw_A_BLINK(void) { return A_BLINK; }
static inline attr_t CNcursesw_A_ITALIC(void) { return A_ITALIC; }
static inline attr_t CNcursesw_A_ALTCHARSET(void) { return A_ALTCHARSET; }

static inline int CNcursesw_KEY_F(int n) { return KEY_F(n); }

static inline mmask_t CNcursesw_ALL_MOUSE_EVENTS(void) { return ALL_MOUSE_EVENTS; }
static inline mmask_t CNcursesw_REPORT_MOUSE_POSITION(void) { return REPORT_MOUSE_POSITION; }
static inline mmask_t CNcursesw_BUTTON1_PRESSED(void) { return BUTTON1_PRESSED; }
static inline mmask_t CNcursesw_BUTTON1_RELEASED(void) { return BUTTON1_RELEASED; }
static inline mmask_t CNcursesw_BUTTON1_CLICKED(void) { return BUTTON1_CLICKED; }
static inline mmask_t CNcursesw_BUTTON2_PRESSED(void) { return BUTTON2_PRESSED; }
static inline mmask_t CNcursesw_BUTTON2_RELEASED(void) { return BUTTON2_RELEASED; }
static inline mmask_t CNcursesw_BUTTON3_PRESSED(void) { return BUTTON3_PRESSED; }
static inline mmask_t CNcursesw_BUTTON3_RELEASED(void) { return BUTTON3_RELEASED; }
static inline mmask_t CNcursesw_BUTTON4_PRESSED(void) { return BUTTON4_PRESSED; }
static inline mmask_t CNcursesw_BUTTON5_PRESSED(void) { return BUTTON5_PRESSED; }
static inline mmask_t CNcursesw_BUTTON_SHIFT(void) { return BUTTON_SHIFT; }
static inline mmask_t CNcursesw_BUTTON_CTRL(void) { return BUTTON_CTRL; }
static inline mmask_t CNcursesw_BUTTON_ALT(void) { return BUTTON_ALT; }

static inline void CNcursesw_getmaxyx(WINDOW *w, int *y, int *x) { getmaxyx(w, *y, *x); }
static inline WINDOW *CNcursesw_stdscr(void) { return stdscr; }
static inline int CNcursesw_COLORS(void) { return COLORS; }
static inline int CNcursesw_COLOR_PAIRS(void) { return COLOR_PAIRS; }

// The alternate character set, for line drawing when the locale is not UTF-8.
static inline chtype CNcursesw_ACS_HLINE(void) { return ACS_HLINE; }
static inline chtype CNcursesw_ACS_VLINE(void) { return ACS_VLINE; }
static inline chtype CNcursesw_ACS_ULCORNER(void) { return ACS_ULCORNER; }
static inline chtype CNcursesw_ACS_URCORNER(void) { return ACS_URCORNER; }
static inline chtype CNcursesw_ACS_LLCORNER(void) { return ACS_LLCORNER; }
static inline chtype CNcursesw_ACS_LRCORNER(void) { return ACS_LRCORNER; }
static inline chtype CNcursesw_ACS_LTEE(void) { return ACS_LTEE; }
static inline chtype CNcursesw_ACS_RTEE(void) { return ACS_RTEE; }
static inline chtype CNcursesw_ACS_TTEE(void) { return ACS_TTEE; }
static inline chtype CNcursesw_ACS_BTEE(void) { return ACS_BTEE; }
static inline chtype CNcursesw_ACS_PLUS(void) { return ACS_PLUS; }
static inline chtype CNcursesw_ACS_CKBOARD(void) { return ACS_CKBOARD; }
static inline chtype CNcursesw_ACS_BLOCK(void) { return ACS_BLOCK; }
static inline chtype CNcursesw_ACS_BULLET(void) { return ACS_BULLET; }
static inline chtype CNcursesw_ACS_DIAMOND(void) { return ACS_DIAMOND; }

/// Draws one wide character with attributes and a colour pair at (y, x); wraps setcchar and mvadd_wch.
static inline int CNcursesw_put(int y, int x, wchar_t ch, attr_t attrs, short pair) {
    wchar_t text[2] = { ch, 0 };
    cchar_t cell;
    if (setcchar(&cell, text, attrs, pair, NULL) != OK) return ERR;
    return mvadd_wch(y, x, &cell);
}

/// Draws one alternate-charset character (ACS) with attributes and a colour pair at (y, x).
static inline int CNcursesw_put_acs(int y, int x, chtype ch, attr_t attrs, short pair) {
    return mvaddch(y, x, ch | attrs | COLOR_PAIR(pair));
}

/// True when the locale's character set is UTF-8 (after setlocale).
static inline int CNcursesw_locale_is_utf8(void) {
    const char *cs = nl_langinfo(CODESET);
    if (!cs) return 0;
    return (cs[0] == 'U' || cs[0] == 'u') && (cs[1] == 'T' || cs[1] == 't') && (cs[2] == 'F' || cs[2] == 'f');
}
#endif

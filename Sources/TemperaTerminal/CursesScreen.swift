@preconcurrency import CNcursesw
import Foundation
import Synchronization

/// The terminal through ncurses: shows canvases by drawing only the cells that changed, with one
/// `doupdate` a frame, and turns keys, mouse reports and resizes into `InputEvent`s.
///
/// Only one may exist at a time. `close()` (also called on SIGINT, SIGTERM, SIGHUP and fatal signals)
/// gives the terminal back as it was.
///
/// - Warning: main (editor) thread only.
public final class CursesScreen: Screen {
    public private(set) var width: Int = 0
    public private(set) var height: Int = 0
    public let unicode: Bool
    /// Colours the terminal offers: 0 (monochrome), 8, 16, 256...
    public let colors: Int
    private var theme: Theme
    /// Per role: the colour pair and the attributes it draws with.
    private var looks: [Role: (pair: Int16, attrs: attr_t)] = [:]
    private var last: Canvas?
    private var decoder = InputDecoder()
    private var closed = false
    /// When set, a wait for input also ends when it is signalled (`readInput` then returns nil at once).
    public var wakeup: Wakeup?
    /// A character was given back to curses (`unget_wch`): the next read must not wait on the terminal.
    private var pushedBack = false

    /// Why the terminal could not be set up.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Sets up the terminal: locale, raw keys, keypad, colours, the mouse. Throws, leaving the terminal as it
    /// was, when curses does not know the terminal (`initscr` would print and exit instead).
    public init(theme: Theme) throws {
        setlocale(LC_ALL, "")
        unicode = CNcursesw_locale_is_utf8() != 0
        guard newterm(nil, stdout, stdin) != nil else {
            let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
            throw Failure(description: "cannot use the terminal type '\(term)' (set TERM, e.g. TERM=xterm-256color)")
        }
        CursesScreen.installSignalHandlers()
        // raw, not cbreak: C-z, C-c, C-s and C-q reach the key map instead of suspending or stopping output.
        raw()
        noecho()
        nonl()
        keypad(CNcursesw_stdscr(), true)
        set_escdelay(25)
        curs_set(0)
        var useDefault = false
        if has_colors() {
            start_color()
            useDefault = use_default_colors() == OK
        }
        colors = has_colors() ? Int(CNcursesw_COLORS()) : 0
        defaultsAvailable = useDefault
        mousemask(CNcursesw_ALL_MOUSE_EVENTS() | CNcursesw_REPORT_MOUSE_POSITION(), nil)
        mouseinterval(0)
        // Ask for button-motion and SGR reports whatever the terminal's name says: terminfo for tmux and screen
        // knows only the old X10 encoding, which cannot say where a release happened or reach past column 223.
        // Reports curses does not parse itself are decoded in `readInput`.
        CursesScreen.write(CursesScreen.mouseOn)
        // Home and End as xterm-256color sends them in some modes.
        define_key("\u{1b}[1~", KEY_HOME)
        define_key("\u{1b}[4~", KEY_END)
        define_key("\u{1b}[7~", KEY_HOME)
        define_key("\u{1b}[8~", KEY_END)
        self.theme = theme
        readSize()
        applyTheme()
    }

    deinit { close() }

    private let defaultsAvailable: Bool

    /// Gives the terminal back (idempotent).
    public func close() {
        guard !closed else { return }
        closed = true
        // Leave the mouse alone before leaving, or some terminals keep sending reports to the shell.
        mousemask(0, nil)
        CursesScreen.write(CursesScreen.mouseOff)
        endwin()
        CursesScreen.active.store(false, ordering: .relaxed)
    }

    /// Restyles every role.
    public func setTheme(_ theme: Theme) {
        self.theme = theme
        applyTheme()
        last = nil
    }

    private func applyTheme() {
        looks = [:]
        var pairs: [Theme.Color: [Theme.Color: Int16]] = [:]
        var nextPair: Int16 = 1
        for role in Role.allCases {
            var style = theme[role]
            if colors == 0 {
                looks[role] = (0, CursesScreen.attrs(style.monochrome))
                continue
            }
            if colors < 256 {
                let keepBright = colors >= 16
                let basic = style.eightColor
                if keepBright { style = Theme.Style(fg: style.fg.index < 16 ? style.fg : basic.fg,
                                                    bg: style.bg.index < 16 ? style.bg : basic.bg, style.attributes) }
                else { style = basic }
            }
            if !defaultsAvailable {
                if style.fg == .default { style.fg = Theme.Color(7) }
                if style.bg == .default { style.bg = Theme.Color(0) }
            }
            let pair: Int16
            if let p = pairs[style.fg]?[style.bg] {
                pair = p
            } else if Int(nextPair) < Int(CNcursesw_COLOR_PAIRS()) {
                pair = nextPair
                init_pair(pair, Int16(style.fg.index), Int16(style.bg.index))
                pairs[style.fg, default: [:]][style.bg] = pair
                nextPair += 1
            } else {
                pair = 0
            }
            looks[role] = (pair, CursesScreen.attrs(style.attributes))
        }
    }

    private static func attrs(_ a: Theme.Attributes) -> attr_t {
        var out = CNcursesw_A_NORMAL()
        if a.contains(.bold) { out |= CNcursesw_A_BOLD() }
        if a.contains(.dim) { out |= CNcursesw_A_DIM() }
        if a.contains(.underline) { out |= CNcursesw_A_UNDERLINE() }
        if a.contains(.reverse) { out |= CNcursesw_A_REVERSE() }
        if a.contains(.italic) { out |= CNcursesw_A_ITALIC() }
        if a.contains(.blink) { out |= CNcursesw_A_BLINK() }
        if a.contains(.standout) { out |= CNcursesw_A_STANDOUT() }
        return out
    }

    private func readSize() {
        var y: Int32 = 0, x: Int32 = 0
        CNcursesw_getmaxyx(CNcursesw_stdscr(), &y, &x)
        width = Int(x)
        height = Int(y)
    }

    // MARK: Output

    public func present(_ canvas: Canvas, cursor: (x: Int, y: Int)?) {
        guard !closed else { return }
        let full = last == nil || last!.width != canvas.width || last!.height != canvas.height
        if full { erase() }
        let w = min(canvas.width, width), h = min(canvas.height, height)
        for y in 0..<h {
            for x in 0..<w {
                let cell = canvas[x, y]
                if !full, last![x, y] == cell { continue }
                draw(cell, x: x, y: y)
            }
        }
        last = canvas
        if let c = cursor, c.x >= 0, c.y >= 0, c.x < width, c.y < height {
            curs_set(1)
            move(Int32(c.y), Int32(c.x))
        } else {
            curs_set(0)
        }
        wnoutrefresh(CNcursesw_stdscr())
        doupdate()
    }

    private func draw(_ cell: Cell, x: Int, y: Int) {
        let look = looks[cell.role] ?? (0, 0)
        let scalar = cell.char.unicodeScalars.first!.value
        if scalar < 128 {
            // Control characters would move the terminal's cursor: show them as blanks.
            let ch = scalar < 32 || scalar == 127 ? 32 : scalar
            CNcursesw_put(Int32(y), Int32(x), wchar_t(ch), look.attrs, look.pair)
        } else if unicode {
            CNcursesw_put(Int32(y), Int32(x), wchar_t(scalar), look.attrs, look.pair)
        } else if let acs = CursesScreen.alternate(cell.char) {
            CNcursesw_put_acs(Int32(y), Int32(x), acs, look.attrs, look.pair)
        } else {
            CNcursesw_put(Int32(y), Int32(x), wchar_t(CursesScreen.ascii(cell.char).asciiValue!), look.attrs, look.pair)
        }
    }

    /// Line drawing for terminals without a UTF-8 locale: the alternate character set.
    private static func alternate(_ c: Character) -> chtype? {
        switch c {
        case "─", "━", "═": return CNcursesw_ACS_HLINE()
        case "│", "┃", "║": return CNcursesw_ACS_VLINE()
        case "┌", "┏", "╭": return CNcursesw_ACS_ULCORNER()
        case "┐", "┓", "╮": return CNcursesw_ACS_URCORNER()
        case "└", "┗", "╰": return CNcursesw_ACS_LLCORNER()
        case "┘", "┛", "╯": return CNcursesw_ACS_LRCORNER()
        case "├": return CNcursesw_ACS_LTEE()
        case "┤": return CNcursesw_ACS_RTEE()
        case "┬": return CNcursesw_ACS_TTEE()
        case "┴": return CNcursesw_ACS_BTEE()
        case "┼": return CNcursesw_ACS_PLUS()
        case "█": return CNcursesw_ACS_BLOCK()
        case "•", "●": return CNcursesw_ACS_BULLET()
        case "◆": return CNcursesw_ACS_DIAMOND()
        default: return nil
        }
    }

    /// The nearest ASCII for anything else.
    static func ascii(_ c: Character) -> Character {
        switch c {
        case "▁", "▂", "▃": return "."
        case "▄", "▅": return ":"
        case "▆", "▇": return "|"
        case "▶": return ">"
        case "◀": return "<"
        case "⟲": return "@"
        case "×": return "x"
        case "…": return "~"
        case "–", "—": return "-"
        default: return c.isASCII ? c : "?"
        }
    }

    // MARK: Input

    public func readInput(timeout: Int) -> InputEvent? {
        guard !closed else { return .closed }
        if CursesScreen.pendingSignal.load(ordering: .relaxed) != 0 { return .closed }
        if timeout != 0, !pushedBack, let wakeup, wakeup.readFD >= 0 {
            // Wait on the terminal and the wake-up together; curses then reads without waiting. (Curses reads
            // input a byte at a time, and the loop empties it before waiting again, so none sits unseen in its
            // buffer.) A signal (a resize) ends the wait too, and curses then reports it.
            var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakeup.readFD, events: Int16(POLLIN), revents: 0)]
            let r = poll(&fds, 2, Int32(timeout))
            if r > 0, fds[1].revents != 0 {
                wakeup.drain()
                if fds[0].revents == 0 { return nil }
            }
            wtimeout(CNcursesw_stdscr(), 0)
        } else {
            wtimeout(CNcursesw_stdscr(), Int32(timeout))
        }
        pushedBack = false
        var wch: wint_t = 0
        let r = get_wch(&wch)
        if r == ERR {
            return CursesScreen.pendingSignal.load(ordering: .relaxed) != 0 ? .closed : nil
        }
        if r == KEY_CODE_YES {
            let code = Int32(wch)
            if code == KEY_RESIZE {
                readSize()
                last = nil
                clearok(CNcursesw_stdscr(), true)
                return .resize
            }
            if code == KEY_MOUSE {
                var ev = MEVENT()
                guard getmouse(&ev) == OK else { return nil }
                return decoder.mouse(ev).map { .mouse($0) }
            }
            let name = keyname(code).map { String(cString: $0) }
            return decoder.key(code: code, name: name).map { .key($0) }
        }
        if wch == 27 {
            // Alt sends ESC and the key together; a lone ESC is the Escape key.
            wtimeout(CNcursesw_stdscr(), 0)
            var next: wint_t = 0
            let r2 = get_wch(&next)
            if r2 == OK, next == 91, let report = readMouseReport() { return report.map { .mouse($0) } }
            if r2 == OK, let key = decoder.character(next) {
                return .key(Key(base: key.name, meta: true))
            }
            if r2 == KEY_CODE_YES {
                unget_wch(wchar_t(next))
                pushedBack = true
            }
            return .key(.esc)
        }
        return decoder.character(wch).map { .key($0) }
    }

    /// After `ESC [`: a mouse report curses left undecoded (SGR `<code;x;yM`, or X10 `M` and three bytes).
    /// Returns nil, having read nothing more, when what follows is not one; `.some(nil)` for a report that
    /// means nothing here (motion with no button held).
    private func readMouseReport() -> MouseEvent?? {
        var c: wint_t = 0
        wtimeout(CNcursesw_stdscr(), 30)
        defer { wtimeout(CNcursesw_stdscr(), 0) }
        guard get_wch(&c) == OK else { return nil }
        if c == 60 {  // "<": SGR
            var parameters = ""
            while parameters.count < 32 {
                guard get_wch(&c) == OK, let scalar = UnicodeScalar(UInt32(c)) else { return .some(nil) }
                if scalar == "M" || scalar == "m" { return .some(decoder.sgr(parameters, release: scalar == "m")) }
                parameters.unicodeScalars.append(scalar)
            }
            return .some(nil)
        }
        if c == 77 {  // "M": X10
            var bytes: [Int] = []
            while bytes.count < 3, get_wch(&c) == OK { bytes.append(Int(c)) }
            guard bytes.count == 3 else { return .some(nil) }
            return .some(decoder.x10(bytes[0], bytes[1], bytes[2]))
        }
        unget_wch(wchar_t(c))
        pushedBack = true
        return nil
    }

    static let mouseOn = "\u{1b}[?1002h\u{1b}[?1006h"
    static let mouseOff = "\u{1b}[?1006l\u{1b}[?1002l"

    static func write(_ s: String) {
        fputs(s, stdout)
        fflush(stdout)
    }

    // MARK: Signals

    /// True while curses owns the terminal: the fatal-signal handler gives it back only then.
    static let active = Atomic<Bool>(false)
    /// A termination signal caught (SIGINT, SIGTERM, SIGHUP): the editor loop sees `.closed` and winds down.
    public static let pendingSignal = Atomic<Int32>(0)

    private static func installSignalHandlers() {
        active.store(true, ordering: .relaxed)
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig, cursesTerminationHandler)
        }
        for sig in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] {
            signal(sig, cursesFatalHandler)
        }
    }
}

/// Asks the loop to stop; the loop then saves recovery state and closes the screen.
private func cursesTerminationHandler(_ sig: Int32) {
    CursesScreen.pendingSignal.store(sig, ordering: .relaxed)
}

/// A crash: give the terminal back so the shell is usable, then die of the same signal.
private func cursesFatalHandler(_ sig: Int32) {
    if CursesScreen.active.load(ordering: .relaxed) {
        endwin()
    }
    signal(sig, SIG_DFL)
    raise(sig)
}

/// Made and used on one thread (the editor's): the compiler refuses to let it cross to another (a `@Sendable`
/// closure, a queue, a thread, a task), and nothing may declare it `Sendable` later.
@available(*, unavailable)
extension CursesScreen: Sendable {}

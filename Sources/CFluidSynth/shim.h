#ifndef CFLUIDSYNTH_SHIM_H
#define CFLUIDSYNTH_SHIM_H
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

// The parts of FluidSynth 2 (soname libfluidsynth.so.3) that SoundFont slots use, declared here as fluidsynth.h
// declares them. The program does not link libfluidsynth: it is opened the first time a SoundFont note is rendered,
// so the command line and the editor start without mapping it and the sixty libraries it brings (SDL2, X11,
// Wayland, GLib, libinstpatch...). Each function below calls through the opened library, or fails as FluidSynth
// fails (NULL, FLUID_FAILED) when it cannot be opened: `CFluidSynth_load` says why.

typedef struct _fluid_hashtable_t fluid_settings_t;
typedef struct _fluid_synth_t fluid_synth_t;
typedef void (*fluid_log_function_t)(int level, const char *message, void *data);

#define FLUID_OK (0)
#define FLUID_FAILED (-1)
enum fluid_log_level { FLUID_PANIC, FLUID_ERR, FLUID_WARN, FLUID_INFO, FLUID_DBG, LAST_LOG_LEVEL };

typedef struct {
    fluid_settings_t *(*new_settings)(void);
    void (*delete_settings)(fluid_settings_t *settings);
    int (*settings_setnum)(fluid_settings_t *settings, const char *name, double val);
    int (*settings_setint)(fluid_settings_t *settings, const char *name, int val);
    fluid_synth_t *(*new_synth)(fluid_settings_t *settings);
    void (*delete_synth)(fluid_synth_t *synth);
    int (*sfload)(fluid_synth_t *synth, const char *filename, int reset_presets);
    int (*active_voice_count)(fluid_synth_t *synth);
    int (*write_float)(fluid_synth_t *synth, int len, void *lout, int loff, int lincr, void *rout, int roff, int rincr);
    int (*system_reset)(fluid_synth_t *synth);
    int (*program_select)(fluid_synth_t *synth, int chan, int sfont_id, int bank_num, int preset_num);
    int (*noteon)(fluid_synth_t *synth, int chan, int key, int vel);
    int (*noteoff)(fluid_synth_t *synth, int chan, int key);
    int (*all_sounds_off)(fluid_synth_t *synth, int chan);
    fluid_log_function_t (*set_log_function)(int level, fluid_log_function_t fun, void *data);
} CFluidSynth_functions;

/// The library's functions and why it could not be opened (NULL once it is), kept in a function's statics: a
/// header's own globals are not emitted where Swift imports it.
typedef struct {
    CFluidSynth_functions f;
    const char *error;
    char why[256];
    pthread_once_t once;
} CFluidSynth_state;

static inline CFluidSynth_state *CFluidSynth_get(void) {
    static CFluidSynth_state state = {.error = "not opened", .once = PTHREAD_ONCE_INIT};
    return &state;
}

static inline void CFluidSynth_fail(CFluidSynth_state *s) {
    const char *e = dlerror();
    strncpy(s->why, e ? e : "unknown error", sizeof s->why - 1);
    s->error = s->why;
}

static inline void CFluidSynth_open(void) {
    CFluidSynth_state *s = CFluidSynth_get();
    void *h = dlopen("libfluidsynth.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!h) { CFluidSynth_fail(s); return; }
#define CFLUIDSYNTH_FIND(field, name) \
    if (!(*(void **)&s->f.field = dlsym(h, name))) { CFluidSynth_fail(s); return; }
    CFLUIDSYNTH_FIND(new_settings, "new_fluid_settings")
    CFLUIDSYNTH_FIND(delete_settings, "delete_fluid_settings")
    CFLUIDSYNTH_FIND(settings_setnum, "fluid_settings_setnum")
    CFLUIDSYNTH_FIND(settings_setint, "fluid_settings_setint")
    CFLUIDSYNTH_FIND(new_synth, "new_fluid_synth")
    CFLUIDSYNTH_FIND(delete_synth, "delete_fluid_synth")
    CFLUIDSYNTH_FIND(sfload, "fluid_synth_sfload")
    CFLUIDSYNTH_FIND(active_voice_count, "fluid_synth_get_active_voice_count")
    CFLUIDSYNTH_FIND(write_float, "fluid_synth_write_float")
    CFLUIDSYNTH_FIND(system_reset, "fluid_synth_system_reset")
    CFLUIDSYNTH_FIND(program_select, "fluid_synth_program_select")
    CFLUIDSYNTH_FIND(noteon, "fluid_synth_noteon")
    CFLUIDSYNTH_FIND(noteoff, "fluid_synth_noteoff")
    CFLUIDSYNTH_FIND(all_sounds_off, "fluid_synth_all_sounds_off")
    CFLUIDSYNTH_FIND(set_log_function, "fluid_set_log_function")
#undef CFLUIDSYNTH_FIND
    s->error = NULL;
}

/// Opens libfluidsynth once (any thread); NULL when it is ready, else why it is not.
static inline const char *CFluidSynth_load(void) {
    CFluidSynth_state *s = CFluidSynth_get();
    pthread_once(&s->once, CFluidSynth_open);
    return s->error;
}

#define CFluidSynth_f (CFluidSynth_get()->f)

static inline fluid_settings_t *new_fluid_settings(void) {
    return CFluidSynth_load() ? NULL : CFluidSynth_f.new_settings();
}
static inline void delete_fluid_settings(fluid_settings_t *s) { if (!CFluidSynth_load() && s) CFluidSynth_f.delete_settings(s); }
static inline int fluid_settings_setnum(fluid_settings_t *s, const char *name, double val) {
    return CFluidSynth_load() ? FLUID_FAILED : CFluidSynth_f.settings_setnum(s, name, val);
}
static inline int fluid_settings_setint(fluid_settings_t *s, const char *name, int val) {
    return CFluidSynth_load() ? FLUID_FAILED : CFluidSynth_f.settings_setint(s, name, val);
}
static inline fluid_synth_t *new_fluid_synth(fluid_settings_t *s) {
    return CFluidSynth_load() ? NULL : CFluidSynth_f.new_synth(s);
}
static inline void delete_fluid_synth(fluid_synth_t *synth) { if (!CFluidSynth_load() && synth) CFluidSynth_f.delete_synth(synth); }
static inline int fluid_synth_sfload(fluid_synth_t *synth, const char *filename, int reset_presets) {
    return CFluidSynth_load() ? FLUID_FAILED : CFluidSynth_f.sfload(synth, filename, reset_presets);
}
static inline int fluid_synth_get_active_voice_count(fluid_synth_t *synth) {
    return CFluidSynth_load() ? 0 : CFluidSynth_f.active_voice_count(synth);
}
static inline int fluid_synth_write_float(fluid_synth_t *synth, int len, void *lout, int loff, int lincr, void *rout,
                                          int roff, int rincr) {
    return CFluidSynth_load() ? FLUID_FAILED
                              : CFluidSynth_f.write_float(synth, len, lout, loff, lincr, rout, roff, rincr);
}
static inline int fluid_synth_system_reset(fluid_synth_t *synth) {
    return CFluidSynth_load() ? FLUID_FAILED : CFluidSynth_f.system_reset(synth);
}
static inline int fluid_synth_program_select(fluid_synth_t *synth, int chan, int sfont_id, int bank, int preset) {
    return CFluidSynth_load() ? FLUID_FAILED : CFluidSynth_f.program_select(synth, chan, sfont_id, bank, preset);
}
static inline int fluid_synth_noteon(fluid_synth_t *synth, int chan, int key, int vel) {
    return CFluidSynth_load() ? FLUID_FAILED : CFluidSynth_f.noteon(synth, chan, key, vel);
}
static inline int fluid_synth_noteoff(fluid_synth_t *synth, int chan, int key) {
    return CFluidSynth_load() ? FLUID_FAILED : CFluidSynth_f.noteoff(synth, chan, key);
}
static inline int fluid_synth_all_sounds_off(fluid_synth_t *synth, int chan) {
    return CFluidSynth_load() ? FLUID_FAILED : CFluidSynth_f.all_sounds_off(synth, chan);
}

/// Silences FluidSynth's own logging: tempera reports a font it cannot use in one line of its own.
static inline void CFluidSynth_quiet(void) {
    if (CFluidSynth_load()) return;
    for (int level = FLUID_PANIC; level <= FLUID_DBG; level++) {
        CFluidSynth_f.set_log_function(level, NULL, NULL);
    }
}
#endif

#ifndef CAUBIO_SHIM_H
#define CAUBIO_SHIM_H
#include <dlfcn.h>
#include <stddef.h>

// The few parts of libaubio 0.4 (soname libaubio.so.5, Debian's libaubio5) that onset detection uses, declared
// here as aubio's own headers declare them (fvec.h, onset/onset.h; smpl_t is float, uint_t unsigned int). The
// program does not link libaubio: it is opened the first time onsets are detected, so the editor and the
// players never map it (nor libavcodec, libavformat and the hundred libraries they bring).

typedef struct {
    unsigned int length;
    float *data;
} CAubio_fvec;

typedef struct CAubio_onset CAubio_onset;

/// libaubio's functions, once opened.
typedef struct {
    CAubio_onset *(*new_onset)(const char *method, unsigned int buf_size, unsigned int hop_size,
                               unsigned int samplerate);
    void (*del_onset)(CAubio_onset *o);
    unsigned int (*set_threshold)(CAubio_onset *o, float threshold);
    unsigned int (*set_silence)(CAubio_onset *o, float silence);
    unsigned int (*set_minioi_ms)(CAubio_onset *o, float minioi);
    void (*onset_do)(CAubio_onset *o, const CAubio_fvec *input, CAubio_fvec *onset);
    unsigned int (*get_last)(const CAubio_onset *o);
    CAubio_fvec *(*new_fvec)(unsigned int length);
    void (*del_fvec)(CAubio_fvec *s);
} CAubio_functions;

/// Opens `library` (RTLD_NOW | RTLD_LOCAL) and fills `f`. NULL when every function was found, else what went
/// wrong (dlerror's text, valid until the next dl call). The library stays open.
static inline const char *CAubio_open(const char *library, CAubio_functions *f) {
    void *h = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!h) return dlerror();
#define CAUBIO_FIND(field, name) \
    if (!(*(void **)&f->field = dlsym(h, name))) return dlerror();
    CAUBIO_FIND(new_onset, "new_aubio_onset")
    CAUBIO_FIND(del_onset, "del_aubio_onset")
    CAUBIO_FIND(set_threshold, "aubio_onset_set_threshold")
    CAUBIO_FIND(set_silence, "aubio_onset_set_silence")
    CAUBIO_FIND(set_minioi_ms, "aubio_onset_set_minioi_ms")
    CAUBIO_FIND(onset_do, "aubio_onset_do")
    CAUBIO_FIND(get_last, "aubio_onset_get_last")
    CAUBIO_FIND(new_fvec, "new_fvec")
    CAUBIO_FIND(del_fvec, "del_fvec")
#undef CAUBIO_FIND
    return NULL;
}
#endif

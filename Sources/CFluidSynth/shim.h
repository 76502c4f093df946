#ifndef CFLUIDSYNTH_SHIM_H
#define CFLUIDSYNTH_SHIM_H
#include <fluidsynth.h>

/// Silences FluidSynth's own logging: tempera reports a font it cannot use in one line of its own.
static inline void CFluidSynth_quiet(void) {
    for (int level = FLUID_PANIC; level <= FLUID_DBG; level++) {
        fluid_set_log_function(level, NULL, NULL);
    }
}
#endif

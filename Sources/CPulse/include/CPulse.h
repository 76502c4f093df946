#ifndef CPULSE_H
#define CPULSE_H
#include <pulse/pulseaudio.h>

/// libpulse is not linked: this target defines the functions the program calls (pulse.c), each calling through
/// libpulse.so.0, opened the first time one of them is called. Commands that never play to PulseAudio (`render`,
/// `--version`, JACK playback) start without mapping it and the thirty libraries it brings (D-Bus, systemd,
/// libsndfile's codecs again, X11's xcb...).
///
/// Opens libpulse once (any thread; later calls are one atomic read); NULL when it is ready, else why it is not.
/// Until it is, the functions fail as libpulse fails (NULL, a negative number, a terminated state).
const char *CPulse_load(void);
#endif

#ifndef CJACK_H
#define CJACK_H
#include <jack/jack.h>
#include <jack/midiport.h>
#include <jack/transport.h>
#include <string.h>

/// libjack is not linked: this target defines the functions the program calls (jack.c), each calling through
/// libjack.so.0, opened the first time one of them is called, so commands that never reach a JACK server start
/// without mapping it (and libdb, libsystemd, libcap, libgcrypt... that it brings).
///
/// Opens libjack once (any thread; later calls are one atomic read); NULL when it is ready, else why it is not.
/// Until it is, the functions fail as libjack fails (no client, a failure status, a negative number).
const char *CJack_load(void);

/// `jack_client_open` is variadic, which Swift cannot call: the server comes from JACK_DEFAULT_SERVER (libjack
/// reads it), and a missing server is never started behind the user's back.
static inline jack_client_t *CJack_open(const char *name, jack_status_t *status) {
    return jack_client_open(name, JackNoStartServer, status);
}

/// Silences libjack's own messages on standard error: tempera reports a missing or lost server in one line.
static inline void CJack_quiet_message(const char *message) { (void)message; }
static inline void CJack_silence(void) {
    jack_set_error_function(CJack_quiet_message);
    jack_set_info_function(CJack_quiet_message);
}

/// Writes a MIDI message of 1 to 3 bytes at `offset` into a port buffer; 0 when it went in.
static inline int CJack_midi_write(void *buffer, jack_nframes_t offset, unsigned char b0, unsigned char b1,
                                   unsigned char b2, int size) {
    jack_midi_data_t *d = jack_midi_event_reserve(buffer, offset, (size_t)size);
    if (d == NULL) return -1;
    d[0] = b0;
    if (size > 1) d[1] = b1;
    if (size > 2) d[2] = b2;
    return 0;
}

/// The first three bytes of input event `index` (missing ones 0), its offset and size; 0 when there is one.
static inline int CJack_midi_read(void *buffer, uint32_t index, jack_nframes_t *offset, unsigned char *bytes,
                                  int *size) {
    jack_midi_event_t ev;
    if (jack_midi_event_get(&ev, buffer, index) != 0) return -1;
    *offset = ev.time;
    *size = (int)ev.size;
    bytes[0] = ev.size > 0 ? ev.buffer[0] : 0;
    bytes[1] = ev.size > 1 ? ev.buffer[1] : 0;
    bytes[2] = ev.size > 2 ? ev.buffer[2] : 0;
    return 0;
}
#endif

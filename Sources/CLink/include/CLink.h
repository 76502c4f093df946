// A C face for Ableton Link (header-only C++, GPL-2.0-or-later), so Swift can call it without C++ interop.
//
// Times are microseconds on Link's clock (`clink_clock_micros`: CLOCK_MONOTONIC_RAW on Linux); beats are
// counted on the session's timeline for the quantum given (peers agree on the phase for one quantum).
// `clink_audio_*` capture the session state with `captureAudioSessionState`, which neither allocates nor
// locks: they are the only ones the audio thread may call. The others are for one application thread.
#ifndef CLINK_H
#define CLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CLink CLink;
typedef struct CLinkState CLinkState;

/// A Link instance at `bpm`, disabled (it joins nothing until `clink_enable`). NULL when it cannot be made.
CLink *clink_create(double bpm);
void clink_destroy(CLink *link);
void clink_enable(CLink *link, bool enable);
bool clink_is_enabled(const CLink *link);
size_t clink_num_peers(const CLink *link);
int64_t clink_clock_micros(const CLink *link);

/// Calls `changed(context)` on a thread of Link's whenever the number of peers or the session's tempo changes
/// (replacing any earlier callback), until the instance is destroyed.
void clink_on_change(CLink *link, void (*changed)(void *context), void *context);

/// A session state to capture into (allocated here; captures into it do not allocate).
CLinkState *clink_state_create(void);
void clink_state_destroy(CLinkState *state);
/// Captures the session state from the application thread.
void clink_capture_app(const CLink *link, CLinkState *state);
/// Commits a changed state from the application thread (tempo set, beat requested).
void clink_commit_app(CLink *link, const CLinkState *state);
/// Captures the session state from the audio thread: real-time safe.
void clink_capture_audio(const CLink *link, CLinkState *state);

double clink_state_tempo(const CLinkState *state);
double clink_state_beat_at_time(const CLinkState *state, int64_t micros, double quantum);
double clink_state_phase_at_time(const CLinkState *state, int64_t micros, double quantum);
int64_t clink_state_time_at_beat(const CLinkState *state, double beat, double quantum);
void clink_state_request_beat_at_time(CLinkState *state, double beat, int64_t micros, double quantum);
void clink_state_set_tempo(CLinkState *state, double bpm, int64_t micros);

/// Audio thread, in one capture on the stack (no allocation, no lock): the tempo, and the beat and the phase
/// for `quantum` at `micros`.
void clink_audio_timeline(const CLink *link, int64_t micros, double quantum, double *tempo, double *beat,
                          double *phase);
/// Audio thread: when `beat` (for `quantum`) falls, in one capture on the stack.
int64_t clink_audio_time_at_beat(const CLink *link, double beat, double quantum);

#ifdef __cplusplus
}
#endif

#endif

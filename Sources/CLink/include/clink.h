#ifndef CLINK_H
#define CLINK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An Ableton Link session member (Link is C++; this is its face for Swift). Times are microseconds on
/// CLOCK_MONOTONIC (the clock tempera's engine stamps), converted from Link's own clock at each call.
typedef struct CLinkSession CLinkSession;

/// A member at `bpm`, not yet enabled (it announces itself only once enabled).
CLinkSession *CLink_new(double bpm);
void CLink_free(CLinkSession *link);
/// Joins (1) or leaves (0) the session on the network.
void CLink_enable(CLinkSession *link, int on);
/// The other members seen.
size_t CLink_peers(CLinkSession *link);
/// The session at `micros`: its tempo, and the beat and the phase (0 ..< quantum) then.
void CLink_state(CLinkSession *link, int64_t micros, double quantum, double *bpm, double *beat, double *phase);
/// When `beat` falls (for `quantum`), in microseconds.
int64_t CLink_timeAtBeat(CLinkSession *link, double beat, double quantum);
/// Sets the session's tempo from `micros` on.
void CLink_setTempo(CLinkSession *link, double bpm, int64_t micros);
/// CLOCK_MONOTONIC now, in microseconds.
int64_t CLink_now(void);

#ifdef __cplusplus
}
#endif

#endif

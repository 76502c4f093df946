// Ableton Link behind a C face. Link's clock on Linux is CLOCK_MONOTONIC_RAW; tempera's is CLOCK_MONOTONIC,
// so each call converts through both clocks read together.
#include "clink.h"

#include <ableton/Link.hpp>
#include <chrono>
#include <time.h>

struct CLinkSession {
    ableton::Link link;
    explicit CLinkSession(double bpm) : link(bpm) {}
};

static int64_t monotonicMicros(clockid_t id) {
    timespec ts;
    clock_gettime(id, &ts);
    return int64_t(ts.tv_sec) * 1000000 + int64_t(ts.tv_nsec) / 1000;
}

/// Link's clock minus CLOCK_MONOTONIC, now.
static std::chrono::microseconds linkOffset(CLinkSession *s) {
    const int64_t before = monotonicMicros(CLOCK_MONOTONIC);
    const auto link = s->link.clock().micros();
    const int64_t after = monotonicMicros(CLOCK_MONOTONIC);
    return link - std::chrono::microseconds((before + after) / 2);
}

extern "C" {

CLinkSession *CLink_new(double bpm) {
    try {
        return new CLinkSession(bpm);
    } catch (...) {
        return nullptr;
    }
}

void CLink_free(CLinkSession *link) { delete link; }

void CLink_enable(CLinkSession *link, int on) { link->link.enable(on != 0); }

size_t CLink_peers(CLinkSession *link) { return link->link.numPeers(); }

void CLink_state(CLinkSession *link, int64_t micros, double quantum, double *bpm, double *beat, double *phase) {
    const auto state = link->link.captureAppSessionState();
    const auto t = std::chrono::microseconds(micros) + linkOffset(link);
    *bpm = state.tempo();
    *beat = state.beatAtTime(t, quantum);
    *phase = state.phaseAtTime(t, quantum);
}

int64_t CLink_timeAtBeat(CLinkSession *link, double beat, double quantum) {
    const auto state = link->link.captureAppSessionState();
    return (state.timeAtBeat(beat, quantum) - linkOffset(link)).count();
}

void CLink_setTempo(CLinkSession *link, double bpm, int64_t micros) {
    auto state = link->link.captureAppSessionState();
    state.setTempo(bpm, std::chrono::microseconds(micros) + linkOffset(link));
    link->link.commitAppSessionState(state);
}

int64_t CLink_now(void) { return monotonicMicros(CLOCK_MONOTONIC); }

}

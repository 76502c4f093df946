// The C face of Ableton Link: see include/CLink.h.
#include "CLink.h"

#include <ableton/Link.hpp>

#include <chrono>
#include <new>
#include <random>
#include <time.h>

// When two Link sessions meet, the one that has run longer (by its ghost time, more than half a second) wins;
// closer than that, the one whose id is lower does, and Link's ids are random: a peer enabled just after
// another imposed its tempo on it half the time. A peer's id is its session's id when it starts one (on every
// enable), so here it says when that session started: 0xFF (above Link's own ids, printable characters),
// then the wall clock in 10 µs, then one random byte. Two sessions started within the half second go to the
// older one, as those further apart do, so a tempera joining a session never sets its tempo. This is an
// explicit specialization of the function Link's controller calls for an id, declared before anything here
// instantiates the controller; the wire format of an id (8 bytes) is unchanged.
namespace ableton {
namespace link {
template <> inline NodeId NodeId::random<platform::Random>() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  const uint64_t tens = (uint64_t(now.tv_sec) * 1000000 + uint64_t(now.tv_nsec) / 1000) / 10;
  NodeIdArray id{};
  id[0] = 0xFF;
  for (int i = 0; i < 6; ++i) id[1 + i] = uint8_t(tens >> (8 * (5 - i)));
  std::random_device device;
  id[7] = uint8_t(device());
  return NodeId(id);
}
} // namespace link
} // namespace ableton

struct CLink {
  ableton::Link link;
  explicit CLink(double bpm) : link(bpm) {}
};

struct CLinkState {
  ableton::Link::SessionState state;
  CLinkState(ableton::Link::SessionState s) : state(s) {}
};

using std::chrono::microseconds;

extern "C" {

CLink *clink_create(double bpm) {
  try {
    return new CLink(bpm);
  } catch (...) {
    return nullptr;
  }
}

void clink_destroy(CLink *link) { delete link; }

void clink_enable(CLink *link, bool enable) { link->link.enable(enable); }

bool clink_is_enabled(const CLink *link) { return link->link.isEnabled(); }

size_t clink_num_peers(const CLink *link) { return link->link.numPeers(); }

int64_t clink_clock_micros(const CLink *link) { return link->link.clock().micros().count(); }

void clink_on_change(CLink *link, void (*changed)(void *context), void *context) {
  link->link.setNumPeersCallback([changed, context](std::size_t) { changed(context); });
  link->link.setTempoCallback([changed, context](double) { changed(context); });
}

CLinkState *clink_state_create(void) {
  // An empty state, overwritten by the first capture.
  try {
    return new CLinkState(ableton::Link::SessionState(ableton::link::ApiState{}, true));
  } catch (...) {
    return nullptr;
  }
}

void clink_state_destroy(CLinkState *state) { delete state; }

void clink_capture_app(const CLink *link, CLinkState *state) {
  state->state = link->link.captureAppSessionState();
}

void clink_commit_app(CLink *link, const CLinkState *state) { link->link.commitAppSessionState(state->state); }

void clink_capture_audio(const CLink *link, CLinkState *state) {
  state->state = link->link.captureAudioSessionState();
}

double clink_state_tempo(const CLinkState *state) { return state->state.tempo(); }

double clink_state_beat_at_time(const CLinkState *state, int64_t micros, double quantum) {
  return state->state.beatAtTime(microseconds(micros), quantum);
}

double clink_state_phase_at_time(const CLinkState *state, int64_t micros, double quantum) {
  return state->state.phaseAtTime(microseconds(micros), quantum);
}

int64_t clink_state_time_at_beat(const CLinkState *state, double beat, double quantum) {
  return state->state.timeAtBeat(beat, quantum).count();
}

void clink_state_request_beat_at_time(CLinkState *state, double beat, int64_t micros, double quantum) {
  state->state.requestBeatAtTime(beat, microseconds(micros), quantum);
}

void clink_state_set_tempo(CLinkState *state, double bpm, int64_t micros) {
  state->state.setTempo(bpm, microseconds(micros));
}

void clink_audio_timeline(const CLink *link, int64_t micros, double quantum, double *tempo, double *beat,
                          double *phase) {
  const auto s = link->link.captureAudioSessionState();
  *tempo = s.tempo();
  *beat = s.beatAtTime(microseconds(micros), quantum);
  *phase = s.phaseAtTime(microseconds(micros), quantum);
}

int64_t clink_audio_time_at_beat(const CLink *link, double beat, double quantum) {
  return link->link.captureAudioSessionState().timeAtBeat(beat, quantum).count();
}

}

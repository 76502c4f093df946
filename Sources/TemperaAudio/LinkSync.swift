import CLink
import TemperaCore

/// An Ableton Link session: tempo and beat phase shared with the Link peers on the network (Link is
/// GPL-2.0-or-later; tempera, GPL-3.0-or-later, may use it). Made disabled; `enable()` joins the network.
///
/// - Warning: for one application thread. The audio thread reaches the instance only through `AudioEngine`,
///   which reads it with Link's real-time-safe audio capture.
public final class LinkSession {
    let handle: OpaquePointer
    private let state: OpaquePointer

    /// A session starting at `bpm` (a session already on the network sets its own tempo when joined); nil
    /// when Link cannot be started.
    public init?(bpm: Double) {
        guard bpm.isFinite, bpm > 0, let h = clink_create(bpm) else { return nil }
        guard let st = clink_state_create() else {
            clink_destroy(h)
            return nil
        }
        handle = h
        state = st
    }

    /// What `onChange` was given, kept until Link's threads are gone (a replaced one may still be running).
    private var changed: [Unmanaged<ChangeCallback>] = []

    deinit {
        clink_enable(handle, false)
        clink_state_destroy(state)
        clink_destroy(handle)
        for c in changed { c.release() }
    }

    /// Calls `action` on a thread of Link's whenever peers come or go or the session's tempo changes (say, to
    /// wake an editor waiting for input, which then reads `peers` and `bpm`). Replaces the previous action.
    public func onChange(_ action: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(ChangeCallback(action))
        clink_on_change(handle, linkChanged, box.toOpaque())
        changed.append(box)
    }

    /// Joins (or leaves) the Link peers on every network interface that is up.
    public func enable(_ on: Bool = true) { clink_enable(handle, on) }

    public var isEnabled: Bool { clink_is_enabled(handle) }

    /// Peers connected, not counting this one.
    public var peers: Int { clink_num_peers(handle) }

    /// Now on Link's clock, in microseconds.
    public var clockMicros: Int64 { clink_clock_micros(handle) }

    /// The session's tempo in beats per minute.
    public var bpm: Double {
        clink_capture_app(handle, state)
        return clink_state_tempo(state)
    }

    /// Sets the session's tempo from now on, for every peer.
    public func setBPM(_ bpm: Double) {
        guard bpm.isFinite, bpm > 0 else { return }
        clink_capture_app(handle, state)
        clink_state_set_tempo(state, bpm, clink_clock_micros(handle))
        clink_commit_app(handle, state)
    }

    /// The session's beat at `micros` (Link's clock) for `quantum`, and its phase in the quantum.
    public func beat(atMicros micros: Int64, quantum: Double) -> (beat: Double, phase: Double) {
        clink_capture_app(handle, state)
        return (clink_state_beat_at_time(state, micros, quantum), clink_state_phase_at_time(state, micros, quantum))
    }

    /// When `beat` (for `quantum`) falls, on Link's clock.
    public func micros(atBeat beat: Double, quantum: Double) -> Int64 {
        clink_capture_app(handle, state)
        return clink_state_time_at_beat(state, beat, quantum)
    }
}

/// An action for Link's change callbacks, passed to C as its context.
final class ChangeCallback: Sendable {
    let action: @Sendable () -> Void
    init(_ action: @escaping @Sendable () -> Void) { self.action = action }
}

/// The C callback Link's thread calls: runs the action its context holds.
private func linkChanged(_ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<ChangeCallback>.fromOpaque(context).takeUnretainedValue().action()
}

/// What the render path keeps to follow a Link session (`EngineShared.linkHandle`) while it plays the loop or
/// the song.
///
/// Music (seconds at x1 from the first pass's start, unwrapped across passes, and for the song across its
/// sections and passes: `linkMusic`) is tied to the session's beats by `music = (beat − origin) · beatSeconds`,
/// with beats counted for the quantum = the document's meter. Every section of a song plays at the session's
/// tempo (the engine publishes it so), which makes that music run evenly through the whole song. A play
/// command waits for the next session beat whose phase is the bar position the music stands at (the loop's
/// start on a bar line: phase 0) and starts there, to the frame; from then on every block compares where the
/// session says the music is, when the block's first frame is heard, with where it is, and moves the clock by
/// a part of the difference (all of it past `jump`), so the two stay together through tempo changes and clock
/// drift while the output latency's jitter is smoothed away. The tempo itself arrives from the editor thread
/// with the next snapshot (`AudioEngine.followLinkTempo`); until then each block takes up the whole difference.
struct LinkFollow {
    /// When the next block's first frame is heard, on `MonotonicClock` (stamped after each write; 0: unknown).
    var heardNanos: UInt64 = 0
    /// The session beat at which the music was at 0.
    var origin = 0.0
    /// A play command waits for the session's bar.
    var startPending = false
    /// The session beat the waiting play starts on (NaN: not chosen yet).
    var startBeat = Double.nan
    /// The frame since which a waiting play is held for the session's tempo to reach the snapshot (-1: not held).
    var heldSince: Int64 = -1
    /// Where the music stood before this block's snapshot and commands (NaN: not playing).
    var musicBefore = Double.nan
    /// The part of a frame not yet moved.
    var slip = 0.0
    /// The last difference found, in seconds of output (positive: the music was behind the session).
    var lastError = 0.0

    /// Part of the difference moved per block, below `jump`.
    static let gain = 0.1
    /// A difference (seconds of output) moved all at once.
    static let jump = 0.002
}

extension RenderState {
    /// The session's timeline, nil when no session is followed.
    private var linkHandle: OpaquePointer? {
        let h = shared.pointee.linkHandle.load(ordering: .acquiring)
        guard h != 0, let snap = snapshot, snap.pointee.sectionCount > 0 else { return nil }
        return OpaquePointer(bitPattern: h)
    }

    /// The music at output frame `at` as the session's beats count it: seconds at x1 from the start of the
    /// loop's pass 0, or of the song's first section in its pass 0, unwrapped. For the loop it is `music(at:)`;
    /// for a song whose sections share one tempo (as under Link) it runs on evenly from section to section.
    func linkMusic(at: Int64) -> Double {
        guard let snap = snapshot, section < snap.pointee.sectionCount else { return 0 }
        return Double(at - base) / rate * snap.pointee.sections[section].tempo
    }

    /// Before the block takes its snapshot and commands: where the music stands, so a jump of the transport
    /// (rewind, an edited region) moves the tie to the session with it instead of being undone.
    mutating func linkBeforeBlock() {
        link.musicBefore = playing && linkHandle != nil ? linkMusic(at: frame) : .nan
    }

    /// The first session beat at or after `beat` whose phase in the quantum is the bar position the music stands
    /// at (its place on the document's timeline, in beats).
    private func linkStartBeat(_ sn: MixSnapshot, beat: Double, phase: Double, quantum: Double) -> Double {
        let m0 = music(at: frame)
        let sec = sn.sections[min(section, sn.sectionCount - 1)]
        var inPass = sec.span > 0 ? m0.truncatingRemainder(dividingBy: sec.span) : 0
        if inPass < 0 { inPass += sec.span }
        var want = ((sec.start + inPass) / sn.beat).truncatingRemainder(dividingBy: quantum)
        if want < 0 { want += quantum }
        var startBeat = beat - phase + want
        if startBeat < beat { startBeat += quantum }
        return startBeat
    }

    /// A play command while following a session: waits (as a count-in without clicks) for the session's bar;
    /// false when no session is followed.
    mutating func waitForLinkBar() -> Bool {
        guard linkHandle != nil else { return false }
        countingIn = true
        countInStart = frame
        countInBeats = 0
        countInNext = 0
        countInEnd = Int64.max
        link.startPending = true
        link.startBeat = .nan
        link.heldSince = -1
        return true
    }

    /// After the block's snapshot and commands: starts a waiting play on the session's bar, or keeps the music
    /// on the session's beat.
    mutating func followLink() {
        guard let handle = linkHandle, let snap = snapshot else {
            if link.startPending && countingIn {
                // The session went away while a play waited for it: play now.
                countInEnd = frame
            }
            link.startPending = false
            return
        }
        let sn = snap.pointee
        let beatSeconds = sn.beat, quantum = Double(sn.meter)
        // When this block's first frame is heard, on Link's clock.
        let mono = MonotonicClock.nanos()
        var heard = link.heardNanos
        if heard < mono || heard > mono + 2_000_000_000 {
            heard = mono + UInt64(max(0, shared.pointee.latencyMicros.load(ordering: .relaxed))) * 1000
        }
        let host = clink_clock_micros(handle) + Int64((heard - mono) / 1000)
        var bpm = 0.0, beat = 0.0, phase = 0.0
        clink_audio_timeline(handle, host, quantum, &bpm, &beat, &phase)

        if link.startPending && !countingIn {
            // The wait is over: started (or paused).
            link.startPending = false
        }
        if link.startPending {
            // The session's tempo (a peer joined, or set it, during the wait) is not yet the snapshot's: music
            // started now would run at the old tempo until the next snapshot, the clock pulled along block by
            // block, and the start as heard would no longer be where the clock says it is. The start waits for
            // the tempo, then for the next bar at it (for a second at most: the tempo is published by the
            // application thread, `AudioEngine.followLinkTempo`).
            let sessionTempo = Transport.tempoInRange(forBPM: bpm, beat: beatSeconds)
            let tempo = section < sn.sectionCount ? sn.sections[section].tempo : sessionTempo
            if abs(sessionTempo - tempo) > 1e-9 * tempo {
                if link.heldSince < 0 { link.heldSince = frame }
                if frame - link.heldSince < Int64(rate) {
                    link.startBeat = .nan
                    countInEnd = Int64.max
                    return
                }
            } else {
                link.heldSince = -1
            }
            // The frame the start beat is heard on, found again at every block of the wait from the newest
            // estimate of when a frame is heard (the first ones, as a stream starts, are the roughest), so the
            // music starts on the beat rather than being pulled onto it afterwards.
            if link.startBeat.isNaN { link.startBeat = linkStartBeat(sn, beat: beat, phase: phase, quantum: quantum) }
            let at = clink_audio_time_at_beat(handle, link.startBeat, quantum)
            countInEnd = frame + max(0, Int64((Double(at - host) / 1_000_000 * rate).rounded()))
            link.origin = link.startBeat - linkMusic(at: frame) / beatSeconds
            link.slip = 0
            return
        }
        guard playing, section < sn.sectionCount else { return }
        let have = linkMusic(at: frame)
        if link.musicBefore.isFinite && abs(have - link.musicBefore) > 1e-9 {
            // The transport moved (or a new tempo was adopted): the tie to the session moves with it.
            link.origin += (have - link.musicBefore) / beatSeconds
        }
        let tempo = sn.sections[section].tempo
        guard tempo > 0 else { return }
        let want = (beat - link.origin) * beatSeconds
        let error = (want - have) / tempo
        link.lastError = error
        // While the session's tempo is not yet the snapshot's (the editor thread publishes it within milliseconds)
        // the difference is real, not jitter: all of it is taken up.
        let lagging = abs(Transport.tempo(forBPM: bpm, beat: beatSeconds) - tempo) > 1e-9 * tempo
        let move = abs(error) > LinkFollow.jump || lagging ? error : error * LinkFollow.gain
        link.slip += move * rate
        let whole = link.slip.rounded(.towardZero)
        link.slip -= whole
        // Music behind the session: the clock's origin moves earlier, so what is due comes sooner.
        base -= Int64(whole)
        shared.pointee.linkErrorMicros.store(Int((error * 1_000_000).rounded()), ordering: .relaxed)
    }
}

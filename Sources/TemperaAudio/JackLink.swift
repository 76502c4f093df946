import CJack
import Foundation
import Synchronization

/// The state JACK's callbacks reach through their argument pointer: raw memory, no class, so the process
/// callback on JACK's real-time thread takes no reference counts.
struct JackLink: ~Copyable {
    let client: OpaquePointer
    var out1: OpaquePointer?
    var out2: OpaquePointer?
    var midiOut: OpaquePointer?
    /// MIDI clock out's own port (`clock_out`), so a clock follower is not sent the notes.
    var clockOut: OpaquePointer?
    var midiIn: OpaquePointer?
    /// The per-track or per-slot ports, left and right of each stem in turn (nil: the mix only), room for every
    /// stem; the first `stemPortsReady` pairs are registered (more are added as the document gains tracks).
    var stemPorts: UnsafeMutablePointer<OpaquePointer?>?
    let stemPortsReady = Atomic<Int>(0)
    let render: UnsafeMutablePointer<RenderState>
    let shared: UnsafeMutablePointer<EngineShared>
    let rate: Double
    /// Interleaved stereo for the render call, deinterleaved into the two ports' buffers.
    let scratch: UnsafeMutablePointer<Float>
    /// JACK transport: followed or led (nil: neither). Set before activation.
    var transport: JackTransportMode?
    /// Leading: the playing state the transport was last told.
    var ledPlaying = false
    /// Frames processed since activation: xruns in the first `settlingFrames` are the graph taking the new
    /// client in (ports registered and connected), not playback's.
    let processed = Atomic<Int>(0)
    /// 0 connecting, 1 running, 2 the server went away.
    let phase = Atomic<Int>(0)
    /// The playback latency of `out_1` in frames, as the server last reported it.
    let latencyFrames = Atomic<Int>(0)
    /// MIDI in's hits, for the editor (`takeHits`): a single-producer single-consumer ring, the process callback
    /// writing.
    let hits: UnsafeMutablePointer<MidiInHit>
    let hitHead = Atomic<Int>(0)
    let hitTail = Atomic<Int>(0)
    static let hitCapacity = 512
    /// MIDI in's hits that found the ring full (the editor read it too late), since the client started: played,
    /// but missing from a take, which says how many it lost.
    let hitsDropped = Atomic<Int>(0)
    /// MIDI in's controllers and note-ons, for their bindings (`takeControls`): a single-producer
    /// single-consumer ring of packed messages (status, data 1, data 2), the process callback writing.
    let controls: UnsafeMutablePointer<UInt32>
    let controlHead = Atomic<Int>(0)
    let controlTail = Atomic<Int>(0)
    static let controlCapacity = 256
    /// Room for one incoming message's first bytes.
    let bytes: UnsafeMutablePointer<UInt8>
    /// Why the server shut the client down (its words, NUL-terminated), written once by `jackShutdown`.
    let reason: UnsafeMutablePointer<CChar>

    /// Frames rendered per render call; a longer period is rendered in several.
    static let scratchFrames = 4096
    static let reasonCapacity = 256
    static let settlingSeconds = 0.25

    init(client: OpaquePointer, render: UnsafeMutablePointer<RenderState>, shared: UnsafeMutablePointer<EngineShared>,
         rate: Double) {
        self.client = client
        self.render = render
        self.shared = shared
        self.rate = rate
        scratch = .allocate(capacity: 2 * Self.scratchFrames)
        scratch.initialize(repeating: 0, count: 2 * Self.scratchFrames)
        reason = .allocate(capacity: Self.reasonCapacity)
        reason.initialize(repeating: 0, count: Self.reasonCapacity)
        hits = .allocate(capacity: Self.hitCapacity)
        controls = .allocate(capacity: Self.controlCapacity)
        controls.initialize(repeating: 0, count: Self.controlCapacity)
        bytes = .allocate(capacity: 4)
        bytes.initialize(repeating: 0, count: 4)
    }

    /// Editor thread: the hits MIDI in played since the last call, oldest first.
    func takeHits() -> [MidiInHit] {
        var out: [MidiInHit] = []
        while true {
            let t = hitTail.load(ordering: .relaxed)
            guard t != hitHead.load(ordering: .acquiring) else { return out }
            out.append(hits[t % Self.hitCapacity])
            hitTail.store(t + 1, ordering: .releasing)
        }
    }

    /// Editor thread: the controllers and note-ons MIDI in received since the last call, oldest first, as
    /// (status, data 1, data 2).
    func takeControls() -> [(UInt8, UInt8, UInt8)] {
        var out: [(UInt8, UInt8, UInt8)] = []
        while true {
            let t = controlTail.load(ordering: .relaxed)
            guard t != controlHead.load(ordering: .acquiring) else { return out }
            let packed = controls[t % Self.controlCapacity]
            out.append((UInt8(packed >> 16 & 0xFF), UInt8(packed >> 8 & 0xFF), UInt8(packed & 0xFF)))
            controlTail.store(t + 1, ordering: .releasing)
        }
    }

    /// Process callback: a controller or note-on for the editor's bindings (dropped when the ring is full).
    private func queueControl(_ status: UInt8, _ a: UInt8, _ b: UInt8) {
        let h = controlHead.load(ordering: .relaxed)
        guard h - controlTail.load(ordering: .acquiring) < Self.controlCapacity else { return }
        controls[h % Self.controlCapacity] = UInt32(status) << 16 | UInt32(a & 0x7F) << 8 | UInt32(b & 0x7F)
        controlHead.store(h + 1, ordering: .releasing)
    }

    /// Process callback: the note-ons waiting on `midi_in` become pads on their frames, and hits for the editor,
    /// placed at the music heard on their arrival frame less the playback latency.
    func takeMidiIn(_ buffer: UnsafeMutableRawPointer, latency: Int) {
        let count = jack_midi_get_event_count(buffer)
        guard count > 0 else { return }
        let now = MonotonicClock.nanos()
        var offset: jack_nframes_t = 0
        var size: Int32 = 0
        for i in 0..<count {
            guard CJack_midi_read(buffer, i, &offset, bytes, &size) == 0 else { continue }
            if size == 1 && bytes[0] >= 0xF8 {
                render.pointee.clockIn.receive(bytes[0], at: render.pointee.frame + Int64(offset))
                continue
            }
            if size >= 3, bytes[0] & 0xF0 == 0xB0 || bytes[0] & 0xF0 == 0x90 && bytes[2] > 0 {
                queueControl(bytes[0], bytes[1], bytes[2])
            }
            guard size >= 3, bytes[0] & 0xF0 == 0x90, bytes[2] > 0 else { continue }
            let note = Int(bytes[1] & 0x7F), velocity = Float(bytes[2] & 0x7F) / 127
            guard let map = render.pointee.snapshot?.pointee.midiIn, map[note] >= 0 else { continue }
            let slot = Int(map[note])
            render.pointee.queuePad(slot: slot, velocity: velocity, offset: Int(offset))
            let arrival = render.pointee.frame + Int64(offset)
            let h = hitHead.load(ordering: .relaxed)
            guard h - hitTail.load(ordering: .acquiring) < Self.hitCapacity else {
                hitsDropped.add(1, ordering: .relaxed)
                continue
            }
            hits[h % Self.hitCapacity] = MidiInHit(
                note: UInt8(note), slot: slot + 1, velocity: Double(bytes[2] & 0x7F) / 127, arrivalFrame: arrival,
                clock: render.pointee.clock(heardAt: arrival - Int64(latency), nanos: now))
            hitHead.store(h + 1, ordering: .releasing)
        }
    }

    /// Process callback: the stems of the `frames` just rendered into their ports' buffers, `done` frames into
    /// the period.
    func copyStems(done: Int, frames: Int, nframes: jack_nframes_t) {
        guard let ports = stemPorts, render.pointee.stems.buffer != nil else { return }
        let stems = render.pointee.stems
        for k in 0..<min(stems.count, stemPortsReady.load(ordering: .acquiring)) {
            guard let lp = ports[2 * k], let rp = ports[2 * k + 1],
                  let left = jack_port_get_buffer(lp, nframes)?.assumingMemoryBound(to: Float.self),
                  let right = jack_port_get_buffer(rp, nframes)?.assumingMemoryBound(to: Float.self) else { continue }
            guard k < stems.live else {
                // A track the document no longer has: its ports are silent.
                left.advanced(by: done).update(repeating: 0, count: frames)
                right.advanced(by: done).update(repeating: 0, count: frames)
                continue
            }
            let src = stems.stem(k)
            for i in 0..<frames {
                left[done + i] = src[2 * i]
                right[done + i] = src[2 * i + 1]
            }
        }
    }

    deinit {
        stemPorts?.deallocate()
        scratch.deallocate()
        reason.deallocate()
        hits.deallocate()
        controls.deallocate()
        bytes.deallocate()
    }

    /// The one line that says the server went away (editor thread, once `phase` is 2).
    func lostReason() -> String {
        let why = String(cString: reason).trimmingCharacters(in: .whitespacesAndNewlines)
        return why.isEmpty ? "JACK server lost" : "JACK server lost (\(why))"
    }
}

// MARK: - Callbacks (JACK's threads). Free functions: C calls them on another thread.

/// A hook around every call of the JACK process callback, for the benchmark (`tempera-bench jack`): called on
/// JACK's thread with 1 as the call starts and 0 as it ends, so what it measures includes the callback's own port
/// work (MIDI in read, MIDI out and the clock written). It must not allocate, lock or wait. Set it before the
/// output starts; nil (the default): none.
public nonisolated(unsafe) var jackProcessProbe: (@convention(c) (Int32) -> Void)?

/// The process callback: one period of audio and MIDI. No allocation, lock or wait.
func jackProcess(_ nframes: jack_nframes_t, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    let probe = jackProcessProbe
    probe?(1)
    defer { probe?(0) }
    guard let arg else { return 0 }
    let l = arg.assumingMemoryBound(to: JackLink.self)
    let count = Int(nframes)
    guard let out1 = l.pointee.out1, let out2 = l.pointee.out2,
          let left = jack_port_get_buffer(out1, nframes)?.assumingMemoryBound(to: Float.self),
          let right = jack_port_get_buffer(out2, nframes)?.assumingMemoryBound(to: Float.self) else { return 0 }
    let midiOutBuffer = l.pointee.midiOut.flatMap { jack_port_get_buffer($0, nframes) }
    if let midiOutBuffer { jack_midi_clear_buffer(midiOutBuffer) }
    let clockOutBuffer = l.pointee.clockOut.flatMap { jack_port_get_buffer($0, nframes) }
    if let clockOutBuffer { jack_midi_clear_buffer(clockOutBuffer) }
    var range = jack_latency_range_t()
    jack_port_get_latency_range(out1, JackPlaybackLatency, &range)
    l.pointee.latencyFrames.store(Int(range.max), ordering: .relaxed)
    if let midiIn = l.pointee.midiIn, let buffer = jack_port_get_buffer(midiIn, nframes) {
        l.pointee.takeMidiIn(buffer, latency: Int(range.max))
    }
    if l.pointee.transport == .follow {
        var pos = jack_position_t()
        let state = jack_transport_query(l.pointee.client, &pos)
        // A locate while rolling passes through Starting (the clients syncing): playing goes on through it.
        let rolling = state == JackTransportRolling || state == JackTransportStarting && l.pointee.render.pointee.playing
        l.pointee.render.pointee.followTransport(rolling: rolling, frame: Int64(pos.frame), jitter: count)
    }
    let render = l.pointee.render
    let scratch = l.pointee.scratch
    var done = 0
    while done < count {
        let n = min(count - done, JackLink.scratchFrames)
        RenderState.render(render, into: scratch, frames: n)
        for i in 0..<n {
            left[done + i] = scratch[2 * i]
            right[done + i] = scratch[2 * i + 1]
        }
        l.pointee.copyStems(done: done, frames: n, nframes: nframes)
        let midi = render.pointee.midi
        for k in 0..<midi.count {
            let m = midi.messages[k]
            // The clock and its Start, Stop, Continue and Song Position on `clock_out`; the notes on `midi_out`.
            let clockMessage = m.b0 == ClockOut.songPosition || m.b0 >= 0xF8
            guard let buffer = clockMessage ? clockOutBuffer : midiOutBuffer else { continue }
            _ = CJack_midi_write(buffer, jack_nframes_t(done + m.offset), m.b0, m.b1, m.b2, Int32(m.size))
        }
        done += n
    }
    // This period is heard after the reported latency; the next one a period later still.
    let micros = Int((Double(Int(range.max) + count) / l.pointee.rate * 1_000_000).rounded())
    l.pointee.shared.pointee.latencyMicros.store(micros, ordering: .relaxed)
    l.pointee.shared.pointee.streamStarted.store(true, ordering: .relaxed)
    l.pointee.processed.add(count, ordering: .relaxed)
    if l.pointee.transport == .lead {
        // The transport takes a start, a stop or a move at its next period: where the music is then.
        let r = render.pointee
        if r.playing != l.pointee.ledPlaying {
            l.pointee.ledPlaying = r.playing
            if r.playing {
                jack_transport_locate(l.pointee.client, jack_nframes_t(clamping: max(0, r.frame - r.base)))
                jack_transport_start(l.pointee.client)
            } else {
                jack_transport_stop(l.pointee.client)
                jack_transport_locate(l.pointee.client, jack_nframes_t(clamping: max(0, r.frame - r.base)))
            }
        }
    }
    RenderState.stampClock(render, latencyMicros: micros)
    return 0
}

/// An xrun: a period the graph did not finish in time. Counted as an underrun.
func jackXrun(_ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let arg else { return 0 }
    let l = arg.assumingMemoryBound(to: JackLink.self)
    guard l.pointee.processed.load(ordering: .relaxed) >= Int(JackLink.settlingSeconds * l.pointee.rate) else { return 0 }
    l.pointee.shared.pointee.underruns.add(1, ordering: .relaxed)
    return 0
}

/// The server shut the client down (it quit, or threw the client out): said once, in the server's words.
func jackShutdown(_ code: jack_status_t, _ reason: UnsafePointer<CChar>?, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    let l = arg.assumingMemoryBound(to: JackLink.self)
    if let reason { strncpy(l.pointee.reason, reason, JackLink.reasonCapacity - 1) }
    l.pointee.phase.store(2, ordering: .releasing)
}

/// A note-on MIDI in played: the slot it sounded, its velocity (v/127), the output frame it arrived on, and the
/// playhead clock of the music heard then (its arrival frame less the playback latency JACK reports).
struct MidiInHit {
    var note: UInt8
    var slot: Int
    var velocity: Double
    var arrivalFrame: Int64
    var clock: PlayheadClock
}

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
    var midiIn: OpaquePointer?
    let render: UnsafeMutablePointer<RenderState>
    let shared: UnsafeMutablePointer<EngineShared>
    let rate: Double
    /// Interleaved stereo for the render call, deinterleaved into the two ports' buffers.
    let scratch: UnsafeMutablePointer<Float>
    /// 0 connecting, 1 running, 2 the server went away.
    let phase = Atomic<Int>(0)
    /// The playback latency of `out_1` in frames, as the server last reported it.
    let latencyFrames = Atomic<Int>(0)
    /// Why the server shut the client down (its words, NUL-terminated), written once by `jackShutdown`.
    let reason: UnsafeMutablePointer<CChar>

    /// Frames rendered per render call; a longer period is rendered in several.
    static let scratchFrames = 4096
    static let reasonCapacity = 256

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
    }

    deinit {
        scratch.deallocate()
        reason.deallocate()
    }

    /// The one line that says the server went away (editor thread, once `phase` is 2).
    func lostReason() -> String {
        let why = String(cString: reason).trimmingCharacters(in: .whitespacesAndNewlines)
        return why.isEmpty ? "JACK server lost" : "JACK server lost (\(why))"
    }
}

// MARK: - Callbacks (JACK's threads). Free functions: C calls them on another thread.

/// The process callback: one period of audio and MIDI. No allocation, lock or wait.
func jackProcess(_ nframes: jack_nframes_t, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let arg else { return 0 }
    let l = arg.assumingMemoryBound(to: JackLink.self)
    let count = Int(nframes)
    guard let out1 = l.pointee.out1, let out2 = l.pointee.out2,
          let left = jack_port_get_buffer(out1, nframes)?.assumingMemoryBound(to: Float.self),
          let right = jack_port_get_buffer(out2, nframes)?.assumingMemoryBound(to: Float.self) else { return 0 }
    let midiOutBuffer = l.pointee.midiOut.flatMap { jack_port_get_buffer($0, nframes) }
    if let midiOutBuffer { jack_midi_clear_buffer(midiOutBuffer) }
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
        if let midiOutBuffer {
            let midi = render.pointee.midi
            for k in 0..<midi.count {
                let m = midi.messages[k]
                _ = CJack_midi_write(midiOutBuffer, jack_nframes_t(done + m.offset), m.b0, m.b1, m.b2, Int32(m.size))
            }
        }
        done += n
    }
    var range = jack_latency_range_t()
    jack_port_get_latency_range(out1, JackPlaybackLatency, &range)
    l.pointee.latencyFrames.store(Int(range.max), ordering: .relaxed)
    // This period is heard after the reported latency; the next one a period later still.
    let micros = Int((Double(Int(range.max) + count) / l.pointee.rate * 1_000_000).rounded())
    l.pointee.shared.pointee.latencyMicros.store(micros, ordering: .relaxed)
    l.pointee.shared.pointee.streamStarted.store(true, ordering: .relaxed)
    RenderState.stampClock(render, latencyMicros: micros)
    return 0
}

/// An xrun: a period the graph did not finish in time. Counted as an underrun.
func jackXrun(_ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let arg else { return 0 }
    let l = arg.assumingMemoryBound(to: JackLink.self)
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

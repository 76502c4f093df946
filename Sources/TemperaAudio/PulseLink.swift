import CPulse
import Foundation
import Synchronization

/// The state PulseAudio's callbacks reach through their userdata pointer: raw memory, no class, so the
/// callbacks on the mainloop thread take no reference counts.
struct PulseLink: ~Copyable {
    var mainloop: OpaquePointer?
    var context: OpaquePointer?
    var stream: OpaquePointer?
    /// Asks the server for fresh timing while playback is aimed at moments of the clock or follows an Ableton
    /// Link session (see `pulseTimingTick`).
    var timingTimer: OpaquePointer?
    let render: UnsafeMutablePointer<RenderState>
    let shared: UnsafeMutablePointer<EngineShared>
    let sampleRate: Double
    let targetLatency: Double
    /// The buffer asked of the server now, in bytes: `targetLatency` at first, doubled after each underrun up to
    /// `pulseMaxLatency` (see `pulseUnderflow`).
    var bufferBytes: UInt32 = 0
    /// The server is PipeWire's pulse server (its name says so): the stream leaves its latency to the graph.
    var onPipeWire = false
    /// 0 connecting, 1 running, 2 failed.
    let phase = Atomic<Int>(0)
    let errorCode = Atomic<Int32>(0)
    /// What went wrong, as a PulseAudio error code's text is not available once the context is gone.
    let failedWhileRunning = Atomic<Bool>(false)

    init(render: UnsafeMutablePointer<RenderState>, shared: UnsafeMutablePointer<EngineShared>, sampleRate: Double,
         targetLatency: Double) {
        self.render = render
        self.shared = shared
        self.sampleRate = sampleRate
        self.targetLatency = targetLatency
    }
}

// MARK: - Callbacks (mainloop thread). Free functions: C calls them on another thread.

func pulseContextStateChanged(_ context: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) {
    guard let context, let userdata else { return }
    let l = userdata.assumingMemoryBound(to: PulseLink.self)
    let st = pa_context_get_state(context)
    if st == PA_CONTEXT_READY {
        // Which server it is, then the stream (see `pulseStreamFlags`).
        if let op = pa_context_get_server_info(context, pulseServerInfo, userdata) {
            pa_operation_unref(op)
        } else {
            pulseOpenStream(l, context)
        }
    } else if st == PA_CONTEXT_FAILED || st == PA_CONTEXT_TERMINATED {
        pulseMarkFailed(l, pa_context_errno(context))
    }
}

func pulseMarkFailed(_ l: UnsafeMutablePointer<PulseLink>, _ code: Int32) {
    if l.pointee.phase.load(ordering: .relaxed) == 1 {
        l.pointee.failedWhileRunning.store(true, ordering: .relaxed)
    }
    l.pointee.errorCode.store(code == 0 ? Int32(PA_ERR_CONNECTIONTERMINATED.rawValue) : code, ordering: .relaxed)
    l.pointee.phase.store(2, ordering: .releasing)
}

func pulseServerInfo(_ context: OpaquePointer?, _ info: UnsafePointer<pa_server_info>?, _ userdata: UnsafeMutableRawPointer?) {
    guard let context, let userdata else { return }
    let l = userdata.assumingMemoryBound(to: PulseLink.self)
    if let name = info?.pointee.server_name {
        l.pointee.onPipeWire = pulseServerIsPipeWire(name)
    }
    pulseOpenStream(l, context)
}

/// Whether a pulse server, by its name (`server_name` of its information), is PipeWire's: "PulseAudio (on PipeWire
/// 0.3.65)", where PulseAudio's own is "pulseaudio".
func pulseServerIsPipeWire(_ name: UnsafePointer<CChar>) -> Bool { strstr(name, "PipeWire") != nil }

/// The stream's flags: timing kept up to date and interpolated, and on PulseAudio the sink's latency adjusted to
/// the buffer asked for (without it a sink runs at its own, often far larger, latency). PipeWire's pulse server
/// sets its graph's quantum from the buffer either way, and with the adjustment it moved the stream by whole
/// quanta against another client's now and then (+32 to +512 frames in 4 of 8 runs of 60 s on an idle machine,
/// with no underrun near), without it in none of 6.
func pulseStreamFlags(onPipeWire: Bool) -> pa_stream_flags_t {
    let timing = PA_STREAM_AUTO_TIMING_UPDATE.rawValue | PA_STREAM_INTERPOLATE_TIMING.rawValue
    return pa_stream_flags_t(rawValue: timing | (onPipeWire ? 0 : PA_STREAM_ADJUST_LATENCY.rawValue))
}

func pulseOpenStream(_ l: UnsafeMutablePointer<PulseLink>, _ context: OpaquePointer) {
    var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(l.pointee.sampleRate), channels: 2)
    guard let stream = pa_stream_new(context, "playback", &spec, nil) else {
        pulseMarkFailed(l, pa_context_errno(context))
        return
    }
    l.pointee.stream = stream
    let raw = UnsafeMutableRawPointer(l)
    pa_stream_set_state_callback(stream, pulseStreamStateChanged, raw)
    pa_stream_set_write_callback(stream, pulseWrite, raw)
    pa_stream_set_underflow_callback(stream, pulseUnderflow, raw)
    pa_stream_set_started_callback(stream, pulseStarted, raw)
    l.pointee.bufferBytes = UInt32(l.pointee.targetLatency * l.pointee.sampleRate * 8)
    l.pointee.shared.pointee.bufferMicros.store(Int(l.pointee.targetLatency * 1e6), ordering: .relaxed)
    var attr = pulseBufferAttributes(l.pointee.bufferBytes)
    if pa_stream_connect_playback(stream, nil, &attr, pulseStreamFlags(onPipeWire: l.pointee.onPipeWire), nil, nil) < 0 {
        pulseMarkFailed(l, pa_context_errno(context))
    }
}

func pulseStreamStateChanged(_ stream: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) {
    guard let stream, let userdata else { return }
    let l = userdata.assumingMemoryBound(to: PulseLink.self)
    let st = pa_stream_get_state(stream)
    if st == PA_STREAM_READY {
        l.pointee.shared.pointee.realTime.store(pulseRaiseThreadPriority() ? 1 : 2, ordering: .relaxed)
        if let attr = pa_stream_get_buffer_attr(stream) {
            let micros = Double(attr.pointee.tlength) / 8 / l.pointee.sampleRate * 1_000_000
            l.pointee.shared.pointee.latencyMicros.store(Int(micros), ordering: .relaxed)
        }
        if l.pointee.timingTimer == nil, pulseWantsFreshTiming(l),
           let ctx = pa_stream_get_context(stream) {
            l.pointee.timingTimer = pa_context_rttime_new(ctx, pa_rtclock_now() + pulseTimingInterval, pulseTimingTick,
                                                          userdata)
        }
        l.pointee.phase.store(1, ordering: .releasing)
    } else if st == PA_STREAM_FAILED {
        let ctx = pa_stream_get_context(stream)
        pulseMarkFailed(l, ctx.map { pa_context_errno($0) } ?? 0)
    }
}

/// The render callback: fills what the server asks for. No allocation, lock or wait.
func pulseWrite(_ stream: OpaquePointer?, _ nbytes: Int, _ userdata: UnsafeMutableRawPointer?) {
    guard let stream, let userdata else { return }
    let l = userdata.assumingMemoryBound(to: PulseLink.self)
    var remaining = nbytes
    while remaining >= 8 {
        var data: UnsafeMutableRawPointer?
        var size = remaining
        guard pa_stream_begin_write(stream, &data, &size) == 0, let data, size >= 8 else { return }
        let frames = size / 8
        RenderState.render(l.pointee.render, into: data.assumingMemoryBound(to: Float.self), frames: frames)
        guard pa_stream_write(stream, data, frames * 8, nil, 0, PA_SEEK_RELATIVE) == 0 else { return }
        remaining -= frames * 8
    }
    var usec: pa_usec_t = 0
    var negative: Int32 = 0
    if pa_stream_get_latency(stream, &usec, &negative) == 0 {
        l.pointee.shared.pointee.latencyMicros.store(negative != 0 ? 0 : Int(usec), ordering: .relaxed)
    }
    // What was just written is heard after the latency measured now: the clock a recorded pad is placed by.
    RenderState.stampClock(l.pointee.render, latencyMicros: l.pointee.shared.pointee.latencyMicros.load(ordering: .relaxed))
}

/// The server started playing the stream (at first, or again after an underrun): audio flows.
func pulseStarted(_ stream: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) {
    guard let userdata else { return }
    let l = userdata.assumingMemoryBound(to: PulseLink.self)
    l.pointee.shared.pointee.streamStarted.store(true, ordering: .relaxed)
}

/// Playback is aimed at moments of the clock (playing together) or follows an Ableton Link session.
func pulseWantsFreshTiming(_ l: UnsafeMutablePointer<PulseLink>) -> Bool {
    l.pointee.shared.pointee.aimed.load(ordering: .relaxed)
        || l.pointee.shared.pointee.linkHandle.load(ordering: .relaxed) != 0
}

/// Microseconds between two requests for fresh timing while playback is aimed at the clock or follows Link.
let pulseTimingInterval: pa_usec_t = 20_000

/// While playback is aimed at moments of the clock (playing together) or follows a Link session, every
/// `pulseTimingInterval` asks the server where the stream's playback is (on the mainloop thread, between two
/// writes). The latency a write reads is otherwise interpolated from timing up to 1.5 s old (the library's automatic updates back off to that), and
/// a server whose clock drifts from the system's (a loaded machine's null sink, a sound card's crystal) puts the
/// heard moment off by as much as the drift over that time: half a millisecond and more, measured.
func pulseTimingTick(_ api: UnsafeMutablePointer<pa_mainloop_api>?, _ event: OpaquePointer?,
                     _ tv: UnsafePointer<timeval>?, _ userdata: UnsafeMutableRawPointer?) {
    guard let userdata else { return }
    let l = userdata.assumingMemoryBound(to: PulseLink.self)
    guard let ctx = l.pointee.context else { return }
    if let stream = l.pointee.stream, pulseWantsFreshTiming(l),
       pa_stream_get_state(stream) == PA_STREAM_READY,
       let op = pa_stream_update_timing_info(stream, nil, nil) {
        pa_operation_unref(op)
    }
    if let event { pa_context_rttime_restart(ctx, event, pa_rtclock_now() + pulseTimingInterval) }
}

/// The buffer attributes asked for a buffer of `bytes`: the server picks the request size. Prebuffering is off
/// (prebuf 0): after an underrun the server does not stop the stream to wait for a full buffer, it plays silence
/// and drops what then arrives for moments already past, so the music keeps its time (a dropout, never a shift
/// of everything after it).
func pulseBufferAttributes(_ bytes: UInt32) -> pa_buffer_attr {
    pa_buffer_attr(maxlength: UInt32.max, tlength: bytes, prebuf: 0, minreq: UInt32.max, fragsize: UInt32.max)
}

/// The largest buffer an underrun grows the stream's to, in seconds.
let pulseMaxLatency = 0.160

/// The server found the stream's buffer empty: counted, and the buffer asked for is doubled, up to
/// `pulseMaxLatency`, as the server's own sinks raise their watermark after an underrun. A busy machine thus
/// settles on a buffer it can keep filled; the transport shows the latency in force (measured at each write).
/// On the mainloop thread, between two writes; libpulse allocates the request, not the render.
func pulseUnderflow(_ stream: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) {
    guard let stream, let userdata else { return }
    let l = userdata.assumingMemoryBound(to: PulseLink.self)
    l.pointee.shared.pointee.underruns.add(1, ordering: .relaxed)
    let most = UInt32(pulseMaxLatency * l.pointee.sampleRate * 8)
    guard l.pointee.bufferBytes < most else { return }
    l.pointee.bufferBytes = min(most, l.pointee.bufferBytes * 2)
    var attr = pulseBufferAttributes(l.pointee.bufferBytes)
    if let op = pa_stream_set_buffer_attr(stream, &attr, nil, nil) { pa_operation_unref(op) }
    l.pointee.shared.pointee.bufferMicros.store(Int(Double(l.pointee.bufferBytes) / 8 / l.pointee.sampleRate * 1e6),
                                                ordering: .relaxed)
}

/// Asks for real-time scheduling (SCHED_FIFO 10 of 1...99) for the mainloop thread, which renders: a busy editor or
/// compiler then cannot delay the audio. Where the system refuses (no privilege, no real-time budget), the thread
/// keeps its ordinary priority and says so: false.
func pulseRaiseThreadPriority() -> Bool {
    var param = sched_param()
    param.sched_priority = min(sched_get_priority_min(Int32(SCHED_FIFO)) + 9, sched_get_priority_max(Int32(SCHED_FIFO)))
    return pthread_setschedparam(pthread_self(), Int32(SCHED_FIFO), &param) == 0
}

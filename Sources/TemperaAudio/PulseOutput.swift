import CPulse
import Foundation
import Synchronization

/// The state PulseAudio's callbacks reach through their userdata pointer: raw memory, no class, so the
/// callbacks on the mainloop thread take no reference counts.
struct PulseLink: ~Copyable {
    var mainloop: OpaquePointer?
    var context: OpaquePointer?
    var stream: OpaquePointer?
    let render: UnsafeMutablePointer<RenderState>
    let shared: UnsafeMutablePointer<EngineShared>
    let sampleRate: Double
    let targetLatency: Double
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

/// Plays through PulseAudio's asynchronous API on a threaded mainloop: float32 stereo at the engine's rate,
/// a small buffer (`targetLatency`, adjusted by the server), underflows counted, never autospawning a server.
/// Rendering happens in the stream's write callback, on the mainloop thread.
final class PulseOutput: AudioOutput {
    private var link: UnsafeMutablePointer<PulseLink>?
    let clientName: String
    let targetLatency: Double

    init(clientName: String = "tempera", targetLatency: Double = 0.020) {
        self.clientName = clientName
        self.targetLatency = targetLatency
    }

    func open(render: UnsafeMutablePointer<RenderState>, shared: UnsafeMutablePointer<EngineShared>, sampleRate: Double) {
        close()
        let l = UnsafeMutablePointer<PulseLink>.allocate(capacity: 1)
        l.initialize(to: PulseLink(render: render, shared: shared, sampleRate: sampleRate, targetLatency: targetLatency))
        link = l
        guard let ml = pa_threaded_mainloop_new() else {
            fail(l, PA_ERR_INTERNAL)
            return
        }
        l.pointee.mainloop = ml
        guard let ctx = pa_context_new(pa_threaded_mainloop_get_api(ml), clientName) else {
            fail(l, PA_ERR_INTERNAL)
            return
        }
        l.pointee.context = ctx
        pa_context_set_state_callback(ctx, pulseContextStateChanged, UnsafeMutableRawPointer(l))
        // NOAUTOSPAWN: a missing server is reported, never started behind the user's back.
        if pa_context_connect(ctx, nil, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
            fail(l, pa_error_code_t(UInt32(pa_context_errno(ctx))))
            return
        }
        if pa_threaded_mainloop_start(ml) < 0 {
            fail(l, PA_ERR_INTERNAL)
        }
    }

    private func fail(_ l: UnsafeMutablePointer<PulseLink>, _ code: pa_error_code_t) {
        l.pointee.errorCode.store(Int32(code.rawValue), ordering: .relaxed)
        l.pointee.phase.store(2, ordering: .releasing)
    }

    var state: OutputState {
        guard let l = link else { return .failed("closed") }
        switch l.pointee.phase.load(ordering: .acquiring) {
        case 0:
            return .connecting
        case 1:
            let micros = l.pointee.shared.pointee.latencyMicros.load(ordering: .relaxed)
            return .running(latencyMs: Double(micros) / 1000)
        default:
            let code = l.pointee.errorCode.load(ordering: .relaxed)
            let text = String(cString: pa_strerror(code))
            if l.pointee.failedWhileRunning.load(ordering: .relaxed) {
                return .failed("PulseAudio server lost (\(text))")
            }
            return .failed("no PulseAudio server (\(text))")
        }
    }

    func close() {
        guard let l = link else { return }
        link = nil
        if let ml = l.pointee.mainloop {
            pa_threaded_mainloop_lock(ml)
            if let s = l.pointee.stream {
                pa_stream_set_write_callback(s, nil, nil)
                pa_stream_set_underflow_callback(s, nil, nil)
                pa_stream_set_state_callback(s, nil, nil)
                pa_stream_disconnect(s)
                pa_stream_unref(s)
                l.pointee.stream = nil
            }
            if let c = l.pointee.context {
                pa_context_set_state_callback(c, nil, nil)
                pa_context_disconnect(c)
                pa_context_unref(c)
                l.pointee.context = nil
            }
            pa_threaded_mainloop_unlock(ml)
            pa_threaded_mainloop_stop(ml)
            pa_threaded_mainloop_free(ml)
        } else if let c = l.pointee.context {
            pa_context_unref(c)
        }
        l.deinitialize(count: 1)
        l.deallocate()
    }

    deinit { close() }
}

// MARK: - Callbacks (mainloop thread). Free functions: C calls them on another thread.

func pulseContextStateChanged(_ context: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) {
    guard let context, let userdata else { return }
    let l = userdata.assumingMemoryBound(to: PulseLink.self)
    let st = pa_context_get_state(context)
    if st == PA_CONTEXT_READY {
        pulseOpenStream(l, context)
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
    let bytesPerFrame = 8.0
    var attr = pa_buffer_attr(maxlength: UInt32.max,
                              tlength: UInt32(l.pointee.targetLatency * l.pointee.sampleRate * bytesPerFrame),
                              prebuf: UInt32.max, minreq: UInt32.max, fragsize: UInt32.max)
    let flags = pa_stream_flags_t(rawValue: PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_AUTO_TIMING_UPDATE.rawValue
        | PA_STREAM_INTERPOLATE_TIMING.rawValue)
    if pa_stream_connect_playback(stream, nil, &attr, flags, nil, nil) < 0 {
        pulseMarkFailed(l, pa_context_errno(context))
    }
}

func pulseStreamStateChanged(_ stream: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) {
    guard let stream, let userdata else { return }
    let l = userdata.assumingMemoryBound(to: PulseLink.self)
    let st = pa_stream_get_state(stream)
    if st == PA_STREAM_READY {
        pulseRaiseThreadPriority()
        if let attr = pa_stream_get_buffer_attr(stream) {
            let micros = Double(attr.pointee.tlength) / 8 / l.pointee.sampleRate * 1_000_000
            l.pointee.shared.pointee.latencyMicros.store(Int(micros), ordering: .relaxed)
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
}

func pulseUnderflow(_ stream: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) {
    guard let userdata else { return }
    let l = userdata.assumingMemoryBound(to: PulseLink.self)
    l.pointee.shared.pointee.underruns.add(1, ordering: .relaxed)
}

/// Asks for real-time scheduling for the mainloop thread, which renders: a busy editor or compiler then cannot
/// delay the audio. Where the system refuses (no privilege), the thread keeps its ordinary priority.
func pulseRaiseThreadPriority() {
    var param = sched_param()
    param.sched_priority = min(sched_get_priority_min(Int32(SCHED_FIFO)) + 9, sched_get_priority_max(Int32(SCHED_FIFO)))
    _ = pthread_setschedparam(pthread_self(), Int32(SCHED_FIFO), &param)
}

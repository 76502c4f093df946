import CPulse
import Foundation
import Synchronization

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
        // No thread renders yet: the state may be set directly.
        render.pointee.aimsByClock = true
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
            if let t = l.pointee.timingTimer {
                pa_threaded_mainloop_get_api(ml).pointee.time_free(t)
                l.pointee.timingTimer = nil
            }
            if let s = l.pointee.stream {
                pa_stream_set_write_callback(s, nil, nil)
                pa_stream_set_underflow_callback(s, nil, nil)
                pa_stream_set_started_callback(s, nil, nil)
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

/// An output with no device: nothing is pulled until `pump` is called, which renders on the caller's thread.
/// Tests and benchmarks drive the engine block by block with it.
final class NullOutput: AudioOutput {
    private var render: UnsafeMutablePointer<RenderState>?

    func open(render: UnsafeMutablePointer<RenderState>, shared: UnsafeMutablePointer<EngineShared>, sampleRate: Double) {
        self.render = render
    }

    var state: OutputState { render == nil ? .failed("closed") : .running(latencyMs: 0) }

    /// Renders `frames` frames and returns them (interleaved stereo).
    func pump(frames: Int) -> [Float] {
        guard let render else { return [] }
        var out = [Float](repeating: 0, count: frames * 2)
        out.withUnsafeMutableBufferPointer { RenderState.render(render, into: $0.baseAddress!, frames: frames) }
        RenderState.stampClock(render, latencyMicros: 0)
        return out
    }

    func pump(into buffer: UnsafeMutablePointer<Float>, frames: Int) {
        guard let render else { return }
        RenderState.render(render, into: buffer, frames: frames)
        RenderState.stampClock(render, latencyMicros: 0)
    }

    func close() { render = nil }
}

/// What an output backend reports to the engine (editor thread).
enum OutputState: Equatable {
    case connecting
    case running(latencyMs: Double)
    case failed(String)
}

/// An output backend: it opens a device and, from its own thread, pulls audio by calling
/// `RenderState.render` on the state it was given, until closed.
protocol AudioOutput: AnyObject {
    /// Starts opening; must return at once (a missing server shows up later as `.failed`).
    func open(render: UnsafeMutablePointer<RenderState>, shared: UnsafeMutablePointer<EngineShared>, sampleRate: Double)
    /// Polled from the editor thread.
    var state: OutputState { get }
    /// Stops pulling and releases the device; after it returns no thread renders with the state any more.
    func close()
}

/// An output with no device: nothing is pulled until `pump` is called, which renders on the caller's thread.
/// Tests and benchmarks drive the engine block by block with it.
final class NullOutput: AudioOutput {
    private var render: UnsafeMutablePointer<RenderState>?
    private var scratch: UnsafeMutablePointer<Float>?
    private var capacity = 0

    func open(render: UnsafeMutablePointer<RenderState>, shared: UnsafeMutablePointer<EngineShared>, sampleRate: Double) {
        self.render = render
    }

    var state: OutputState { render == nil ? .failed("closed") : .running(latencyMs: 0) }

    /// Renders `frames` frames and returns them (interleaved stereo).
    func pump(frames: Int) -> [Float] {
        guard let render else { return [] }
        var out = [Float](repeating: 0, count: frames * 2)
        out.withUnsafeMutableBufferPointer { RenderState.render(render, into: $0.baseAddress!, frames: frames) }
        return out
    }

    func pump(into buffer: UnsafeMutablePointer<Float>, frames: Int) {
        guard let render else { return }
        RenderState.render(render, into: buffer, frames: frames)
    }

    func close() { render = nil }
}

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

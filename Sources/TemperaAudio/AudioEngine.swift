import TemperaCore

/// The state of the sound output, for the transport bar.
public enum AudioStatus: Equatable, Sendable {
    case off
    case connecting
    /// Connected; the output latency the server reports.
    case running(latencyMs: Double)
    /// No server (or it went away): said once, retried in the background.
    case unavailable(String)
}

/// Plays documents: loads their samples, compiles their schedules, and drives an output backend.
///
/// - Warning: every method is for the main (editor) thread; the render path runs on the backend's thread
///   and only reads what this class publishes.
public final class AudioEngine {
    public init(sampleRate: Double = 48_000) {}

    /// Connects the output (PulseAudio unless told otherwise). Without a server the status says so and the
    /// engine retries in the background; nothing blocks.
    public func start() {}

    public func stop() {}

    /// Loads the document's samples (off the audio thread) and publishes its schedule and settings.
    /// Returns one line per sample that could not be loaded.
    @discardableResult
    public func load(document: Document, baseDirectory: String?) -> [String] { [] }

    /// Publishes an edited document: heard from the next event, with no gap.
    public func update(document: Document) {}

    public func play() {}
    public func pause() {}
    public func toggle() {}
    /// Back to the start of the loop region.
    public func rewind() {}

    public var isPlaying: Bool { false }
    /// The playhead, in seconds at tempo x1 on the document's timeline.
    public var position: Double { 0 }
    public var status: AudioStatus { .off }
    /// Underruns counted since `start()`.
    public var underruns: Int { 0 }
}

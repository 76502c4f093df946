import Foundation
import Synchronization
import TemperaCore
import TemperaPlayback

/// `render PATH` from a front end (the editor's `:render`): the document as it stands is written to a sound file
/// on a background thread, by the registry of formats as `tempera render` writes it (through `OfflineRendering`,
/// `StudioFiles` in the program), while editing goes on. The front end polls `progress` (the editor shows it as a
/// bar on the status line).
///
/// - Warning: create and poll on the editor thread; the render runs on its own thread and touches only
///   its copy of the document and the guarded state here.
public final class RenderJob: Sendable {
    public let path: String
    private let state = Mutex<(fraction: Double, outcome: Result<Void, Error>?)>((0, nil))

    /// Starts rendering `document` (relative samples resolved against `baseDirectory`) to `path`, as WAV or
    /// FLAC by its extension.
    public init(document: Document, baseDirectory: String?, path: String, renderer: any OfflineRendering) {
        self.path = path
        Thread.detachNewThread { [self] in
            let result = Result {
                try renderer.render(document, baseDirectory: baseDirectory, to: path) { f in
                    self.state.withLock { $0.fraction = f }
                }
            }
            self.state.withLock { $0.outcome = result }
        }
    }

    /// How far it got (0...1) and, once finished, whether it succeeded.
    public var progress: (fraction: Double, outcome: Result<Void, Error>?) { state.withLock { $0 } }

    /// Blocks until the render ends (tests).
    public func wait(timeout: Double = 60) -> Result<Void, Error>? {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if let o = progress.outcome { return o }
            usleep(2_000)
        }
        return nil
    }
}

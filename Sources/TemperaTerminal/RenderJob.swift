import Foundation
import TemperaAudio
import TemperaCore

/// `:render PATH` from the editor: the document as it stands is written to a sound file on a background
/// thread, through the same `OfflineRenderer` as `tempera render`, while editing goes on. The editor polls
/// `progress` and shows it as a bar on the status line.
///
/// - Warning: create and poll on the editor thread; the render runs on its own thread and touches only
///   its copy of the document and the lock-guarded state here.
final class RenderJob: @unchecked Sendable {
    let path: String
    private let lock = NSLock()
    private var fraction = 0.0
    private var outcome: Result<Void, Error>?

    /// Starts rendering `document` (relative samples resolved against `baseDirectory`) to `path`, as WAV or
    /// FLAC by its extension.
    init(document: Document, baseDirectory: String?, path: String) {
        self.path = path
        let format: OfflineRenderer.Format = (path as NSString).pathExtension.lowercased() == "flac" ? .flac : .wav
        Thread.detachNewThread { [self] in
            let renderer = OfflineRenderer(document: document, baseDirectory: baseDirectory ?? ".")
            let result = Result { try renderer.write(to: path, format: format, bits: .int24) { f in self.set(f) } }
            self.lock.lock()
            self.outcome = result
            self.lock.unlock()
        }
    }

    private func set(_ f: Double) {
        lock.lock()
        fraction = f
        lock.unlock()
    }

    /// How far it got (0...1) and, once finished, whether it succeeded.
    var progress: (fraction: Double, outcome: Result<Void, Error>?) {
        lock.lock()
        defer { lock.unlock() }
        return (fraction, outcome)
    }

    /// Blocks until the render ends (tests).
    func wait(timeout: Double = 60) -> Result<Void, Error>? {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if let o = progress.outcome { return o }
            usleep(2_000)
        }
        return nil
    }
}

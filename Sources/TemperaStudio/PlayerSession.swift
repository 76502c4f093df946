import Foundation
import TemperaCore
import TemperaPlayback

/// A document played with no screen (`tempera play --osc`): the session, the player it publishes to, and the host
/// that runs the transport and file commands on them. What the editor's dispatcher is to its session, without the
/// screen: `play`, `stop`, `locate`, `save`, `export`, `q` and every edit arrive as command lines (over OSC) and
/// are heard from the next event.
///
/// - Warning: main (owning) thread only.
public final class PlayerSession: SessionHost {
    public let session: Session
    public let controller: PlaybackController
    /// Where the document's relative sample paths are read from.
    public let baseDirectory: String
    /// Set by `q`: the owner's loop ends.
    public private(set) var quitRequested = false
    /// Passes `play` plays (0: endless with the loop on).
    public var loops = 0
    /// What the player hears of the session's document (the command line's `--click` and `--song` over the file's
    /// own settings, which a `save` keeps as they were).
    public var played: (Document) -> Document = { $0 }

    public init(session: Session, controller: PlaybackController, baseDirectory: String) {
        self.session = session
        self.controller = controller
        self.baseDirectory = baseDirectory
        session.host = self
    }

    var player: any Player {
        get throws {
            guard let player = controller.player else { throw CommandError("no audio output in this session") }
            return player
        }
    }

    /// Publishes the session's document when it changed since the last call (an edit, an undo); its warnings.
    @discardableResult
    public func publish() -> [String] {
        controller.publish(PlaybackController.Version(generation: 0, revision: session.revision),
                           baseDirectory: baseDirectory, document: { played(session.document) })?.warnings ?? []
    }

    /// Runs a line that came from elsewhere (OSC): what it says ("ok" when nothing), or its error.
    public func runRemote(_ line: String) -> (text: String, isError: Bool) {
        do {
            let message = try session.run(line: line)
            publish()
            return (message ?? "ok", false)
        } catch {
            return ("\(error)", true)
        }
    }

    public func play() throws -> String? {
        let player = try self.player
        if !player.isPlaying { player.play(loops: loops) }
        return "playing"
    }

    public func stop() throws -> String? {
        try player.pause()
        return "stopped"
    }

    public func locate(_ seconds: Double) throws -> String? {
        try played(session.document).checkLocate(seconds)
        try player.locate(seconds: seconds)
        return "at \(DocumentFile.number(seconds)) s"
    }

    public func save(_ path: String?, thenQuit: Bool) throws -> String? {
        let message = try session.save(to: path.map { ($0 as NSString).expandingTildeInPath })
        if thenQuit { quitRequested = true }
        return message
    }

    public func quit(discarding: Bool) throws -> String? {
        guard discarding || !session.isModified else {
            throw CommandError("unsaved changes: save first, or q! to leave without saving")
        }
        quitRequested = true
        return "quitting"
    }

    public func importFile(_ path: String, split: Bool, slice: Bool) throws -> String? {
        throw CommandError("import adds a file to the document in the editor (tempera import makes a document of it)")
    }
}

import Foundation
import TemperaCore
import TemperaPlayback
import TemperaStudio

/// The editor as its session's host: the commands that reach past the document (`play`, `locate`, `open`,
/// `import`, `q`, `theme`...: `Commands+Host.swift`) land here whether a key, the `:` line, OSC or a MIDI
/// binding ran them. Each says what it did on the status line (the editor's questions included), so these
/// return nil; the line the user reads is `view.message`.
extension Dispatcher: SessionHost {
    public func play() throws -> String? {
        guard let player else { throw CommandError("no audio output in this session") }
        guard !player.isPlaying else { return "playing" }
        if let sharedPlay { sharedPlay(true) } else { player.play() }
        return "playing"
    }

    public func stop() throws -> String? {
        guard let player else { throw CommandError("no audio output in this session") }
        if let sharedPlay { sharedPlay(false) } else { player.pause() }
        return "stopped"
    }

    public func locate(_ seconds: Double) throws -> String? {
        guard let player else { throw CommandError("no audio output in this session") }
        guard sharedPlay == nil else { throw CommandError("locate is not available on a shared document") }
        try session.document.checkLocate(seconds)
        player.locate(seconds: seconds)
        return "at \(DocumentFile.number(seconds)) s"
    }

    public func save(_ path: String?, thenQuit: Bool) throws -> String? {
        let target = path.map(Dispatcher.expand)
        if save(target, overwrite: false, thenQuit: thenQuit, switching: thenQuit), thenQuit { quitRequested = true }
        return nil
    }

    public func saveAs(_ path: String) throws -> String? {
        guard !path.isEmpty else { throw CommandError("saveas needs a file name") }
        _ = save(Dispatcher.expand(path), switching: true)
        return nil
    }

    public func open(_ path: String, discarding: Bool) throws -> String? {
        guard !path.isEmpty else { throw CommandError("open needs a file name") }
        let path = Dispatcher.expand(path)
        if discarding { openFile(path) } else { whenDiscarded { self.openFile(path) } }
        return nil
    }

    public func adopt(_ session: Session) throws -> String? {
        replaceSession(session)
        say("session manager: \(session.path ?? "a new document")")
        return nil
    }

    public func newDocument() throws -> String? {
        whenDiscarded {
            self.replaceSession(Session(document: .newDocument()))
            self.say("a new document")
        }
        return nil
    }

    public func importFile(_ path: String, split: Bool, slice: Bool) throws -> String? {
        guard !path.isEmpty else { throw CommandError("import needs a file name (\(Formats.importable))") }
        importDocument(Dispatcher.expand(path), split: split, slice: slice)
        return nil
    }

    public func export(_ path: String) throws -> String? {
        guard !path.isEmpty else { throw CommandError("export needs a file name: export song.mid") }
        exportMidi(Dispatcher.expand(path))
        return nil
    }

    public func render(_ path: String) throws -> String? {
        guard !path.isEmpty else { throw CommandError("render needs a file name (.wav or .flac)") }
        startRender(Dispatcher.expand(path))
        return nil
    }

    public func quit(discarding: Bool) throws -> String? {
        if discarding {
            discardedChanges = true
            quitRequested = true
        } else {
            requestQuit()
        }
        return nil
    }

    public func theme(_ name: String) throws -> String? {
        // Short enough to be read whole on the status line of an 80-column screen.
        let choices = "(\(Theme.shippedNames.joined(separator: ", ")), or your own)"
        guard !name.isEmpty else { throw CommandError("theme needs a name \(choices)") }
        guard let theme = try Theme.named(name, paths: paths) else { throw CommandError("no theme '\(name)' \(choices)") }
        requestedTheme = theme
        return "theme \(name)"
    }

    public func help() throws -> String? {
        view.helpOffset = 0
        return nil
    }
}

extension Dispatcher {
    /// Runs a line that came from elsewhere (OSC, a MIDI binding) as the `:` line runs it, and answers what the
    /// status line then says, or "ok" when it says nothing, and whether that is an error.
    public func runRemote(_ line: String) -> (text: String, isError: Bool) {
        do {
            try runLine(line)
        } catch {
            fail(error)
        }
        return (view.message ?? "ok", view.messageIsError && view.message != nil)
    }
}

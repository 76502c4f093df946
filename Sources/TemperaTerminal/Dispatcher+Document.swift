import Foundation
import TemperaCore
import TemperaStudio

/// The document's life in the editor: the one-key questions saving, opening, a new document, quitting and
/// recovering an autosave ask, and what the status line says of them. The file itself (what is saved where, the
/// outside change, the recovery files) is the application core's `DocumentFileSession` (`files`).
extension Dispatcher {
    /// Questions answered with one key.
    public enum Question: Hashable, Sendable {
        /// Save before quitting? y / n / c.
        case quit
        /// Discard unsaved changes before opening another document? y / n.
        case discard
        /// An autosave holds changes the file does not: recover it? y / n.
        case recover(Document)
        /// The file changed on disk since it was read (another program, another editor): save over it? y / n.
        /// `path` is the save's target as asked; `thenQuit`: the save was asked for on the way out.
        case overwrite(path: String?, file: String, thenQuit: Bool)

        public var text: String {
            switch self {
            case .quit: return "save changes before quitting? (y)es (n)o (c)ancel"
            case .discard: return "discard unsaved changes? (y/n)"
            case .recover: return "an autosave holds changes the file does not: recover it? (y/n)"
            case .overwrite(_, let file, _):
                return "\((file as NSString).lastPathComponent) changed on disk since it was read: save over it? (y/n)"
            }
        }
    }

    /// Asks the recovery question (at start, when an autosave is newer than the file).
    public func offerRecovery(_ document: Document) {
        view.question = .recover(document)
        // Without a file (the demo, an unnamed document) there is no file for the autosave to be newer than.
        view.message = session.path == nil ? "an autosave of unsaved work exists: recover it? (y/n)"
                                           : Question.recover(document).text
        view.messageIsError = false
    }

    func answer(_ q: Question, _ key: Key) {
        let c = key.name.lowercased()
        switch q {
        case .quit:
            switch c {
            case "y":
                view.question = nil
                // Without a file name the save asks for one first; the quit follows the save.
                quitAfterSave = session.path == nil
                if save(nil, overwrite: false, thenQuit: true) { quitRequested = true }
            case "n":
                view.question = nil
                discardedChanges = true
                quitRequested = true
            case "c", "esc":
                view.question = nil
                say("")
            default: return
            }
        case .discard:
            switch c {
            case "y":
                view.question = nil
                let next = afterDiscard
                afterDiscard = nil
                next?()
            case "n", "c", "esc":
                view.question = nil
                afterDiscard = nil
                say("")
            default: return
            }
        case .overwrite(let path, let file, let thenQuit):
            answerOverwrite(path: path, file: file, thenQuit: thenQuit, c)
        case .recover(let doc):
            switch c {
            case "y":
                view.question = nil
                replaceSession(Session(document: doc, path: session.path))
                unsavedRecovery = true
                say("recovered the autosave (not saved yet: C-s saves)")
            case "n", "esc":
                view.question = nil
                say(session.path == nil ? "not recovered: a clean quit deletes the autosave" : "kept the file as saved")
            default:
                // The demo must still start with one key: playing does not wait for the answer.
                if view.keyMap.action(for: key, in: [.timeline, .global]) == Action(.play) { perform(Action(.play)) }
            }
        }
    }

    /// Saves (to `path`, or where the document came from). Returns false and says why on failure. When the
    /// document's own file changed on disk since it was read, it asks first (unless `overwrite`), as vim does;
    /// `thenQuit` quits once that question is answered yes and the save is done. A `path` other than the
    /// document's own file writes a copy there and the editor stays on its file (`save PATH`), unless `switching`
    /// (`saveas PATH`) or the document has no file yet: then it is that file from now on.
    @discardableResult
    public func save(_ path: String?, overwrite: Bool = false, thenQuit: Bool = false, switching: Bool = false) -> Bool {
        do {
            switch try files.save(path, overwrite: overwrite, switching: switching) {
            case .needsName:
                openPrompt("save " + suggestedPath(), keep: 5)
                return false
            case .changedOnDisk(let own):
                let q = Question.overwrite(path: path, file: own, thenQuit: thenQuit)
                view.question = q
                say(q.text)
                return false
            case .saved(let message):
                say(message)
                if quitAfterSave {
                    quitAfterSave = false
                    quitRequested = true
                }
                return true
            }
        } catch {
            fail(error)
            return false
        }
    }

    func answerOverwrite(path: String?, file: String, thenQuit: Bool, _ c: String) {
        switch c {
        case "y":
            view.question = nil
            if save(path, overwrite: true), thenQuit { quitRequested = true }
        case "n", "c", "esc":
            view.question = nil
            quitAfterSave = false
            say("not saved: \(file) was changed by another program (:w PATH saves elsewhere)", error: true)
        default: return
        }
    }

    func openFile(_ path: String) {
        do {
            switch try DocumentFileSession.open(path) {
            case .created(let new):
                replaceSession(new)
                say("new file \(path)")
            case .opened(let opened):
                replaceSession(opened)
                say("opened \(path)")
            }
        } catch {
            fail(error)
        }
    }

    /// Puts a new session in place (open, new, recover).
    public func replaceSession(_ new: Session) {
        if drags.isActive { finishDrag() }
        // The kit library belongs to the program, not to a document; so does the clipboard, which goes with the
        // user from one file to the next.
        if new.kits == nil { new.kits = session.kits }
        if new.view.clipboard == nil { new.view.clipboard = session.view.clipboard }
        files.replace(new)
        new.host = self
        sessionGeneration += 1
        view.trackScroll = 0
        fitView()
    }

    var hasUnsavedWork: Bool { files.hasUnsavedWork }

    func whenDiscarded(_ then: @escaping () -> Void) {
        if hasUnsavedWork {
            afterDiscard = then
            view.question = .discard
            say(Question.discard.text)
        } else {
            then()
        }
    }

    func requestQuit() {
        if hasUnsavedWork {
            view.question = .quit
            say(Question.quit.text)
        } else {
            quitRequested = true
        }
    }

    func suggestedPath() -> String {
        let name = session.path.map { ($0 as NSString).lastPathComponent } ?? "untitled.tempera"
        return directoryOfDocument() + name
    }

    func directoryOfDocument() -> String {
        guard let p = session.path else { return "" }
        let dir = (p as NSString).deletingLastPathComponent
        return dir.isEmpty ? "" : dir + "/"
    }

    static func expand(_ path: String) -> String { (path as NSString).expandingTildeInPath }

    static func unquote(_ s: String) -> String {
        if s.count >= 2, s.first == "\"", s.last == "\"" { return String(s.dropFirst().dropLast()) }
        return s
    }

}

import Foundation
import TemperaCore

/// A document's life as a file, whoever drives it (the editor, `tempera serve`, a session manager): which file it
/// is, whether it holds changes the file does not (against the history step last saved), the atomic save with its
/// check that nobody else wrote the file since it was read, the recovery file written a few seconds after a change
/// and removed once the file holds everything again, and the recovery copy offered at the next start.
///
/// The front ends keep only their side of it: the editor asks the user its questions (save over a file changed
/// on disk? recover the autosave?) and says what happened on its status line; `serve` writes its log. Each asks
/// this type what to do and tells it what the user chose.
///
/// - Warning: main (owning) thread only, as the session is.
public final class DocumentFileSession {
    /// The session on the document; open, new and recover put another in its place (`replace`).
    public var session: Session
    /// The recovery files of the document.
    public var autosave: Autosave
    /// A recovered autosave is in the session and not saved yet: the session looks fresh (its history is), but
    /// leaving without saving would lose it.
    public var unsavedRecovery = false

    public init(session: Session, autosave: Autosave) {
        self.session = session
        self.autosave = autosave
    }

    /// Changes the file does not hold: an edit since the last save, or a recovered autosave.
    public var hasUnsavedWork: Bool { session.isModified || unsavedRecovery }

    /// The folder the document's relative sample paths are read from (nil: a document without a file).
    public var baseDirectory: String? {
        session.path.map { (Autosave.absolute($0) as NSString).deletingLastPathComponent }
    }

    /// The journal of a shared document (`serve`): beside its recovery file in the autosave folder.
    public var journalPath: String? {
        session.path.map { String(autosave.file(for: $0).dropLast(".tempera".count)) + ".journal" }
    }

    // MARK: Opening

    /// What opening a path found.
    public enum Opened {
        /// The file, read.
        case opened(Session)
        /// No file there yet, in a folder that exists: a new document that saves there.
        case created(Session)
    }

    /// Reads the document at `path`, or starts a new one to be saved there when there is no such file in an
    /// existing folder. Throws one line: a missing folder, a file that does not read.
    public static func open(_ path: String) throws -> Opened {
        guard FileManager.default.fileExists(atPath: path) else {
            let dir = (path as NSString).deletingLastPathComponent
            var isDir: ObjCBool = false
            if !dir.isEmpty, !(FileManager.default.fileExists(atPath: dir, isDirectory: &isDir) && isDir.boolValue) {
                throw CommandError("no folder \(dir): a new file cannot be saved there")
            }
            return .created(Session(document: .newDocument(), path: path))
        }
        return .opened(Session(document: try DocumentFile.load(path), path: path))
    }

    /// The session of the document a session manager keeps at `path`: the file read, or, when there is none yet,
    /// a new document saved there at once (the manager's session then holds it from the start, to copy or
    /// rename with the rest). Throws one line: a file that cannot be read, a folder that cannot be written.
    public static func managed(at path: String) throws -> Session {
        if FileManager.default.fileExists(atPath: path) {
            do {
                return Session(document: try DocumentFile.load(path), path: path)
            } catch let error as CommandError {
                throw CommandError("\(path): \(error.message)")
            } catch {
                throw CommandError("\(path): \(error)")
            }
        }
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw CommandError("cannot make the folder \(folder): \(error.localizedDescription)")
            }
        }
        let session = Session(document: .newDocument(), path: path)
        try session.save()
        return session
    }

    /// Puts another session in place (open, new, a session manager's document). A recovered autosave not yet
    /// saved belonged to the session replaced.
    public func replace(_ new: Session) {
        session = new
        unsavedRecovery = false
    }

    // MARK: Saving

    /// What a save did.
    public enum Saved: Equatable {
        /// Written; what to tell the user.
        case saved(String)
        /// The document has no file yet and no path was given: ask for one.
        case needsName
        /// The document's own file changed on disk since it was read (another program, another editor): nothing
        /// written; ask before writing over it (`overwrite`).
        case changedOnDisk(file: String)
    }

    /// Saves (to `path`, or the document's own file), atomically. When the document's own file changed on disk
    /// since it was read, nothing is written unless `overwrite`. A `path` other than the document's own file
    /// writes a copy there and the document stays on its file, unless `switching` (save as) or the document has
    /// no file yet: then it is that file from now on. A participant of a shared document asks its host to save.
    /// Throws one line when writing fails.
    public func save(_ path: String?, overwrite: Bool = false, switching: Bool = false) throws -> Saved {
        guard path != nil || session.path != nil else { return .needsName }
        if !overwrite, let own = session.path, path == nil || Autosave.absolute(path!) == Autosave.absolute(own),
           session.changedOnDisk {
            return .changedOnDisk(file: own)
        }
        // The file itself (`save` run here would come back to this host); a shared document's host saves its own.
        let message = session.remote != nil ? try session.run(.save(path))
            : switching && path != nil ? try session.saveAs(path!) : try session.save(to: path)
        if session.path == path || path == nil { unsavedRecovery = false }
        return .saved(message ?? "saved \(session.path ?? "")")
    }

    /// Leaving without a question (a host stopping): unsaved changes are saved to the file and the recovery file
    /// goes; when the save fails a recovery copy is kept, and the error says so. Returns what was saved (nil:
    /// nothing needed saving).
    @discardableResult
    public func saveBeforeLeaving() throws -> String? {
        guard session.isModified else { return nil }
        do {
            try session.save()
            autosave.remove(for: session.path)
            return session.path
        } catch {
            _ = autosave.write(session)
            throw CommandError("\(error); a recovery copy was kept")
        }
    }

    // MARK: Recovery files

    /// Takes the document's recovery file for this program (see `Autosave.claim`): the line to tell the user when
    /// another editor has the document open too.
    @discardableResult
    public func claim() -> String? { autosave.claim(for: session.path) }

    /// A recovery copy holding changes the file does not, to offer at start.
    public func recoverable() -> Document? { autosave.recoverable(for: session.path, loaded: session.document) }

    /// After another document came in (`replace`): pending autosave state is forgotten and the recovery file
    /// followed to the new document. The line to tell the user when another editor has it open too.
    public func followDocument() -> String? {
        autosave.reset()
        guard autosave.claimed != session.path.map(Autosave.absolute) else { return nil }
        return autosave.claim(for: session.path)
    }

    /// Called now and then (`now` in seconds): a copy goes to the recovery file once changes have waited long
    /// enough, and the recovery file goes once the file holds everything again (saved, or undone back to it).
    /// Returns the line of an autosave that failed.
    public func tick(now: Double) -> String? {
        let problem = autosave.tick(session, now: now)
        if autosave.written, !hasUnsavedWork { autosave.remove(for: session.path) }
        return problem
    }

    /// Keeps everything recoverable when the program is ended from outside (a signal, the terminal gone): the
    /// recovery file written now if anything is unsaved.
    public func keepRecoverable() {
        if hasUnsavedWork { autosave.write(session) }
    }

    /// The program ends: the recovery file goes when nothing is unsaved or the user chose to discard it, and a
    /// copy still being written lands first.
    public func finish(discarding: Bool) {
        if discarding || !hasUnsavedWork { autosave.remove(for: session.path) }
        autosave.flush()
    }
}

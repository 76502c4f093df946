import Foundation
import Synchronization
import TemperaCore

/// Recovery files: a few seconds after the document changes, a copy goes to
/// `$XDG_STATE_HOME/tempera/autosave/`, one file per document (the demo and unnamed documents have their own).
/// A clean save or quit removes it; at the next start a copy holding changes its file does not is offered back,
/// whatever the two files' dates.
///
/// Each document's recovery file is locked (`flock`) by the editor that has the document open: a second editor
/// on the same file is told so, and writes its own recovery file (`NAME-HASH-2.tempera`), so that after both
/// crash neither's unsaved work is lost.
///
/// The periodic copy is encoded and written on a background queue (a 100,000-marker document takes tens of
/// milliseconds to encode and sync, a visible hitch on the editor thread); writing on a signal, removing and
/// `flush()` wait for it, so a removal never races a write still in flight.
///
/// - Warning: main (editor) thread only.
public struct Autosave {
    /// Where recovery files live.
    public let directory: String
    /// Seconds between the first unsaved change and its autosave.
    public var interval: Double
    /// True once this run wrote a recovery file that is still in place.
    public private(set) var written = false
    private var changedAt: Double?
    private var savedRevision: Int?
    private let writer = Writer()
    /// Which recovery file of the document this editor writes: 1 for the first editor on it, 2 for a second...
    public private(set) var instance = 1
    /// The lock held on the recovery file (kept open while this editor has the document).
    private var lockFD: Int32 = -1
    /// The document (full path) whose recovery file this editor has claimed.
    public private(set) var claimed: String?

    /// The background writer: one serial queue, and the last failure for the editor thread to report.
    private final class Writer: Sendable {
        private let queue = DispatchQueue(label: "tempera.autosave")
        private let failure = Mutex<String?>(nil)

        func write(_ document: Document, to path: String, in directory: String) {
            queue.async { [self] in
                do {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                    try DocumentFile.save(document, to: path)
                } catch {
                    failure.withLock { $0 = "autosave failed: \(error)" }
                }
            }
        }

        /// Waits for every write handed over so far.
        func drain() { queue.sync {} }

        func takeFailure() -> String? {
            failure.withLock { f in
                defer { f = nil }
                return f
            }
        }
    }

    /// Recovery files in `directory` (the editor's: `autosave/` in its state folder).
    public init(directory: String, interval: Double = 5) {
        self.directory = directory
        self.interval = interval
    }

    /// The recovery file for a document path (nil: the demo or a new document never saved).
    public func file(for documentPath: String?) -> String {
        guard let documentPath else { return directory + "/untitled.tempera" }
        let absolute = Autosave.absolute(documentPath)
        let base = (absolute as NSString).lastPathComponent
        // The name keeps the file's name readable and a hash of its full path tells same-named files apart.
        return directory + "/" + base + "-" + Autosave.hash(absolute) + (instance > 1 ? "-\(instance)" : "") + ".tempera"
    }

    /// Takes the lock on the document's recovery file. Returns nil when this is the only editor on it, else the
    /// line to tell the user (another editor holds it: this one writes its own recovery file).
    @discardableResult
    public mutating func claim(for documentPath: String?) -> String? {
        release()
        guard let documentPath else { return nil }
        claimed = Autosave.absolute(documentPath)
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for k in 1...64 {
            instance = k
            let fd = open(file(for: documentPath) + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            if fd < 0 { break }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                lockFD = fd
                guard k > 1 else { return nil }
                let name = (documentPath as NSString).lastPathComponent
                return "\(name) is open in another editor too: saving asks before writing over its changes"
            }
            close(fd)
        }
        instance = 1
        return nil
    }

    /// Lets go of the lock (another document opened, or the editor ends).
    public mutating func release() {
        if lockFD >= 0 {
            close(lockFD)
            lockFD = -1
        }
        instance = 1
        claimed = nil
    }

    /// Notes the session's state at time `now` (seconds) and, when changes have waited `interval` seconds,
    /// hands a copy of the document to the background writer. Returns the error text of a write that failed.
    @discardableResult
    public mutating func tick(_ session: Session, now: Double) -> String? {
        let failure = writer.takeFailure()
        guard session.isModified else {
            changedAt = nil
            savedRevision = session.revision
            return failure
        }
        guard session.revision != savedRevision else { return failure }
        if changedAt == nil { changedAt = now }
        guard now - changedAt! >= interval else { return failure }
        writer.write(session.document, to: file(for: session.path), in: directory)
        savedRevision = session.revision
        changedAt = nil
        written = true
        return failure
    }

    /// Waits until every copy handed to the background writer is on disk.
    public func flush() { writer.drain() }

    /// Writes the recovery file now (on a termination signal, or from `tick`).
    @discardableResult
    public mutating func write(_ session: Session) -> String? {
        writer.drain()
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try DocumentFile.save(session.document, to: file(for: session.path))
            savedRevision = session.revision
            changedAt = nil
            written = true
            return nil
        } catch {
            return "autosave failed: \(error)"
        }
    }

    /// Removes the recovery file of a document (after a save, or a quit that discards on purpose).
    public mutating func remove(for documentPath: String?) {
        writer.drain()
        try? FileManager.default.removeItem(atPath: file(for: documentPath))
        changedAt = nil
        written = false
    }

    /// Forgets pending changes after a session was replaced.
    public mutating func reset() {
        changedAt = nil
        written = false
        savedRevision = nil
    }

    /// A recovery copy to offer at start: this editor's recovery file exists, reads, and holds something the
    /// document's file does not (whatever the two files' dates: a `touch`, a clock set back or a copy must not
    /// hide a crash's work). Without one, the recovery file another editor of the document left when it crashed
    /// (no editor holds its lock) is taken over as this editor's own and offered, so that after two editors
    /// crash each one's work is offered in turn, one start after the other.
    public func recoverable(for documentPath: String?, loaded: Document) -> Document? {
        if let doc = Autosave.offer(file(for: documentPath), loaded: loaded) { return doc }
        guard let documentPath, lockFD >= 0 else { return nil }
        let own = file(for: documentPath)
        let base = String(own.dropLast(".tempera".count + (instance > 1 ? "-\(instance)".count : 0)))
        for k in 1...64 where k != instance {
            let other = base + (k > 1 ? "-\(k)" : "") + ".tempera"
            guard FileManager.default.fileExists(atPath: other) else { continue }
            let fd = open(other + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            // Held: its editor still runs, and keeps it.
            guard flock(fd, LOCK_EX | LOCK_NB) == 0, let doc = Autosave.offer(other, loaded: loaded) else { continue }
            guard rename(other, own) == 0 else { continue }
            return doc
        }
        return nil
    }

    /// The document of a recovery file that reads and holds something `loaded` does not.
    private static func offer(_ path: String, loaded: Document) -> Document? {
        guard FileManager.default.fileExists(atPath: path), let doc = try? DocumentFile.load(path) else { return nil }
        guard DocumentFile.encode(doc) != DocumentFile.encode(loaded) else { return nil }
        return doc
    }

    public static func absolute(_ path: String) -> String {
        let p = (path as NSString).expandingTildeInPath
        if p.hasPrefix("/") { return (p as NSString).standardizingPath }
        return ((FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(p) as NSString).standardizingPath
    }

    /// FNV-1a, 64 bits, in hex: stable across runs (Swift's `Hasher` is seeded per process).
    public static func hash(_ s: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        return String(h, radix: 16)
    }
}

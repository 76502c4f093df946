import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import TemperaCore

/// The host's append-only record of every change since the shared file was last saved, so that nothing a
/// participant was told is done can be lost when the host is killed.
///
/// The first line names the base: a hash of the file's bytes (or, for a file not written yet, the whole new
/// document); each further line is one request's changes — who made them, the request's id, and the numbered
/// deltas — written with `write(2)` before the request is answered. A host killed at any moment has every
/// answered change in the kernel's hands; started again on the same file it replays them over the file. The
/// file is also `fdatasync`ed within `syncDelay` of a change, on a queue of its own, so a crash of the machine
/// loses at most that much. A line cut short by the kill was never answered and is dropped.
///
/// A write that fails (a full disk, a file-size limit, an I/O error) throws, and the journal is cut back to
/// its last whole line, so the change it held is as if never made and later lines still replay; the host then
/// refuses that change instead of answering it. When even cutting back fails, every later append throws until
/// the journal starts again from a save.
///
/// - Warning: one thread at a time (the host's document queue); syncing happens on its own queue.
public final class Journal: @unchecked Sendable {
    /// One request's changes, as journalled.
    public struct Entry {
        public var key: String
        public var name: String
        public var id: Int?
        public var deltas: [SharedDocument.Delta]
    }

    /// What a journal held when it was opened.
    public struct Replay {
        public var document: Document
        public var entries: [Entry]
        /// A journal that does not follow the file was moved here (nil: none).
        public var setAside: String?
    }

    public let path: String
    private var fd: Int32
    /// Requests journalled since the base.
    public private(set) var count = 0
    /// The bytes of whole lines in the file: a failed write is cut back to this.
    private var length: off_t = 0
    /// Why the journal cannot be appended to (a failed write that could not be cut back), or nil.
    public private(set) var broken: WriteFailure?

    /// A write the system refused: the journal's path and the system's reason ("No space left on device").
    public struct WriteFailure: Error, CustomStringConvertible, Sendable {
        public var path: String
        public var reason: String
        public var description: String { "cannot write the journal \(path): \(reason)" }
    }
    /// Seconds between a change and the sync that makes it survive a crash of the machine.
    public static let syncDelay = 0.2
    private let syncQueue = DispatchQueue(label: "tempera.journal.sync")
    private let syncScheduled = Mutex(false)

    /// Opens the journal at `path` for a document whose file holds `fileBytes` (nil: no file yet) and reads as
    /// `loaded`. A journal that follows this file is replayed: the document it leads to and its entries are
    /// returned and the journal goes on. One that does not (the file was saved or changed since) is set aside
    /// and a new one started.
    public static func open(_ path: String, fileBytes: [UInt8]?, loaded: Document) throws -> (Journal, Replay) {
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var replay = Replay(document: loaded, entries: [])
        let header = Journal.header(fileBytes: fileBytes, loaded: loaded)
        if let data = FileManager.default.contents(atPath: path), !data.isEmpty {
            if let (document, entries) = Journal.read([UInt8](data), header: header, fileBytes: fileBytes) {
                replay.document = document
                replay.entries = entries
                let fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
                guard fd >= 0 else { throw NetError.system("cannot open the journal \(path)") }
                // A line cut short by a kill is dropped so the next one starts clean.
                let whole = data.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
                if whole < data.count { _ = ftruncate(fd, off_t(whole)) }
                let j = Journal(path: path, fd: fd)
                j.count = entries.count
                j.length = off_t(whole)
                return (j, replay)
            }
            let aside = path + ".stale-\(Int(Date().timeIntervalSince1970))"
            _ = rename(path, aside)
            replay.setAside = aside
        }
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw NetError.system("cannot open the journal \(path)") }
        let j = Journal(path: path, fd: fd)
        try j.write(header + "\n")
        fsync(fd)
        return (j, replay)
    }

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit { Glibc.close(fd) }

    /// The first line: the file's hash, or the whole document when there is no file.
    static func header(fileBytes: [UInt8]?, loaded: Document) -> String {
        if let fileBytes { return "{\"journal\":1,\"base\":\"\(hash(fileBytes))\"}" }
        return "{\"journal\":1,\"new\":" + DocumentDelta.snapshot(loaded).encoded() + "}"
    }

    /// The document and entries a journal leads to, or nil when it does not follow this base.
    static func read(_ bytes: [UInt8], header: String, fileBytes: [UInt8]?) -> (Document, [Entry])? {
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        // The last piece is what follows the last newline: empty, or a line cut short (never answered).
        lines.removeLast()
        guard let first = lines.first, let head = try? JSONMessage.parse(Array(first)) else { return nil }
        var document: Document
        if let base = head["base"]?.string {
            guard let fileBytes, base == hash(fileBytes), let doc = try? DocumentFile.decode(bytes: fileBytes) else { return nil }
            document = doc
        } else if let whole = head["new"] {
            guard fileBytes == nil, let d = try? DocumentDelta(decoding: whole), let doc = d.whole else { return nil }
            document = doc
        } else {
            return nil
        }
        var entries: [Entry] = []
        for line in lines.dropFirst() {
            guard let m = try? JSONMessage.parse(Array(line)), let key = m["key"]?.string else { break }
            var entry = Entry(key: key, name: m["who"]?.string ?? "", id: m["id"]?.int, deltas: [])
            for d in m["deltas"]?.array ?? [] {
                guard let seq = d["seq"]?.int, let c = d["change"], let change = try? DocumentDelta(decoding: c),
                      (try? change.apply(to: &document)) != nil else { return (document, entries) }
                entry.deltas.append(SharedDocument.Delta(seq: seq, by: entry.name, name: d["name"]?.string ?? "", change: change))
            }
            entries.append(entry)
        }
        return (document, entries)
    }

    /// Journals one request's changes; returns once they are written (see the type's note on syncing).
    public func append(key: String, name: String, id: Int?, deltas: [SharedDocument.Delta]) throws {
        var line = "{\"key\":" + JSONMessage.quote(key) + ",\"who\":" + JSONMessage.quote(name)
        if let id { line += ",\"id\":\(id)" }
        line += ",\"deltas\":[" + deltas.map {
            "{\"seq\":\($0.seq),\"name\":" + JSONMessage.quote($0.name) + ",\"change\":" + $0.change.encoded() + "}"
        }.joined(separator: ",") + "]}\n"
        if let broken { throw broken }
        try write(line)
        count += 1
        scheduleSync()
    }

    /// Starts again from the file as just saved (its bytes): the changes are in the file now.
    public func restart(fileBytes: [UInt8], loaded: Document) throws {
        guard ftruncate(fd, 0) == 0 else { throw NetError.system("cannot empty the journal \(path)") }
        length = 0
        broken = nil
        do {
            try write(Journal.header(fileBytes: fileBytes, loaded: loaded) + "\n")
        } catch let failure as WriteFailure {
            // Lines without their header would not replay: nothing more is journalled until a restart works.
            broken = failure
            throw failure
        }
        fsync(fd)
        count = 0
    }

    /// Removes the journal (the host stops with everything saved).
    public func remove() {
        Glibc.close(fd)
        fd = -1
        unlink(path)
    }

    /// Writes one whole line, or throws with the file cut back to its last whole line.
    private func write(_ text: String) throws {
        var bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                var failure = WriteFailure(path: path, reason: String(cString: strerror(code)))
                // What part of the line went in is taken back, so the next line starts clean.
                if done > 0, ftruncate(fd, length) != 0 {
                    failure.reason += ", and it could not be cut back (" + String(cString: strerror(errno)) + ")"
                    broken = failure
                }
                throw failure
            }
            done += n
        }
        length += off_t(done)
        bytes.removeAll()
    }

    private func scheduleSync() {
        let fd = self.fd
        syncScheduled.withLock { scheduled in
            guard !scheduled else { return }
            scheduled = true
            syncQueue.asyncAfter(deadline: .now() + Journal.syncDelay) { [self] in
                syncScheduled.withLock { $0 = false }
                _ = fdatasync(fd)
            }
        }
    }

    /// FNV-1a, 64 bits, in hex.
    static func hash(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        return String(h, radix: 16) + "-\(bytes.count)"
    }
}

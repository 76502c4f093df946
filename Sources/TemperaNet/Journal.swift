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
/// The journal is a sequence of records, one a line, each its checksum (FNV-1a, 64 bits, in hex) then a space
/// and its JSON. The first names the journal's version and the base: a hash of the file's bytes (or, for a file
/// not written yet, the whole new document); each further one is one request's changes — who made them, the
/// request's id, and the numbered deltas — written with `write(2)` before the request is answered. A host killed at any moment has every
/// answered change in the kernel's hands; started again on the same file it replays them over the file. The
/// file is also `fdatasync`ed within `syncDelay` of a change, on a queue of its own, so a crash of the machine
/// loses at most that much. A last line cut short by the kill was never answered and is dropped.
///
/// A damaged record (a flipped byte, a run of NUL bytes, garbage after the last record, a line of any length
/// that does not check) stops the replay there: everything before it is replayed, the rest of the file from it
/// is moved aside to a file of its own, and the journal goes on from the last good record, so no record written
/// later is ever behind a damaged one. Opening says so in one line (`Replay.damage`). A journal of another
/// version is set aside whole.
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
        /// What was wrong with the journal, in one line, when a damaged record stopped its replay (nil: none).
        public var damage: String?
    }

    /// The journal's format: checksummed records came with 2.
    public static let version = 2

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
        // Mapped, not read: a journal grown huge by damage costs no memory to look through.
        if let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped), !data.isEmpty {
            let read = data.withUnsafeBytes { Journal.read($0, fileBytes: fileBytes) }
            if let document = read.document {
                replay.document = document
                replay.entries = read.entries
                let fd = Glibc.open(path, O_RDWR | O_APPEND | O_CLOEXEC)
                guard fd >= 0 else { throw NetError.system("cannot open the journal \(path)") }
                if read.clean < data.count {
                    if let bad = read.damage {
                        // The damaged record and all after it go aside; the journal goes on from the last good one.
                        let aside = path + ".damaged-\(Int(Date().timeIntervalSince1970))"
                        let kept = data.withUnsafeBytes { Journal.copy(UnsafeRawBufferPointer(rebasing: $0[read.clean...]), to: aside) }
                        replay.damage = "the journal \(path) is damaged at record \(read.entries.count + 2) (\(bad)): "
                            + "replayed the \(read.entries.count) before it; "
                            + (kept ? "the rest (\(Limits.count(data.count - read.clean)) bytes) was moved to \(aside)"
                                    : "the rest (\(Limits.count(data.count - read.clean)) bytes) could not be kept and was dropped")
                    }
                    // A line cut short by a kill (never answered) is dropped, so the next one starts clean.
                    guard ftruncate(fd, off_t(read.clean)) == 0 else {
                        Glibc.close(fd)
                        throw NetError.system("cannot cut the journal \(path) back to its last good record")
                    }
                    fsync(fd)
                }
                let j = Journal(path: path, fd: fd)
                j.count = read.entries.count
                j.length = off_t(read.clean)
                return (j, replay)
            }
            let aside = path + ".stale-\(Int(Date().timeIntervalSince1970))"
            _ = rename(path, aside)
            replay.setAside = aside
            replay.damage = read.damage.map { "the journal \(path) was set aside as \(aside): \($0)" }
        }
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw NetError.system("cannot open the journal \(path)") }
        let j = Journal(path: path, fd: fd)
        try j.write(header)
        fsync(fd)
        return (j, replay)
    }

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit { Glibc.close(fd) }

    /// The first record: the version and the file's hash, or the whole document when there is no file.
    static func header(fileBytes: [UInt8]?, loaded: Document) -> String {
        if let fileBytes { return "{\"journal\":\(version),\"base\":\"\(hash(fileBytes))\"}" }
        return "{\"journal\":\(version),\"new\":" + DocumentDelta.snapshot(loaded).encoded() + "}"
    }

    /// A record as a line: its checksum, a space, its text, a newline.
    static func record(_ text: String) -> [UInt8] {
        let body = Array(text.utf8)
        let sum = String(hashValue(body), radix: 16)
        return Array((String(repeating: "0", count: 16 - sum.count) + sum + " ").utf8) + body + [0x0A]
    }

    /// What reading a journal found.
    struct Reading {
        /// The document it leads to, or nil when it does not follow this base (or is of another version).
        var document: Document?
        var entries: [Entry] = []
        /// The bytes up to the end of the last good record.
        var clean = 0
        /// Why reading stopped before the end (a damaged record), or nil (the end, or a last line cut short).
        var damage: String?
    }

    /// The document and entries a journal's bytes lead to over this base, up to its first bad record.
    static func read(_ bytes: UnsafeRawBufferPointer, fileBytes: [UInt8]?) -> Reading {
        var out = Reading()
        var at = 0
        /// The next record's JSON (checked), or why there is none: nil at the end or at a last line cut short.
        func next() -> Result<JSONMessage, CommandError>? {
            guard at < bytes.count else { return nil }
            let start = at
            guard let found = memchr(bytes.baseAddress! + start, 0x0A, bytes.count - start) else {
                // What follows the last newline was never answered when it is the start of a record cut short;
                // anything else there (garbage, NUL bytes) is damage like any other.
                return looksCutShort(bytes[start...]) ? nil : .failure(CommandError("bytes after the last record"))
            }
            let nl = bytes.baseAddress!.distance(to: UnsafeRawPointer(found))
            at = nl + 1
            let line = UnsafeRawBufferPointer(rebasing: bytes[start..<nl])
            guard line.count > 17, line[16] == 0x20, let sum = UInt64(String(decoding: line[0..<16], as: UTF8.self), radix: 16) else {
                return .failure(CommandError("a line of \(Limits.count(line.count)) bytes that is not a record"))
            }
            let body = UnsafeRawBufferPointer(rebasing: line[17...])
            guard hashValue(body) == sum else { return .failure(CommandError("its checksum does not match")) }
            guard let m = try? JSONMessage.parse(Array(body)) else { return .failure(CommandError("it is not JSON")) }
            return .success(m)
        }
        guard case .success(let head)? = next() else {
            // A journal of the first version had no checksums: its first line is bare JSON.
            let first = bytes.prefix { $0 != 0x0A }.prefix(4096)
            if let m = try? JSONMessage.parse(Array(first)), let v = m["journal"]?.int {
                out.damage = "it is of version \(v), not \(version)"
            } else {
                out.damage = "its first record does not read"
            }
            return out
        }
        guard head["journal"]?.int == version else {
            out.damage = "it is of version \(head["journal"]?.int.map(String.init) ?? "unknown"), not \(version)"
            return out
        }
        var document: Document
        if let base = head["base"]?.string {
            guard let fileBytes, base == hash(fileBytes), let doc = try? DocumentFile.decode(bytes: fileBytes) else { return out }
            document = doc
        } else if let whole = head["new"] {
            guard fileBytes == nil, let d = try? DocumentDelta(decoding: whole), let doc = d.whole else { return out }
            document = doc
        } else {
            out.damage = "its first record names no base"
            return out
        }
        out.clean = at
        var lastSeq: Int?
        while let record = next() {
            guard case .success(let m) = record else {
                if case .failure(let why) = record { out.damage = why.message }
                break
            }
            guard let key = m["key"]?.string else {
                out.damage = "it is not a change"
                break
            }
            var entry = Entry(key: key, name: m["who"]?.string ?? "", id: m["id"]?.int, deltas: [])
            var changed = document
            var applies = true
            for d in m["deltas"]?.array ?? [] {
                guard let seq = d["seq"]?.int, let c = d["change"], let change = try? DocumentDelta(decoding: c),
                      (try? change.apply(to: &changed)) != nil else {
                    applies = false
                    break
                }
                entry.deltas.append(SharedDocument.Delta(seq: seq, by: entry.name, name: d["name"]?.string ?? "", change: change))
            }
            guard applies else {
                out.damage = "its change does not apply"
                break
            }
            // Change numbers follow on from record to record: a gap is a record lost.
            if let first = entry.deltas.first?.seq, let lastSeq, first != lastSeq + 1 {
                out.damage = "its change \(first) does not follow change \(lastSeq)"
                break
            }
            lastSeq = entry.deltas.last?.seq ?? lastSeq
            document = changed
            out.entries.append(entry)
            out.clean = at
        }
        out.document = document
        return out
    }

    /// Writes `bytes` to a new file at `path` (mode 0600); false when it cannot.
    static func copy(_ bytes: UnsafeRawBufferPointer, to path: String) -> Bool {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + done, min(bytes.count - done, 1 << 20))
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return fsync(fd) == 0
    }

    /// Whether bytes after the last newline are a record's start cut short by a kill: its checksum's hex digits,
    /// a space and JSON text, no NUL bytes.
    static func looksCutShort(_ tail: Slice<UnsafeRawBufferPointer>) -> Bool {
        for (k, b) in tail.enumerated() {
            if k < 16 {
                guard (0x30...0x39).contains(b) || (0x61...0x66).contains(b) else { return false }
            } else if k == 16 {
                guard b == 0x20 else { return false }
            } else if k == 17 {
                guard b == UInt8(ascii: "{") else { return false }
            } else if b == 0 {
                return false
            }
        }
        return true
    }

    /// Journals one request's changes; returns once they are written (see the type's note on syncing).
    /// `changes`: the deltas' changes as `DocumentDelta.encoded()` writes them, when the caller has them already.
    public func append(key: String, name: String, id: Int?, deltas: [SharedDocument.Delta], changes: [String]? = nil) throws {
        let changes = changes ?? deltas.map { $0.change.encoded() }
        var line = "{\"key\":" + JSONMessage.quote(key) + ",\"who\":" + JSONMessage.quote(name)
        if let id { line += ",\"id\":\(id)" }
        line += ",\"deltas\":[" + zip(deltas, changes).map {
            "{\"seq\":\($0.seq),\"name\":" + JSONMessage.quote($0.name) + ",\"change\":" + $1 + "}"
        }.joined(separator: ",") + "]}"
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
            try write(Journal.header(fileBytes: fileBytes, loaded: loaded))
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

    /// Writes one whole record, or throws with the file cut back to its last whole record.
    private func write(_ text: String) throws {
        var bytes = Journal.record(text)
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

    /// FNV-1a, 64 bits, in hex, and the length.
    static func hash(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { String(hashValue($0), radix: 16) } + "-\(bytes.count)"
    }

    /// FNV-1a, 64 bits.
    static func hashValue<C: Collection>(_ bytes: C) -> UInt64 where C.Element == UInt8 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        return h
    }
}

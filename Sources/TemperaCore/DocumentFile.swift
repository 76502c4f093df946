#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The document as a versioned, human-readable JSON file; saving is atomic.
///
/// The file puts one marker on a line (`{"t": 0.25, "amp": 0.8, "clip": 3}`), so a diff of two versions of a
/// song reads as a list of changed markers. Doubles are written shortest-round-trip, so a document comes back
/// exactly as it was saved (marker ids aside: they are never written, and loading numbers markers in file
/// order). Reading is strict: a wrong type, an unknown field, a value out of range or a newer format version
/// is one error line naming its line and column, and nothing is loaded.
///
/// Safe to call from any thread (it touches only the given path and its folder).
public enum DocumentFile {
    /// The key that marks a tempera file and carries its format version (`"version"` is read too).
    public static let versionKey = "tempera"

    // MARK: - Writing

    /// The file's text.
    public static func encode(_ document: Document) -> String {
        String(decoding: encodeBytes(document), as: UTF8.self)
    }

    /// The file's text as UTF-8 bytes, as `save` writes them.
    /// A group open as the timeline is written as closed (the timeline kept aside, the group as edited) unless
    /// `asShown`: a shared document's delta carries the tracks as the host shows them.
    public static func encodeBytes(_ document: Document, asShown: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4096 + 48 * document.tracks.reduce(0) { $0 + $1.markers.count })
        encode(document, asShown: asShown) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// The bytes `encode` gathers before handing them on.
    static let pieceBytes = 1 << 20

    /// The file's text handed to `sink` in pieces of about a megabyte, so a document of millions of markers is
    /// written without its whole text in memory. Each piece is valid only during the call. A group open as the
    /// timeline is written as closed unless `asShown` (see `encodeBytes`).
    public static func encode(_ document: Document, asShown: Bool = false,
                              to sink: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        let document = asShown ? document : document.closingGroupEdit
        var out = TextBuffer()
        out += "{\n"
        out += "  \"\(versionKey)\": \(Document.formatVersion),\n"
        out += "  \"seed\": \(document.seed),\n"
        out += "  \"pattern\": \(string(document.pattern)),\n"
        let t = document.transport
        out += "  \"transport\": {\"tempo\": \(number(t.tempo)), \"volume\": \(number(t.volume)), "
            + "\"length\": \(number(t.length)), \"loop\": {\"on\": \(t.loopOn), \"start\": \(number(t.loopStart)), "
            + "\"end\": \(number(t.loopEnd))}},\n"
        // Musical time (beat, meter, grid, metronome) has its own line: older files without it read as the defaults.
        out += "  \"time\": {\"beat\": \(number(t.beat)), \"meter\": \(meter(t.signature)), \"grid\": \(t.grid.map(String.init) ?? "null"), "
            + "\"click\": {\"on\": \(t.click), \"level\": \(number(t.clickLevel))}, \"countin\": \(t.countIn)"
            + tempoMap(t.tempoMap) + "},\n"
        if document.song != Song() { out += song(document.song) }
        let d = document.designer
        out += "  \"designer\": {\"span\": \(number(d.span)), \"slider\": \(number(d.slider)), \"map\": "
        if let map = d.map {
            out += "[" + map.map { "[\($0.top), \($0.bottom)]" }.joined(separator: ", ") + "]"
        } else {
            out += "null"
        }
        out += ",\n    \"top\": \(row(d.top)),\n    \"bottom\": \(row(d.bottom))},\n"
        out += "  \"slots\": [\n"
        for (i, slot) in document.slots.enumerated() {
            out += "    {\"slot\": \(i + 1), \"name\": \(string(slot.name))"
            if let file = slot.file { out += ", \"file\": \(string(file))" }
            if let note = slot.note { out += ", \"note\": \(note)" }
            if let font = slot.soundFont {
                out += ", \"sf2\": \(string(font)), \"program\": \(slot.program), \"bank\": \(slot.bank)"
            }
            out += ", \"gain\": \(number(slot.gain)), \"mode\": \"\(slot.mode.rawValue)\", "
                + "\"attack\": \(number(slot.attack))"
            if let decay = slot.decay { out += ", \"decay\": \(number(decay))" }
            out += ", \"release\": \(number(slot.release))"
            if slot.pan != 0 { out += ", \"pan\": \(number(slot.pan))" }
            if slot.choke != 0 { out += ", \"choke\": \(slot.choke)" }
            if let ch = slot.midiChannel {
                out += ", \"midi\": \(ch)"
                if let n = slot.midiNote { out += ", \"midi_note\": \(n)" }
            }
            if let n = slot.midiInNote { out += ", \"midi_in\": \(n)" }
            if !slot.layers.isEmpty {
                out += ", \"layers\": [" + slot.layers.map { l in
                    "{\"file\": \(string(l.file)), \"min\": \(number(l.min)), \"max\": \(number(l.max)), "
                        + "\"gain\": \(number(l.gain)), \"pitch\": \(number(l.pitch))}"
                }.joined(separator: ", ") + "]"
            }
            out += "}"
            out += i == document.slots.count - 1 ? "\n" : ",\n"
        }
        out += "  ],\n"
        let groups = GroupBank.range.filter { !document.groups[$0].isEmpty }
        out += "  \"groups\": ["
        for (k, n) in groups.enumerated() {
            let g = document.groups[n]
            out += "\n    {\"group\": \(n), \"span\": \(number(g.span)), "
            if let groove = g.groove {
                func list(_ xs: [Double?]) -> String { "[" + xs.map { $0.map(number) ?? "null" }.joined(separator: ", ") + "]" }
                out += "\"groove\": {\"grid\": \(groove.steps), \"step\": \(number(groove.step)), "
                    + "\"offsets\": \(list(groove.offsets)), \"amps\": \(list(groove.amps))},\n     "
            }
            out += "\"elements\": [\n"
            for (i, e) in g.elements.enumerated() {
                out += "      {\"offset\": \(number(e.offset)), \"track\": \(e.trackOffset), \"amp\": \(number(e.amp))"
                if let c = e.content { out += ", \"clip\": \(content(c))" }
                out += e.extras.json
                out += i == g.elements.count - 1 ? "}\n" : "},\n"
            }
            out += k == groups.count - 1 ? "    ]}\n  " : "    ]},"
        }
        out += "],\n"
        out += "  \"tracks\": ["
        let trackHeads = document.tracks.map { track in
            Array(("\n    {\"name\": \(string(track.name)), \"gain\": \(number(track.gain)), \"mute\": \(track.mute), "
                + "\"solo\": \(track.solo), " + trackTime(track) + "\"markers\": [").utf8)
        }
        // Marker lines, nearly all of a large document's text, go straight into a buffer with room for the
        // longest a run of them could be, handed on whenever the next run might not fit.
        let longestRun = document.tracks.map { $0.markers.runs.map(\.count).max() ?? 0 }.max() ?? 0
        let capacity = max(pieceBytes, out.bytes.count) + 64 + longestRun * markerLineMax
            + (trackHeads.map(\.count).max() ?? 0)
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var w = ByteWriter(buffer)
        func flush() throws {
            try sink(UnsafeBufferPointer(start: buffer, count: w.cursor - buffer))
            w = ByteWriter(buffer)
        }
        out.bytes.withUnsafeBufferPointer { w.write(bytes: $0) }
        for (k, track) in document.tracks.enumerated() {
            if w.cursor - buffer + trackHeads[k].count + 64 > capacity { try flush() }
            trackHeads[k].withUnsafeBufferPointer { w.write(bytes: $0) }
            let runs = track.markers.runs
            for (r, run) in runs.enumerated() {
                if w.cursor - buffer + run.count * markerLineMax > capacity - 64 { try flush() }
                writeMarkers(run, to: &w, ending: r == runs.count - 1)
            }
            w.append(k == document.tracks.count - 1 ? "]}\n  " : "]},")
            if w.cursor - buffer >= pieceBytes { try flush() }
        }
        w.append("]\n}\n")
        try flush()
    }

    /// The most bytes one marker line takes: `\n      {"t": `, a number, `, "amp": `, a number,
    /// `, "clip": ` and a whole number, `}\n    `.
    static let markerLineMax = 13 + numberMax + 9 + numberMax + 10 + 20 + 6 + extrasMax
    /// The most bytes a marker's extras take (`MarkerExtras.json`).
    static let extrasMax = 7 + numberMax + 9 + 20 + 13 + numberMax + 10 + numberMax
    /// The longest `number` writes: `-2.2250738585072014e-308`.
    static let numberMax = 24

    /// A track's marker lines (`{"t": 0.25, "amp": 0.8, "clip": 3}` each on its own line).
    /// `ending`: these are the list's last markers (the last line is closed without a comma).
    static func writeMarkers<C: Collection>(_ markers: C, to w: inout ByteWriter, ending: Bool = true)
        where C.Element == Marker {
        let count = markers.count
        var i = 0
        // Amplitudes repeat from marker to marker, so the last one's digits are copied rather than formatted.
        var lastAmp = Double.nan
        var lastAmpText = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        for m in markers {
            w.append("\n      {\"t\": ")
            w.write(number: m.time)
            w.append(", \"amp\": ")
            if m.amp.bitPattern == lastAmp.bitPattern {
                w.write(bytes: lastAmpText)
            } else {
                let start = w.cursor
                w.write(number: m.amp)
                lastAmp = m.amp
                lastAmpText = UnsafeBufferPointer(start: start, count: w.cursor - start)
            }
            switch m.content {
            case nil: break
            case .clip(let n)?:
                w.append(", \"clip\": ")
                w.write(integer: Int64(n))
            case .hold?: w.append(", \"clip\": \"+\"")
            case .rest?: w.append(", \"clip\": \"-\"")
            case .random?: w.append(", \"clip\": \"?\"")
            }
            if m.hasExtras { w.write(m.extras.json) }
            i += 1
            w.append(i == count && ending ? "}\n    " : "},")
        }
    }

    /// UTF-8 text built by appending strings.
    struct TextBuffer {
        var bytes: [UInt8] = []

        static func += (buffer: inout TextBuffer, text: String) {
            var text = text
            text.withUTF8 { buffer.bytes.append(contentsOf: $0) }
        }
    }

    /// The tempo map's key of the `time` line, written only when the map has points: each point as
    /// `[time, tempo, "shape"]`.
    static func tempoMap(_ map: TempoMap) -> String {
        guard !map.isEmpty else { return "" }
        return ", \"tempomap\": [" + map.points.map { "[\(number($0.time)), \(number($0.tempo)), \"\($0.shape.rawValue)\"]" }
            .joined(separator: ", ") + "]"
    }

    /// A track's own cycle and ratio, written only when set: `"cycle": [A, B], "ratio": "18/17", `.
    static func trackTime(_ track: Track) -> String {
        var out = ""
        if let c = track.cycle { out += "\"cycle\": [\(number(c.start)), \(number(c.end))], " }
        if let r = track.ratioText { out += "\"ratio\": \(string(r)), " }
        return out
    }

    /// The song's line (and one line a section), written only when the song is not the empty default.
    static func song(_ song: Song) -> String {
        var out = "  \"song\": {\"on\": \(song.on), \"loop\": \(song.loop), \"sections\": ["
        for (j, s) in song.sections.enumerated() {
            out += "\n    {\"name\": \(string(s.name)), \"start\": \(number(s.start)), \"end\": \(number(s.end)), "
                + "\"repeats\": \(s.repeats)" + (s.tempo.map { ", \"tempo\": \(number($0))" } ?? "")
                + (s.tempoEnd.map { ", \"tempoend\": \(number($0)), \"shape\": \"\(s.shape.rawValue)\"" } ?? "")
                + (s.meter.map { ", \"meter\": \(meter($0))" } ?? "") + choice(s) + "}"
            out += j == song.sections.count - 1 ? "\n  " : ","
        }
        out += "]"
        if !song.instances.isEmpty {
            // One instance a line: group, start, track (from 1), times.
            out += ", \"instances\": [" + song.instances.map {
                "\n    [\($0.group), \(number($0.start)), \($0.track + 1), \($0.times)]"
            }.joined(separator: ",") + "\n  ]"
        }
        return out + "},\n"
    }

    /// A meter: its count alone for a quarter-note meter in the usual groups (as files always held it), else its
    /// command spelling as a string (`"7/8 groups=2+2+3"`, `"12/8"`).
    static func meter(_ m: Meter) -> String {
        m.unit == 4 && m.groups == nil ? "\(m.count)" : string(m.text)
    }

    static func row(_ r: Temperament.Row) -> String {
        "{\"division\": \(r.division), \"beats\": [" + r.beats.map(String.init).joined(separator: ", ")
            + "], \"amps\": [" + r.amps.map(number).joined(separator: ", ") + "]}"
    }

    static func content(_ c: Content) -> String {
        if case .clip(let n) = c { return String(n) }
        return "\"\(c.code)\""
    }

    /// A Double as JSON: whole numbers without a fraction, others shortest-round-trip (Swift's description),
    /// so reading the text back gives the same Double bit for bit.
    public static func number(_ v: Double) -> String {
        guard v.isFinite else { return "null" }
        if v == v.rounded(), abs(v) < 1e15 {
            if v == 0 { return v.sign == .minus ? "-0" : "0" }
            return String(Int64(v))
        }
        return v.description
    }

    /// A string as JSON, escaping quotes, backslashes and control characters.
    public static func string(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7f {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    // MARK: - Reading

    /// Reads a file's text; throws a one-line `CommandError` for malformed input or a newer version.
    public static func decode(_ text: String) throws -> Document {
        var text = text
        // The string's own UTF-8 storage, read in place rather than copied.
        return try text.withUTF8 { try Decoder.document(try JSONValue.parse($0, markerLists: true)) }
    }

    /// Reads a file's bytes (UTF-8).
    public static func decode(bytes: [UInt8]) throws -> Document {
        let root = try JSONValue.parse(bytes, markerLists: true)
        return try Decoder.document(root)
    }

    // MARK: - Files

    /// Writes atomically: a temporary file beside the target, fsync, rename over the target, fsync the folder.
    /// On any failure the target is untouched and the temporary file removed.
    public static func save(_ document: Document, to path: String) throws {
        var file = try AtomicWrite(path)
        do {
            try encode(document) { try file.write($0) }
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
    }

    /// Reads and decodes a file. Errors from the content carry its line and column.
    public static func load(_ path: String) throws -> Document {
        removeStaleTemporaries(of: path)
        let bytes = try readFile(path)
        return try decode(bytes: bytes)
    }

    /// The folder a path lives in ("." for a bare name).
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    static func systemError(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// Where writing `path` lands: the file a symbolic link (or a chain of them) points to, so saving through a
    /// link replaces its target and keeps the link.
    static func resolvingLinks(_ path: String) -> String {
        var p = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(p, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return p }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(p, &buffer, buffer.count - 1)
            guard n > 0 else { return p }
            let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            p = target.hasPrefix("/") ? target : folder(of: p) + "/" + target
        }
        return p
    }

    /// The prefix of the temporary files a save of `base` may leave when the folder cannot hold an unnamed
    /// file: `.NAME.tempera-PID-N.tmp`.
    static func tempPrefix(_ base: Substring) -> String { ".\(base).tempera-" }

    /// Removes temporary files of `path` left by saves whose process is gone (killed mid-write).
    public static func removeStaleTemporaries(of path: String) {
        let target = resolvingLinks(path)
        let dir = folder(of: target)
        let base = target.lastIndex(of: "/").map { target[target.index(after: $0)...] } ?? target[...]
        let prefix = tempPrefix(base)
        guard let d = opendir(dir) else { return }
        defer { closedir(d) }
        while let entry = readdir(d) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            guard name.hasPrefix(prefix), name.hasSuffix(".tmp") else { continue }
            let rest = name.dropFirst(prefix.count).dropLast(4)
            guard let dash = rest.firstIndex(of: "-"), let pid = Int32(rest[..<dash]) else { continue }
            if pid != getpid(), kill(pid, 0) != 0, errno == ESRCH { unlink(dir + "/" + name) }
        }
    }

    /// `O_TMPFILE` (Linux): an unnamed file in a folder, which vanishes if the process dies before linking it.
    static let openTemporaryFile: Int32 = 0o20000000 | O_DIRECTORY

    /// Writes bytes to a path atomically (see `save`).
    public static func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        var file = try AtomicWrite(path)
        do {
            try file.write(bytes)
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
    }

    /// A file written whole or not at all. The data goes to an unnamed file in the target's folder (`O_TMPFILE`),
    /// which nothing can see and which vanishes if the process dies; `commit` syncs it, links it under a
    /// temporary name and renames that over the target, then syncs the folder. Where the folder cannot hold an
    /// unnamed file, a named one (`.NAME.tempera-PID-N.tmp`) takes its place; stale ones of dead processes are
    /// removed by the next save or open of the same document. A symbolic link is written through: its target
    /// is replaced and the link stays.
    ///
    /// Several files can be prepared and then committed together, so a script that fails writes none of them.
    public struct AtomicWrite {
        /// The file that will be replaced (links resolved).
        public let target: String
        let shown: String
        /// What the messages say was being done ("save", "write").
        let verb: String
        let dir: String
        let base: Substring
        /// The open file being written.
        public let descriptor: Int32
        var temp: String?
        var existing: stat?
        /// The descriptor was closed by `commit`.
        var closed = false

        public init(_ path: String, verb: String = "save", readable: Bool = false) throws {
            shown = path
            self.verb = verb
            if path.isEmpty { throw CommandError("cannot \(verb): no file name") }
            if path.hasSuffix("/") { throw CommandError("cannot \(verb) '\(path)': that is a folder, not a file name") }
            target = DocumentFile.resolvingLinks(path)
            dir = folder(of: target)
            let resolved = target
            let name = resolved.lastIndex(of: "/").map { resolved[resolved.index(after: $0)...] } ?? resolved[...]
            base = name
            var info = stat()
            if stat(dir, &info) != 0 {
                let e = errno
                if e == ENOENT { throw CommandError("cannot \(verb) '\(path)': the folder '\(dir)' does not exist") }
                throw CommandError("cannot \(verb) '\(path)': \(systemError(e))")
            }
            if (info.st_mode & S_IFMT) != S_IFDIR {
                throw CommandError("cannot \(verb) '\(path)': '\(dir)' is not a folder")
            }
            var old = stat()
            if stat(target, &old) == 0 {
                if (old.st_mode & S_IFMT) == S_IFDIR { throw CommandError("cannot \(verb) '\(path)': that is a folder") }
                // A device or a pipe is not replaced by a file (renaming over /dev/null would).
                if (old.st_mode & S_IFMT) != S_IFREG {
                    throw CommandError("cannot \(verb) '\(path)': it is not a regular file")
                }
                existing = old
            }
            DocumentFile.removeStaleTemporaries(of: target)
            // libsndfile reads back the header it wrote, so a sound file is opened for reading too.
            let mode = readable ? O_RDWR : O_WRONLY
            var fd: Int32 = -1
            if access("/proc/self/fd", F_OK) == 0 {
                fd = open(dir, DocumentFile.openTemporaryFile | mode | O_CLOEXEC, 0o666)
            }
            if fd < 0 {
                for attempt in 0..<100 {
                    let candidate = "\(dir)/\(DocumentFile.tempPrefix(name))\(getpid())-\(attempt).tmp"
                    fd = open(candidate, mode | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
                    if fd >= 0 { temp = candidate }
                    if fd >= 0 || errno != EEXIST { break }
                }
            }
            if fd < 0 {
                let e = errno
                if e == EACCES || e == EROFS || e == EPERM {
                    throw CommandError("cannot \(verb) '\(path)': the folder '\(dir)' is not writable (\(systemError(e)))")
                }
                throw CommandError("cannot \(verb) '\(path)': \(systemError(e))")
            }
            descriptor = fd
            // Keep the permissions a file already had (a saved file should not become world-readable or lose +w).
            if let existing { _ = fchmod(fd, existing.st_mode & 0o7777) }
        }

        func failure(_ what: String, _ e: Int32) -> CommandError {
            CommandError("cannot \(verb) '\(shown)': \(what): \(systemError(e))")
        }

        /// Appends bytes.
        public func write(_ bytes: [UInt8]) throws {
            try bytes.withUnsafeBufferPointer { try write($0) }
        }

        /// Appends bytes held elsewhere.
        public func write(_ bytes: UnsafeBufferPointer<UInt8>) throws {
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(descriptor, base + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw failure("writing failed", errno)
                }
                offset += n
            }
        }

        /// Puts the data in place of the target, synced to the disk first and the folder after unless `durable`
        /// is false (a render, which its document makes again: docs/decisions/startup.md).
        public mutating func commit(durable: Bool = true) throws {
            if durable && fsync(descriptor) != 0 { throw failure("fsync failed", errno) }
            if temp == nil {
                // Name the unnamed file, then rename it over the target (linkat cannot replace a file).
                for attempt in 0..<100 {
                    let name = "\(dir)/\(DocumentFile.tempPrefix(base))\(getpid())-\(attempt).tmp"
                    if linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0 {
                        temp = name
                        break
                    }
                    if errno != EEXIST { throw failure("linking failed", errno) }
                }
            }
            guard let temp else { throw failure("linking failed", EEXIST) }
            closed = true
            if close(descriptor) != 0 { throw failure("closing failed", errno) }
            if rename(temp, target) != 0 { throw failure("renaming failed", errno) }
            self.temp = nil
            // The rename itself is durable only once the folder is synced.
            let dfd = durable ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1
            if dfd >= 0 {
                _ = fsync(dfd)
                close(dfd)
            }
        }

        /// Abandons the write: the target is untouched and nothing is left behind.
        public func discard() {
            if !closed { close(descriptor) }
            if let temp { unlink(temp) }
        }
    }

    /// Reads a whole file of at most `limit` bytes (else one line saying so, before reading any of it); a
    /// missing or unreadable file is a one-line `CommandError`.
    public static func readFile(_ path: String, limit: Int = Limits.maxFileBytes) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw CommandError("cannot open '\(path)': \(systemError(errno))") }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw CommandError("cannot open '\(path)': it is a folder")
        }
        func tooBig() -> CommandError {
            CommandError("cannot read '\(path)': larger than \(Limits.count(limit)) bytes, the most tempera reads")
        }
        if Int(info.st_size) > limit { throw tooBig() }
        // Read straight into an array of the file's size; a file that grows meanwhile is read on in chunks.
        var failure: Int32 = 0
        let size = Int(max(info.st_size, 0))
        var bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            initialized = 0
            while initialized < size {
                let n = read(fd, buffer.baseAddress! + initialized, size - initialized)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if n == 0 { break }
                initialized += n
            }
        }
        if failure != 0 { throw CommandError("cannot read '\(path)': \(systemError(failure))") }
        if bytes.count < size { return bytes }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw CommandError("cannot read '\(path)': \(systemError(errno))")
            }
            if n == 0 { break }
            if bytes.count + n > limit { throw tooBig() }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }

    /// The first `count` bytes of a file (fewer when it is shorter): enough to tell its kind without reading it.
    public static func readHead(_ path: String, count: Int = 64) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw CommandError("cannot open '\(path)': \(systemError(errno))") }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw CommandError("cannot open '\(path)': it is a folder")
        }
        var head = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, count - got) }
            if n < 0 {
                if errno == EINTR { continue }
                throw CommandError("cannot read '\(path)': \(systemError(errno))")
            }
            if n == 0 { break }
            got += n
        }
        return Array(head[0..<got])
    }
}

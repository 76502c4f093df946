import CSamplerate
import Foundation

/// Samples converted to another rate, kept on disk so a kit is converted once, not at every load: the user's
/// cache folder (`$XDG_CACHE_HOME/tempera/samples`, else `~/.cache/tempera/samples`) holds one file per sample,
/// rate, pitch and converter quality, named by a hash of its key and holding the whole key, so a file that
/// changed (its size or its modification time) or a hash that collides is converted again.
///
/// The cache is an optimisation only: a folder that cannot be made or written, or an entry that is damaged,
/// means the sample is converted as it would be without it.
///
/// Its size is bounded (`limit`, 1 GiB unless `TEMPERA_SAMPLE_CACHE_MB` says otherwise, 0 turning it off): after
/// each entry written, the entries used longest ago are removed until the folder fits. Reading an entry counts as
/// using it (its modification time is set to now), so a kit played every day stays while one tried once goes.
public enum SampleCache {
    /// The bound when the environment sets none: a few kits converted at a couple of rates.
    public static let defaultLimitMB = 1024

    /// The most bytes the folder's entries may hold: `TEMPERA_SAMPLE_CACHE_MB` megabytes (a whole number, 0 for
    /// no cache at all), else `defaultLimitMB`. A value that is not a whole number is ignored.
    public static func limit(environment: [String: String] = SampleCache.environment) -> Int {
        let mb = environment["TEMPERA_SAMPLE_CACHE_MB"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            .flatMap { $0 >= 0 && $0 <= 1 << 30 ? $0 : nil } ?? defaultLimitMB
        return mb << 20
    }

    /// The variables the cache reads, as the process's environment holds them now: read one by one, since
    /// Foundation's whole environment, made afresh for each sample a render loads, took 4% of a short render.
    public static var environment: [String: String] {
        var values: [String: String] = [:]
        for name in ["TEMPERA_SAMPLE_CACHE_MB", "XDG_CACHE_HOME", "HOME"] {
            if let value = getenv(name) { values[name] = String(cString: value) }
        }
        return values
    }

    /// Bumped whenever what a cached sample holds changes (the loader's processing, the format). 2: the samples
    /// start at a multiple of 64 bytes (`dataOffset`), so a mapped entry's floats are aligned.
    static let version: UInt32 = 2
    static let magic: UInt32 = 0x5350_4D54 // "TMPS"

    /// The folder (made when first written), or nil where no home or cache folder is known.
    public static func directory(environment: [String: String] = SampleCache.environment) -> String? {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg + "/tempera/samples" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.cache/tempera/samples" }
        return nil
    }

    /// What identifies a conversion: the file (its path, size and modification time to the nanosecond), the
    /// output rate, the pitching and the converter.
    struct Key {
        var text: String
        var file: String

        init?(path: String, sampleRate: Double, note: Int?, pitch: Double, fadeEnd: Bool = true) {
            var st = stat()
            let environment = SampleCache.environment
            guard SampleCache.limit(environment: environment) > 0, stat(path, &st) == 0,
                  let dir = SampleCache.directory(environment: environment) else { return nil }
            let mtime = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
            text = "\(path)\n\(st.st_size)\n\(mtime)\n\(sampleRate.bitPattern)\n\(note.map(String.init) ?? "-")\n"
                + "\(pitch.bitPattern)\n\(SampleLoader.converterQuality)\n\(SampleCache.version)" + (fadeEnd ? "" : "\nwhole")
            file = dir + "/" + SampleCache.hash(text) + ".f32"
        }
    }

    /// 128 bits of FNV-1a (two 64-bit runs from different offsets), as hex.
    static func hash(_ text: String) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325, b: UInt64 = 0x6c62_272e_07bb_0142
        for byte in text.utf8 {
            a = (a ^ UInt64(byte)) &* 0x100_0000_01b3
            b = (b ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return String(a, radix: 16) + "-" + String(b, radix: 16)
    }

    /// The header: magic, version, the key's length, frames, values replaced (NaN, infinity), then the key, then
    /// zeros up to `dataOffset`, then the samples.
    private struct Header {
        var magic: UInt32
        var version: UInt32
        var keyLength: UInt32
        var reserved: UInt32 = 0
        var frames: UInt64
        var replaced: UInt64
    }

    /// Where an entry's samples start: after the header and the key, at the next multiple of 64 bytes.
    static func dataOffset(keyLength: Int) -> Int { (MemoryLayout<Header>.size + keyLength + 63) & ~63 }

    /// The converted sample for `key`, or nil when none is cached (or the entry is not whole). `mapped` maps the
    /// entry into memory instead of reading it (see `SampleBuffer`'s mapped form: for renders, not for playback).
    static func read(_ key: Key, sampleRate: Double, mapped: Bool = false) -> SampleBuffer? {
        let fd = open(key.file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        let buffer = mapped ? map(fd, key, size: Int(st.st_size), sampleRate: sampleRate)
            : readEntry(fd, key, size: Int(st.st_size), sampleRate: sampleRate)
        // Used now: the last to be removed when the folder is trimmed.
        if buffer != nil { _ = futimens(fd, nil) }
        return buffer
    }

    /// The frames an entry of `size` bytes with this header holds, if the header is this version's, for `key`'s
    /// length, and the size is the header's.
    private static func frames(_ header: Header, key: Key, size: Int) -> Int? {
        guard header.magic == magic, header.version == version, header.frames > 0,
              header.frames < UInt64(Int.max / 16), Int(header.keyLength) == key.text.utf8.count else { return nil }
        let frames = Int(header.frames)
        guard size == dataOffset(keyLength: Int(header.keyLength)) + frames * 2 * MemoryLayout<Float>.size else { return nil }
        return frames
    }

    /// The entry read into memory of its own.
    private static func readEntry(_ fd: Int32, _ key: Key, size: Int, sampleRate: Double) -> SampleBuffer? {
        var header = Header(magic: 0, version: 0, keyLength: 0, frames: 0, replaced: 0)
        guard readFully(fd, &header, MemoryLayout<Header>.size), let frames = frames(header, key: key, size: size) else {
            return nil
        }
        let offset = dataOffset(keyLength: Int(header.keyLength))
        var keyBytes = [UInt8](repeating: 0, count: offset - MemoryLayout<Header>.size)
        guard keyBytes.withUnsafeMutableBytes({ readFully(fd, $0.baseAddress!, $0.count) }),
              keyBytes.prefix(Int(header.keyLength)).elementsEqual(key.text.utf8) else { return nil }
        let data = UnsafeMutablePointer<Float>.allocate(capacity: frames * 2)
        guard readFully(fd, data, frames * 2 * MemoryLayout<Float>.size) else {
            data.deallocate()
            return nil
        }
        let buffer = SampleBuffer(data: data, frames: frames, sampleRate: sampleRate)
        buffer.replacedNonFinite = Int(header.replaced)
        return buffer
    }

    /// The entry mapped read-only, its pages mapped at once (`MAP_POPULATE`): no copy, no zeroed memory, no
    /// page fault for each page as the samples are first read.
    private static func map(_ fd: Int32, _ key: Key, size: Int, sampleRate: Double) -> SampleBuffer? {
        guard size > MemoryLayout<Header>.size else { return nil }
        let base = mmap(nil, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0)
        guard let base, base != MAP_FAILED else { return nil }
        let header = base.loadUnaligned(as: Header.self)
        let keyStart = UnsafeRawBufferPointer(start: base + MemoryLayout<Header>.size, count: Int(header.keyLength))
        guard let frames = frames(header, key: key, size: size), keyStart.elementsEqual(key.text.utf8) else {
            munmap(base, size)
            return nil
        }
        let data = (base + dataOffset(keyLength: Int(header.keyLength))).assumingMemoryBound(to: Float.self)
        let buffer = SampleBuffer(mapping: base, length: size, data: data, frames: frames, sampleRate: sampleRate)
        buffer.replacedNonFinite = Int(header.replaced)
        return buffer
    }

    /// Stores `buffer` for `key`: written beside its name and renamed into place, so a reader never sees half an
    /// entry. Failures are ignored (the sample is converted again next time).
    static func write(_ key: Key, _ buffer: SampleBuffer) {
        let dir = (key.file as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let temporary = key.file + ".\(getpid()).\(UInt32.random(in: 0...UInt32.max)).part"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        let keyBytes = Array(key.text.utf8)
        var header = Header(magic: magic, version: version, keyLength: UInt32(keyBytes.count),
                            frames: UInt64(buffer.frames), replaced: UInt64(buffer.replacedNonFinite))
        let padding = [UInt8](repeating: 0, count: dataOffset(keyLength: keyBytes.count) - MemoryLayout<Header>.size
            - keyBytes.count)
        let ok = writeFully(fd, &header, MemoryLayout<Header>.size)
            && (keyBytes + padding).withUnsafeBytes { writeFully(fd, $0.baseAddress!, $0.count) }
            && writeFully(fd, buffer.data, buffer.frames * 2 * MemoryLayout<Float>.size)
        close(fd)
        if !ok || rename(temporary, key.file) != 0 {
            unlink(temporary)
            return
        }
        trim(dir, limit: limit())
    }

    /// Removes the entries used longest ago (oldest modification time first) until those left hold at most
    /// `limit` bytes. Files that are not entries (another program's, a writer's unfinished `.part`) are left.
    static func trim(_ dir: String, limit: Int) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return }
        var entries: [(path: String, used: Int64, bytes: Int)] = []
        var total = 0
        for name in names where name.hasSuffix(".f32") {
            let path = dir + "/" + name
            var st = stat()
            guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            let used = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
            entries.append((path, used, Int(st.st_size)))
            total += Int(st.st_size)
        }
        guard total > limit else { return }
        entries.sort { $0.used < $1.used }
        for e in entries where total > limit {
            if unlink(e.path) == 0 { total -= e.bytes }
        }
    }

    private static func readFully(_ fd: Int32, _ p: UnsafeMutableRawPointer, _ count: Int) -> Bool {
        var done = 0
        while done < count {
            let n = Glibc.read(fd, p + done, count - done)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    private static func writeFully(_ fd: Int32, _ p: UnsafeRawPointer, _ count: Int) -> Bool {
        var done = 0
        while done < count {
            let n = Glibc.write(fd, p + done, count - done)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }
}

import Foundation
import TemperaCore

/// What markers cost in memory: the bytes one holds once a document is read, and the peak resident memory of the
/// program (the `tempera` beside this one) building a million by script, reading and saving them, listing their
/// events.
enum MarkerBench {
    static func run() {
        print("== Markers")
        let count = 1_000_000
        let bytes = DocumentFile.encodeBytes(document(count))
        let before = resident()
        if let doc = try? DocumentFile.decode(bytes: bytes) {
            let held = resident() - before
            print(String(format: "  a marker read from a file holds %.1f bytes (%@ markers, one in eight with extras; "
                + "the Marker value is %d bytes)", Double(held) / Double(count), Limits.count(count),
                MemoryLayout<Marker>.stride))
            withExtendedLifetime(doc) {}
        }
        let exe = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tempera").path
        guard FileManager.default.isExecutableFile(atPath: exe) else { return print("  build tempera first (\(exe))") }
        let dir = NSTemporaryDirectory() + "tempera-bench-markers-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let doc = dir + "/million.tempera", copy = dir + "/copy.tempera"
        try? "track add\npulse period=0.001 count=1000000\n".write(toFile: dir + "/pulse.txt", atomically: false, encoding: .utf8)
        try? "# nothing\n".write(toFile: dir + "/empty.txt", atomically: false, encoding: .utf8)
        let runs: [(String, [String])] = [
            ("a script pulsing a million markers", ["script", doc, dir + "/pulse.txt"]),
            ("reading and saving them", ["script", doc, dir + "/empty.txt", "-o", copy]),
            ("listing their events", ["events", doc]),
        ]
        for (what, arguments) in runs {
            guard let (seconds, peak) = measured(exe, arguments) else { return print("  \(what): failed") }
            print(String(format: "  %@: %.0f MB peak, %.2f s", what, Double(peak) / 1_048_576, seconds))
        }
    }

    /// A document of `count` markers over four tracks, one in eight with a probability or a ratchet.
    static func document(_ count: Int) -> Document {
        var doc = Document.newDocument()
        let perTrack = count / doc.tracks.count
        var id: MarkerID = 0
        for t in doc.tracks.indices {
            var markers: [Marker] = []
            markers.reserveCapacity(perTrack)
            for i in 0..<perTrack {
                var m = Marker(id: id, time: Double(i) * 0.01 + Double(t) * 0.001, amp: 0.5 + Double(i % 5) * 0.1,
                               content: i % 3 == 0 ? nil : .clip(1 + i % 16))
                if i % 8 == 0 { m.p = 0.5 }
                markers.append(m)
                id += 1
            }
            doc.tracks[t].markers = MarkerList(markers)
        }
        doc.nextMarkerID = id
        return doc
    }

    /// Resident bytes of this process once the C allocator has handed back the memory it holds free
    /// (`malloc_trim`, looked up at run time: Swift's Glibc module leaves out malloc.h).
    static func resident() -> Int {
        if let symbol = dlsym(nil, "malloc_trim") {
            _ = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)(0)
        }
        let fields = ((try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? "").split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * sysconf(Int32(_SC_PAGESIZE)) : 0
    }

    /// Runs `exe` to its end, output thrown away: its wall seconds and peak resident bytes as GNU time counts
    /// them (the kernel's count through `wait4` would start from this process's size, which a spawned child
    /// shares until it runs the program).
    static func measured(_ exe: String, _ arguments: [String]) -> (Double, Int)? {
        let peakFile = NSTemporaryDirectory() + "tempera-bench-peak-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: peakFile) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        p.arguments = ["-q", "-o", peakFile, "-f", "%M", exe] + arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        let t0 = Date()
        guard (try? p.run()) != nil else { return nil }
        p.waitUntilExit()
        let seconds = Date().timeIntervalSince(t0)
        let text = (try? String(contentsOfFile: peakFile, encoding: .utf8)) ?? ""
        guard p.terminationStatus == 0, let kb = text.split(separator: "\n").last.flatMap({ Int($0) }) else { return nil }
        return (seconds, kb * 1024)
    }
}

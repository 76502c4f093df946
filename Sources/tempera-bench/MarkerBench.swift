import Foundation
import TemperaCore

/// What markers cost in memory: the peak resident memory of the program (the `tempera` beside this one) building a
/// million by script, reading and saving them, listing their events; and from those peaks, the bytes a marker holds.
enum MarkerBench {
    static func run() {
        print("== Markers")
        let exe = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tempera").path
        guard FileManager.default.isExecutableFile(atPath: exe) else { return print("  build tempera first (\(exe))") }
        let dir = NSTemporaryDirectory() + "tempera-bench-markers-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let doc = dir + "/million.tempera", copy = dir + "/copy.tempera", clips = dir + "/clips.tempera"
        try? "track add\npulse period=0.001 count=1000000\n".write(toFile: dir + "/pulse.txt", atomically: false, encoding: .utf8)
        try? "# nothing\n".write(toFile: dir + "/empty.txt", atomically: false, encoding: .utf8)
        try? markerLines(1_000_000).write(toFile: dir + "/lines.txt", atomically: false, encoding: .utf8)
        // Four tracks of clips, one marker in eight with a probability: what `events` lists.
        var withClips = document(1_000_000)
        withClips.transport.loopOn = false
        withClips.transport.length = 2600
        try? DocumentFile.save(withClips, to: clips)
        withClips = Document()
        let runs: [(String, [String], Int?)] = [
            ("a script pulsing a million markers", ["script", doc, dir + "/pulse.txt"], 300),
            ("reading and saving them", ["script", doc, dir + "/empty.txt", "-o", copy], 150),
            ("listing the events of a million markers with clips", ["events", clips], nil),
            ("a script of a million marker add lines (a step each)", ["script", dir + "/lines.tempera", dir + "/lines.txt"], 300),
        ]
        var peaks: [Int] = []
        for (what, arguments, bound) in runs {
            guard let (seconds, peak) = measured(exe, arguments) else { return print("  \(what): failed") }
            let within = bound.map { String(format: " (bound %d MB: %@)", $0, peak <= $0 << 20 ? "within" : "PAST IT") } ?? ""
            print(String(format: "  %@: %.0f MB peak, %.2f s%@", what, Double(peak) / 1_048_576, seconds, within))
            peaks.append(peak)
        }
        // What a marker holds once read: the peak of reading and saving the million, less that of a document
        // without markers and less the file's text (held while it is read), over the markers.
        try? "track add\n".write(toFile: dir + "/one.txt", atomically: false, encoding: .utf8)
        let none = dir + "/none.tempera"
        guard measured(exe, ["script", none, dir + "/one.txt"]) != nil,
              let (_, bare) = measured(exe, ["script", none, dir + "/empty.txt", "-o", dir + "/none-copy.tempera"]),
              let text = try? FileManager.default.attributesOfItem(atPath: doc)[.size] as? Int else { return }
        print(String(format: "  a marker read from a file holds about %.0f bytes (the peak of reading and saving a million "
            + "less a document's without markers and the file's %.0f MB of text; the Marker value is %d bytes)",
            Double(peaks[1] - bare - text) / 1_000_000, Double(text) / 1_048_576, MemoryLayout<Marker>.stride))
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

    /// A script that adds an empty track and then `count` markers on it, one `marker add` line each, 1 ms apart.
    static func markerLines(_ count: Int) -> String {
        var text = "track add\n"
        text.reserveCapacity(20 * count)
        for i in 0..<count { text += "marker add \(Double(i) / 1000 + 0.0005)\n" }
        return text
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

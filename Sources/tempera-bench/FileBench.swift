import TemperaCore
#if canImport(Glibc)
import Glibc
#endif

/// Load and save times of documents of 1,000 and 100,000 markers: a document's file cost should grow in
/// proportion to its markers (the ratio near 100), with 100,000 markers well under a visible pause.
enum FileBench {
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Best and median of a few runs, in milliseconds: the best is the least disturbed by other work on the
    /// machine, the median what a user would typically wait.
    struct Timing {
        var best: Double
        var median: Double

        var text: String { "\(FileBench.format(best)) ms (median \(FileBench.format(median)))" }
    }

    static func time(_ runs: Int, _ body: () throws -> Void) rethrows -> Timing {
        var times: [Double] = []
        for _ in 0..<runs {
            let start = now()
            try body()
            times.append((now() - start) * 1000)
        }
        times.sort()
        return Timing(best: times[0], median: times[times.count / 2])
    }

    /// Four tracks of uneven times, amplitudes and every kind of content.
    static func document(markers: Int) -> Document {
        var generator = UInt64(0x2545_F491_4F6C_DD1D)
        func next() -> Double {
            generator = generator &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(generator >> 11) / Double(1 << 53)
        }
        let contents: [Content?] = [.clip(1), .clip(3), nil, .hold, .rest, .random, .clip(12)]
        let perTrack = markers / 4
        let tracks = (0..<4).map { t in
            Track(name: "track \(t + 1)", markers: MarkerList((0..<perTrack).map { i in
                Marker(id: MarkerID(i), time: (Double(i) + next()) * 0.05, amp: next(), content: contents[i % contents.count])
            }))
        }
        return Document(tracks: tracks)
    }

    static func run() {
        let runs = 7
        print("== Files (document load and save, best and median of \(runs))")
        let folder = "/tmp/tempera-bench-\(getpid())"
        mkdir(folder, 0o755)
        defer { rmdir(folder) }
        var results: [(markers: Int, save: Timing, load: Timing)] = []
        for count in [1_000, 100_000] {
            let doc = document(markers: count)
            let path = "\(folder)/bench-\(count).tempera"
            do {
                let save = try time(runs) { try DocumentFile.save(doc, to: path) }
                var loaded: Document?
                let load = try time(runs) { loaded = try DocumentFile.load(path) }
                guard loaded?.tracks.map(\.markers.count) == doc.tracks.map(\.markers.count) else {
                    print("  \(count) markers: the loaded document differs")
                    return
                }
                let bytes = (try? DocumentFile.readFile(path)) ?? []
                var text = ""
                // What `save` (and so autosave) formats on the caller's thread, before writing and fsync.
                let encode = time(runs) { _ = DocumentFile.encodeBytes(doc) }
                let encodeText = time(runs) { text = DocumentFile.encode(doc) }
                let decode = try time(runs) { _ = try DocumentFile.decode(bytes: bytes) }
                results.append((count, save, load))
                print("  \(count) markers (\(bytes.count / 1024) KiB):")
                print("    save \(save.text): encoding \(encode.text), the rest write and fsync; "
                    + "as a String \(encodeText.text)")
                print("    load \(load.text): decoding \(decode.text)")
                _ = text
            } catch {
                print("  \(count) markers: \(error)")
            }
            unlink(path)
        }
        if results.count == 2 {
            print("  ratio 100,000 / 1,000 (best): save x\(format(results[1].save.best / results[0].save.best)), "
                + "load x\(format(results[1].load.best / results[0].load.best))")
        }
    }

    static func format(_ v: Double) -> String {
        let rounded = (v * 100).rounded() / 100
        return String(rounded)
    }
}

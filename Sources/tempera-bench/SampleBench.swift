import Foundation
import TemperaAudio
import TemperaCore
import TemperaKits

/// Loading samples at another rate (a Hydrogen kit's 44.1 kHz files played at 48 kHz): with the converted samples
/// cached on disk and without.
enum SampleBench {
    static let songs = "/usr/share/hydrogen/data/demo_songs"

    static func run() {
        print("== Samples")
        let song = songs + "/GM_kit_demo1.h2song"
        guard FileManager.default.fileExists(atPath: song), let imported = try? HydrogenSong.document(path: song) else {
            return print("  needs Hydrogen's demo songs (Debian's hydrogen-data)")
        }
        let doc = imported.0
        let cache = NSTemporaryDirectory() + "tempera-bench-cache-\(getpid())"
        let previous = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"]
        setenv("XDG_CACHE_HOME", cache, 1)
        defer {
            if let previous { setenv("XDG_CACHE_HOME", previous, 1) } else { unsetenv("XDG_CACHE_HOME") }
            try? FileManager.default.removeItem(atPath: cache)
        }
        let layers = doc.slots.reduce(0) { $0 + max($1.layers.count, $1.file == nil ? 0 : 1) }
        for rate in [48_000.0, 44_100.0] {
            var cold: [Double] = [], warm: [Double] = []
            for _ in 0..<3 {
                try? FileManager.default.removeItem(atPath: cache)
                cold.append(loadTime(doc, rate: rate))
                warm.append(loadTime(doc, rate: rate))
            }
            print(String(format: "  GM_kit_demo1 (%d slots, %d layers in its kit) at %.1f kHz: samples loaded for a render "
                + "in %.0f ms with an empty cache, %.0f ms with a warm one (median of 3)", doc.slots.filter { !$0.isEmpty }.count,
                layers, rate / 1000, median(cold) * 1000, median(warm) * 1000))
        }
    }

    /// Seconds to load what a render of `doc` plays at `rate`.
    static func loadTime(_ doc: Document, rate: Double) -> Double {
        let t0 = Date()
        let r = OfflineRenderer(document: doc, baseDirectory: nil, sampleRate: rate, loops: 1, maxTail: 0)
        let seconds = Date().timeIntervalSince(t0)
        if !r.warnings.isEmpty { print("  (\(r.warnings[0]))") }
        return seconds
    }

    static func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
}

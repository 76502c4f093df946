import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// Ableton Link, heard: two `tempera play --link` instances and a third peer that changes the tempo, all inside
/// a network namespace with nothing but loopback (Link announces itself by multicast on every interface it
/// sees, so it never runs on the machine's network here), playing to one private PulseAudio server whose socket
/// is a file both reach. One instance's clicks are panned hard left, the other's hard right; the recording
/// gives each instance's onsets, to the frame.
final class LinkTests: XCTestCase {
    static let rate = 48_000.0

    /// Onsets of one channel: frames where it sounds after at least `gap` frames of (near) silence.
    static func onsets(_ stereo: [Float], channel: Int, gap: Int = 2_400) -> [Int] {
        var starts: [Int] = []
        var silent = gap
        for i in 0..<(stereo.count / 2) {
            if abs(stereo[2 * i + channel]) > 1e-6 {
                if silent >= gap { starts.append(i) }
                silent = 0
            } else {
                silent += 1
            }
        }
        return starts
    }

    /// The first onset from which every interval up to `until` (seconds) lasts `interval` seconds (±2 ms):
    /// where the channel plays the new tempo.
    static func settled(_ onsets: [Int], interval: Double, until: Double) -> Double? {
        let t = onsets.map { Double($0) / rate }.filter { $0 < until }
        guard t.count >= 3 else { return nil }
        var first: Double?
        for k in 0..<(t.count - 1) {
            if abs(t[k + 1] - t[k] - interval) <= 0.002 {
                if first == nil { first = t[k] }
            } else {
                first = nil
            }
        }
        return first
    }

    /// Refuses (exit 97) to start anything unless the namespace's only network interface is loopback.
    static let loopbackOnly = """
        ip link set lo up || exit 96
        interfaces=$(awk -F: 'NR > 2 { gsub(/ /, "", $1); print $1 }' /proc/self/net/dev | tr '\\n' ' ')
        [ "$interfaces" = "lo " ] || { echo "not a loopback-only namespace: $interfaces" >&2; exit 97; }
        """

    func testTwoInstancesFollowTheSessionTempoWithinASecondAndItsBeatWithinAMillisecond() throws {
        guard FileManager.default.isExecutableFile(atPath: TestPaths.binary) else {
            throw XCTSkip("build tempera first (swift build)")
        }
        // Link runs only in a namespace of its own; where none can be made, it does not run at all.
        let probe = Spawn.run("/usr/bin/unshare", ["--net", "sh", "-c", Self.loopbackOnly])
        guard probe.status == 0 else { throw XCTSkip("no loopback-only network namespace here: \(probe.stderr)") }

        let dir = TestPaths.temporaryDirectory("link")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try PulseTestServer()
        defer { server.stop() }

        // Beat 0.5 s, 4 beats a bar, a click on each beat of a one-bar loop: 120 BPM until a peer says otherwise.
        try AudioFile.write([Float](repeating: 0.5, count: 480), sampleRate: 48_000, to: dir + "/click.wav",
                            as: .wavFloat)
        for (name, pan) in [("left", -1.0), ("right", 1.0)] {
            var doc = Fixture.document(tracks: [[(0, .clip(1)), (0.5, .clip(1)), (1, .clip(1)), (1.5, .clip(1))]],
                                       slots: [ClipSlot(file: "click.wav")], span: 2)
            doc.slots[0].pan = pan
            try DocumentFile.save(doc, to: "\(dir)/\(name).tempera")
        }
        let script = """
            set -u
            \(Self.loopbackOnly)
            cd '\(dir)'
            export PULSE_SERVER='\(server.address)'
            T='\(TestPaths.binary)'
            "$T" play left.tempera --link --forever 2> left.err &
            L=$!
            sleep 0.4
            "$T" play right.tempera --link --forever 2> right.err &
            R=$!
            for _ in $(seq 200); do
                grep -q '1 peer' left.err && grep -q '1 peer' right.err && break
                sleep 0.05
            done
            sleep 1
            parecord --device=out.monitor --format=float32le --rate=48000 --channels=2 --file-format=wav rec.wav &
            P=$!
            date +%s.%N > start
            sleep 4
            "$T" link --bpm 140 | while read -r line; do echo "$(date +%s.%N) $line" >> changes; done
            sleep 3
            "$T" link --bpm 90 | while read -r line; do echo "$(date +%s.%N) $line" >> changes; done
            sleep 4
            kill -INT $P; wait $P
            kill -INT $L $R; wait $L $R
            """
        try script.write(toFile: dir + "/run.sh", atomically: true, encoding: .utf8)
        let run = Spawn.run("/usr/bin/unshare", ["--net", "sh", dir + "/run.sh"])
        XCTAssertNotEqual(run.status, 97, "Link must run only in a loopback-only namespace: \(run.stderr)")
        let logs = ["left.err", "right.err"].map { (try? String(contentsOfFile: "\(dir)/\($0)", encoding: .utf8)) ?? "" }
        XCTAssertTrue(logs.allSatisfy { $0.contains("1 peer") }, "the instances did not find each other: \(logs)")

        // When each tempo was set, in seconds of the recording (it started with `start`).
        let start = Double((try String(contentsOfFile: dir + "/start", encoding: .utf8))
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let changes = (try String(contentsOfFile: dir + "/changes", encoding: .utf8)).split(separator: "\n")
        XCTAssertEqual(changes.count, 4, "tempera link prints a line before and after each change: \(changes)")
        // The first line of each `tempera link` comes just before it sets the tempo.
        let setAt = [0, 2].map { (Double(changes[$0].split(separator: " ")[0]) ?? 0) - start }
        XCTAssertTrue(changes[1].hasSuffix("\"bpm\":140.000}") && changes[3].hasSuffix("\"bpm\":90.000}"), "\(changes)")

        let rec = try AudioFile.read(dir + "/rec.wav")
        let left = Self.onsets(rec.samples, channel: 0), right = Self.onsets(rec.samples, channel: 1)
        let seconds = Double(rec.samples.count / 2) / Self.rate
        XCTAssertGreaterThan(seconds, 10)
        XCTAssertGreaterThan(left.count, 20)

        // Tempo: after each change, both play the new beat within a second of it.
        var report: [String] = []
        for (k, (bpm, until)) in [(140.0, setAt[1]), (90.0, seconds)].enumerated() {
            let interval = 60 / bpm
            var settledAt: [Double] = []
            for (name, o) in [("left", left), ("right", right)] {
                guard let at = Self.settled(o, interval: interval, until: until) else {
                    XCTFail("\(name) never settled at \(bpm) BPM")
                    continue
                }
                settledAt.append(at)
                let delay = at - setAt[k]
                report.append("\(name) at \(Int(bpm)) BPM \(String(format: "%.3f", delay)) s after the change")
                XCTAssertLessThan(delay, 1.0, "\(name) took \(delay) s to follow \(bpm) BPM")
            }
            if settledAt.count == 2 {
                XCTAssertLessThan(abs(settledAt[0] - settledAt[1]), 1.0, "the two took the new tempo apart")
                report.append("apart by \(String(format: "%.3f", abs(settledAt[0] - settledAt[1]))) s")
            }
        }

        // Phase: every onset of one has the other's within a millisecond.
        var worst = 0.0
        var pairs = 0
        var k = 0
        for r in right {
            while k + 1 < left.count && abs(left[k + 1] - r) <= abs(left[k] - r) { k += 1 }
            let d = Double(r - left[k]) / Self.rate
            if abs(d) > abs(worst) { worst = d }
            pairs += 1
        }
        XCTAssertEqual(left.count, right.count, "the same beats on both sides")
        XCTAssertGreaterThan(pairs, 20)
        report.append("phase worst \(String(format: "%.3f", worst * 1000)) ms over \(pairs) onsets")
        print("Link: " + report.joined(separator: "; "))
        XCTAssertLessThan(abs(worst), 0.001, report.joined(separator: "; "))
    }
}

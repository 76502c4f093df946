import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// Onsets and `--split` against ground truth: `scripts/onset-ground-truth` mixes real one-shots of Hydrogen's
/// installed kits at known, humanized times (a dense swung 16th-note groove, a sparse kick and snare with ghost
/// notes, a fast bongo roll), each dry and through sox's reverb. Prints the precision/recall/error table.
final class OnsetGroundTruthTests: XCTestCase {
    /// One file of the set: its path and its hits (seconds, instrument), in time order.
    struct Truth {
        var name: String
        var path: String
        var hits: [(time: Double, instrument: String)]
        /// The distinct times struck (what sounds together is one onset).
        var onsets: [Double] {
            var out: [Double] = []
            for h in hits where out.last.map({ h.time - $0 > 0.001 }) ?? true { out.append(h.time) }
            return out
        }
    }

    var directory = ""
    override func setUp() { directory = TestPaths.temporaryDirectory("onset-truth") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// The set, generated for the test.
    func truths() throws -> [Truth] {
        guard FileManager.default.fileExists(atPath: "/usr/share/hydrogen/data/drumkits/GMRockKit/Kick-Hard.wav"),
              FileManager.default.fileExists(atPath: "/usr/share/hydrogen/data/drumkits/Gimme A Hand 1.0/BongoHi-Hard.wav") else {
            XCTFail("Hydrogen's kits are missing: install hydrogen-data and hydrogen-drumkits (make test does)")
            throw XCTSkip("no kits")
        }
        let script = TestPaths.packageRoot + "/scripts/onset-ground-truth"
        let r = Spawn.run("/usr/bin/python3", [script, directory])
        XCTAssertEqual(r.status, 0, r.stderr)
        var out: [Truth] = []
        for name in ["dense", "sparse", "roll"] {
            let text = try String(contentsOfFile: directory + "/\(name).txt", encoding: .utf8)
            let hits = text.split(separator: "\n").map { line -> (Double, String) in
                let f = line.split(separator: " ")
                return (Double(f[0])!, String(f[1]))
            }
            out.append(Truth(name: name, path: directory + "/\(name).wav", hits: hits))
            out.append(Truth(name: name + "-reverb", path: directory + "/\(name)-reverb.wav", hits: hits))
        }
        return out
    }

    /// Found onsets matched one to one with true ones within `tolerance`, nearest pairs first.
    static func match(_ found: [Double], _ truth: [Double], tolerance: Double = 0.005) -> [(found: Int, truth: Int)] {
        var pairs: [(Double, Int, Int)] = []
        for (i, f) in found.enumerated() {
            for (j, t) in truth.enumerated() where abs(f - t) <= tolerance { pairs.append((abs(f - t), i, j)) }
        }
        pairs.sort { $0.0 < $1.0 }
        var usedF = Set<Int>(), usedT = Set<Int>(), out: [(Int, Int)] = []
        for (_, i, j) in pairs where !usedF.contains(i) && !usedT.contains(j) {
            usedF.insert(i); usedT.insert(j); out.append((i, j))
        }
        return out
    }

    static func ms(_ x: Double) -> String { String(format: "%6.2f", x * 1000) }

    func testOnsetsOfTheGroundTruthWithinFiveMilliseconds() throws {
        var table = ["file            hits found precision recall  median  mean   worst (ms, matched within 5 ms)"]
        var failures: [String] = []
        for truth in try truths() {
            let sound = try AudioImport.read(truth.path)
            var settings = AudioImport.Settings()
            if let t = ProcessInfo.processInfo.environment["TEMPERA_ONSET_THRESHOLD"].flatMap(Double.init) { settings.threshold = t }
            let found = try AudioImport.onsets(of: sound, settings: settings).map(\.time)
            let onsets = truth.onsets
            let pairs = Self.match(found, onsets)
            let errors = pairs.map { found[$0.found] - onsets[$0.truth] }
            let sorted = errors.map(abs).sorted()
            let precision = Double(pairs.count) / Double(max(found.count, 1))
            let recall = Double(pairs.count) / Double(onsets.count)
            let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
            let mean = errors.isEmpty ? 0 : errors.reduce(0, +) / Double(errors.count)
            table.append(truth.name.padding(toLength: 15, withPad: " ", startingAt: 0)
                + String(format: " %4d %5d   %.3f    %.3f  ", onsets.count, found.count, precision, recall)
                + "\(Self.ms(median)) \(Self.ms(mean)) \(Self.ms(sorted.last ?? 0))")
            if precision < 0.95 || recall < 0.95 { failures.append(truth.name) }
            // Nothing before the first hit: the noise floor that leads the file is not an onset.
            XCTAssertGreaterThan(found.first ?? 1, onsets[0] - 0.005, "\(truth.name): an onset before the first hit")
        }
        print(table.joined(separator: "\n"))
        XCTAssertEqual(failures, [], "precision or recall below 0.95")
    }

    /// `--split`: each hit on its instrument's track (kick low, snare middle, hat high; a bongo roll's two drums
    /// on two tracks), a hit struck with another on both of theirs: at least 0.95 of each file's hits, dry or in
    /// the room, with markers on a track no instrument struck at most a tenth of them.
    func testSplitPutsEachHitOnItsInstrumentsTrack() throws {
        var table = ["file            hits  right  wrong-track extra"]
        var failures: [String] = []
        for truth in try truths() {
            let r = try AudioImport.streamOnsets(path: truth.path, split: true)
            let found = r.onsets
            // Which track each instrument should be on: fixed for the kit, and for the roll whichever track holds
            // most of the high bongo (the low one must then be on another).
            var expected: [String: AudioImport.Band] = ["kick": .low, "snare": .middle, "hat": .high]
            func nearest(_ t: Double) -> AudioImport.Onset? {
                found.min { abs($0.time - t) < abs($1.time - t) }.flatMap { abs($0.time - t) <= 0.005 ? $0 : nil }
            }
            if truth.name.hasPrefix("roll") {
                var count: [AudioImport.Band: Int] = [:]
                for h in truth.hits where h.instrument == "bongo-high" { for b in nearest(h.time)?.bands ?? [] { count[b, default: 0] += 1 } }
                let high = count.max { $0.value < $1.value }?.key ?? .high
                expected["bongo-high"] = high
                var low: [AudioImport.Band: Int] = [:]
                for h in truth.hits where h.instrument == "bongo-low" {
                    for b in nearest(h.time)?.bands ?? [] where b != high { low[b, default: 0] += 1 }
                }
                expected["bongo-low"] = low.max { $0.value < $1.value }?.key ?? (high == .low ? .middle : .low)
            }
            var right = 0, extra = 0
            var missed: [String] = []
            for h in truth.hits {
                if nearest(h.time)?.bands.contains(expected[h.instrument]!) == true { right += 1 } else {
                    missed.append(String(format: "%.3f %@", h.time, h.instrument))
                }
            }
            if !missed.isEmpty { print("\(truth.name): off their tracks \(missed)") }
            // Markers on a track no instrument struck at that time.
            for o in found {
                let struck = Set(truth.hits.filter { abs($0.time - o.time) <= 0.005 }.map { expected[$0.instrument]! })
                extra += o.bands.filter { !struck.contains($0) }.count
            }
            let share = Double(right) / Double(truth.hits.count)
            table.append(truth.name.padding(toLength: 15, withPad: " ", startingAt: 0)
                + String(format: " %4d  %.3f  %4d", truth.hits.count, share, extra))
            if share < 0.95 || Double(extra) > 0.1 * Double(truth.hits.count) {
                failures.append(truth.name)
            }
        }
        print(table.joined(separator: "\n"))
        XCTAssertEqual(failures, [], "hits off their instrument's track")
    }
}

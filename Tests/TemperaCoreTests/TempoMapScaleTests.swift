import Foundation
import XCTest
@testable import TemperaCore

/// A tempo map of tens of thousands of points, built one command (one undo step) at a time: each change copies
/// one run of points, so the steps share the rest, and each lookup is a binary search.
final class TempoMapScaleTests: XCTestCase {
    /// Resident memory of this process, bytes (Linux).
    static func residentBytes() -> Int {
        let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    func testThirtyThousandTempoPointsOneStepEachCostTimeAndMemoryInProportion() throws {
        let s = Session(document: .newDocument())
        let n = Int(ProcessInfo.processInfo.environment["TEMPERA_TEMPO_POINTS"] ?? "") ?? 30_000
        let rss0 = Self.residentBytes()
        let started = Date()
        for k in 0..<n {
            // Out of order (every 7th second first), as points placed by hand come.
            let time = Double((k * 7919) % n) / 100
            try s.run(.tempoPoint(time: time, value: 1 + Double(k % 7) / 10, bpm: false, shape: k % 2 == 0 ? .linear : .exp))
        }
        let seconds = Date().timeIntervalSince(started)
        let rss = Self.residentBytes() - rss0
        print("\(n) tempo points, one step each: \(String(format: "%.2f", seconds)) s, history \(s.history.bytes >> 20) MB "
            + "(\(s.history.bytes / n) bytes a step), resident +\(rss >> 20) MB")
        XCTAssertEqual(s.document.transport.tempoMap.count, n)
        XCTAssertEqual(s.history.undoSteps.count, n, "no step was dropped")
        // Quadratic storage held every step's whole map: 30,000 steps × 2 × 15,000 points × 24 bytes, 21 GB.
        XCTAssertLessThan(s.history.bytes / n, 16 << 10)
        XCTAssertLessThan(rss, 1 << 30)
        // Quadratic, they took minutes (35 s in a release build); a loaded machine may take a few times 10 s here.
        XCTAssertLessThan(seconds, 90)
        // Undo all of it, and the map is empty again.
        try s.run(.undo(n))
        XCTAssertTrue(s.document.transport.tempoMap.isEmpty)
    }

    func testTheMapAgreesWithAPlainSortedListThroughAnyChangesAndLooksUpAsItsPiecesDo() throws {
        var random = SeededRandom(seed: 28)
        var map = TempoMap()
        var model: [Double: TempoMap.Point] = [:]
        for step in 0..<4_000 {
            let time = Double(random.next() % 2_000) / 8
            if random.next() % 4 == 0 {
                XCTAssertEqual(map.remove(at: time), model.removeValue(forKey: time) != nil)
            } else {
                let shape = TempoMap.Shape.allCases[Int(random.next() % 3)]
                let p = TempoMap.Point(time: time, tempo: 0.5 + Double(random.next() % 100) / 50, shape: shape)
                map.set(p)
                model[time] = p
            }
            XCTAssertEqual(map.count, model.count)
            XCTAssertNoThrow(try map.checkInvariants())
            if step % 500 == 0 || step == 3_999 {
                let sorted = model.values.sorted { $0.time < $1.time }
                XCTAssertEqual(map.points, sorted)
                // Built at once from the same points (other runs): equal, and equal hashes.
                let rebuilt = TempoMap(sorted.shuffled())
                try rebuilt.checkInvariants()
                XCTAssertEqual(rebuilt, map)
                XCTAssertEqual(rebuilt.hashValue, map.hashValue)
                let pieces = map.pieces(base: 1.25)
                for k in 0..<300 {
                    let u = Double(k) * 0.9 - 1
                    let expected = pieces.withUnsafeBufferPointer { TempoCurve.tempo(at: u, ps: $0.baseAddress!, count: $0.count) }
                    XCTAssertEqual(map.tempo(at: u, base: 1.25), expected, "at \(u)")
                }
                for p in sorted.prefix(50) { XCTAssertEqual(map.point(at: p.time), p) }
            }
        }
        var other = map
        other.set(TempoMap.Point(time: 1_000, tempo: 1))
        XCTAssertNotEqual(other, map)
    }
}

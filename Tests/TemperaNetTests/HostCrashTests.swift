import Foundation
import TemperaCore
@testable import TemperaNet
import TemperaTestSupport
import XCTest

/// `tempera serve` killed with SIGKILL at random moments while two participants add markers: every change a
/// participant was told is done is in the restarted host's document and in both participants' copies, once.
/// 20 rounds here; `TEMPERA_CRASH_ROUNDS=100` for the long run by hand.
final class HostCrashTests: XCTestCase {
    func testKillNineAtRandomMomentsLosesNoAcknowledgedChange() throws {
        let rounds = Int(ProcessInfo.processInfo.environment["TEMPERA_CRASH_ROUNDS"] ?? "") ?? 20
        let dir = TestPaths.temporaryDirectory("crash")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/shared.tempera"
        try DocumentFile.save(Document(tracks: [Track(name: "one")]), to: file)
        let port = freeTCPPort()
        var server = try ServeProcess([file], in: dir, port: port)
        let a = Participant(host: "127.0.0.1", port: port, name: "ana")
        let b = Participant(host: "127.0.0.1", port: port, name: "bo")
        let notices = NoticeList()
        for p in [a, b] {
            p.onEvent = { if case .notice(let n) = $0 { notices.add(n) } }
            join(p)
        }
        var random = SeededRandom(seed: 2026)
        // The time each request adds a marker at, by participant and id.
        var times: [ObjectIdentifier: [Int: Double]] = [:]
        var next = [0, 0]
        var recoveries = 0
        for round in 0..<rounds {
            for (k, p) in [a, b].enumerated() {
                for _ in 0..<30 {
                    next[k] += 1
                    let t = Double(k) + Double(next[k]) / 10_000
                    times[ObjectIdentifier(p), default: [:]][p.send("marker add \(t)")] = t
                }
            }
            usleep(UInt32(random.next() % 150_000))
            server.crash()
            server = try ServeProcess([file], in: dir, port: port)
            if server.logText.contains("recovered") { recoveries += 1 }
            for p in [a, b] {
                _ = waitUntil(2) { !p.sync { $0.connected } }
                join(p)
            }
            XCTAssertTrue(waitUntil(30) { a.sync { $0.unanswered.isEmpty } && b.sync { $0.unanswered.isEmpty } },
                          "round \(round): not every request answered")
        }
        // Both copies hold the host's latest change.
        let target = max(a.sync { $0.lastReplySeq }, b.sync { $0.lastReplySeq })
        XCTAssertTrue(waitUntil(10) { a.sync { $0.seq } >= target && b.sync { $0.seq } >= target })
        var acknowledged: [Double] = []
        for p in [a, b] {
            let answers = p.sync { $0.answers }
            for (id, t) in times[ObjectIdentifier(p)] ?? [:] where answers[id] != nil && answers[id]!.error == nil {
                acknowledged.append(t)
            }
        }
        XCTAssertEqual(server.stop(), 0)
        let saved = try DocumentFile.load(file).tracks[0].markers.map(\.time)
        let counts = Dictionary(saved.map { ($0, 1) }, uniquingKeysWith: +)
        let lost = acknowledged.filter { counts[$0] == nil }
        let doubled = acknowledged.filter { (counts[$0] ?? 0) > 1 }
        let copies = [a, b].map { p in Set(p.sync { $0.document }.tracks[0].markers.map(\.time)) }
        let missingFromCopies = acknowledged.filter { t in copies.contains { !$0.contains(t) } }
        print("host crash: \(rounds) rounds, \(recoveries) recoveries from the journal, \(acknowledged.count) acknowledged, "
            + "\(lost.count) lost, \(doubled.count) doubled, \(missingFromCopies.count) missing from a copy")
        XCTAssertEqual(acknowledged.count, 2 * 30 * rounds, "every request was answered as done")
        XCTAssertEqual(lost, [])
        XCTAssertEqual(doubled, [])
        XCTAssertEqual(missingFromCopies, [])
        XCTAssertGreaterThan(recoveries, 0, "some rounds recovered changes from the journal")
        XCTAssertTrue(notices.items.contains { $0.hasPrefix("the host restarted after a crash and recovered") }, "\(notices.items)")
        for p in [a, b] { p.cut() }
    }
}

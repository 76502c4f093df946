import Foundation
@testable import TemperaCore
@testable import TemperaNet
import TemperaTestSupport
import XCTest

/// A participant shifting many markers again and again: the host keeps its undo history (and each participant's
/// own undo) within the history's bound, dropping the oldest steps and saying so once, so its memory levels off
/// instead of growing by every shift. 30 s of shifts of 20,000 markers under an 8 MB bound here (a debug host
/// shifts 100,000 markers in seconds); `TEMPERA_SHIFT_SECONDS=60 TEMPERA_SHIFT_MARKERS=100000
/// TEMPERA_SHIFT_HISTORY_MB=256` (the default bound) with `TEMPERA_BINARY` a release build by hand.
final class HostHistoryTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = TestPaths.temporaryDirectory("host-history") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func testShiftsOfManyMarkersLeaveTheHostsMemoryLevel() throws {
        let env = ProcessInfo.processInfo.environment
        let seconds = Double(env["TEMPERA_SHIFT_SECONDS"] ?? "") ?? 30
        let markers = Int(env["TEMPERA_SHIFT_MARKERS"] ?? "") ?? 20_000
        let mb = Int(env["TEMPERA_SHIFT_HISTORY_MB"] ?? "") ?? 8
        let server = try ServeProcess([dir + "/a.tempera"], in: dir, environment: ["TEMPERA_MAX_HISTORY_MB": "\(mb)"])
        defer { _ = server.stop() }
        let p = Participant(host: "127.0.0.1", port: server.port, name: "shifter")
        try p.connect()
        XCTAssertTrue(waitUntil(10) { p.sync { $0.connected } })
        func run(_ line: String) -> (message: String?, error: String?) {
            let id = p.send(line)
            XCTAssertTrue(waitUntil(120) { p.sync { $0.answers[id] != nil } }, line)
            return p.sync { $0.answers[id] } ?? (nil, "no answer")
        }
        // The new document's first track holds 16 markers: the pulse makes `markers`, all selected.
        XCTAssertNil(run("pulse period=1/100000 count=\(markers - 16) start=3").error)
        XCTAssertNil(run("select all").error)
        let start = server.memory.now
        var shifts = 0, shiftsWhenFull = 0
        var whenFull = 0
        // Both bounds full: the history's, and the recent answers' changes the host keeps for a participant that
        // reconnects (a shift changes each marker twice: removed and put), then the allocator settled (measured:
        // level from about three times the shifts the kept answers hold).
        let level = 3 * (SharedDocument.recentMarkers / (2 * markers))
        var atLevel = 0
        var notices: [String] = []
        let t0 = monotonicSeconds()
        while monotonicSeconds() - t0 < seconds || shifts < 2 * max(level, shiftsWhenFull) {
            let answer = run(shifts % 2 == 0 ? "shift 1/1000" : "shift -1/1000")
            XCTAssertNil(answer.error)
            shifts += 1
            if env["TEMPERA_SHIFT_TRACE"] != nil { print("shift \(shifts): \(server.memory.now >> 20) MB") }
            if shifts == max(level, shiftsWhenFull) && shiftsWhenFull > 0 { atLevel = server.memory.now }
            if let m = answer.message {
                notices.append(m)
                if notices.count == 1 {
                    shiftsWhenFull = shifts
                    whenFull = server.memory.now
                }
            }
        }
        usleep(500_000)
        let memory = server.memory
        print("host: \(shifts) shifts of \(Limits.count(markers)) markers in \(Int(monotonicSeconds() - t0)) s, history bound "
            + "\(mb) MB: memory \(start >> 20) MB after the pulse, \(whenFull >> 20) MB when the history was full (shift "
            + "\(shiftsWhenFull)), \(atLevel >> 20) MB with the kept answers full too, \(memory.now >> 20) MB at the end (peak \(memory.peak >> 20) MB); told: "
            + (notices.first ?? "nothing"))
        XCTAssertEqual(notices.count, 1, "told once: \(notices)")
        XCTAssertTrue(notices.first?.hasPrefix("undo keeps the latest \(mb) MiB of steps") == true)
        // Once both are full, as many shifts again add no more than the allocator's slack (each used to add its
        // step: about 3 MB a shift of 20,000 markers).
        XCTAssertGreaterThan(atLevel, 0)
        XCTAssertLessThan(memory.now - atLevel, 40 << 20, "\((memory.now - atLevel) >> 20) MB more after shift \(max(level, shiftsWhenFull))")
        XCTAssertTrue(server.isRunning)
        p.cut()
    }

    func testTheHostsHistoryAndEachParticipantsUndoKeepTheBound() throws {
        let session = Session(document: .newDocument())
        // A shift of 5,000 markers is about 800 KB of records: the bound holds two or three.
        session.history = History(maxBytes: 2 << 20)
        let shared = SharedDocument(session: session)
        _ = shared.join(key: "a", name: "ana")
        XCTAssertNil(shared.run("pulse period=1/100000 count=4984 start=3", by: "a").error)
        XCTAssertNil(shared.run("select all", by: "a").error)
        var told: [String] = []
        for k in 0..<16 {
            let outcome = shared.run(k % 2 == 0 ? "shift 1/1000" : "shift -1/1000", by: "a")
            XCTAssertNil(outcome.error)
            if let m = outcome.message { told.append(m) }
        }
        XCTAssertEqual(told.count, 1, "\(told)")
        XCTAssertLessThanOrEqual(session.history.bytes, 2 << 20)
        let undo = try XCTUnwrap(shared.participants["a"]).undo
        XCTAssertFalse(undo.isEmpty)
        XCTAssertLessThanOrEqual(undo.reduce(0) { $0 + $1.bytes }, 2 << 20)
        XCTAssertLessThan(undo.count, 16)
        // What is kept still undoes.
        XCTAssertEqual(shared.run("undo", by: "a").message, "undid shift")
    }
}

/// The outcomes a host keeps for participants coming back hold their changes only while those are few.
final class RecentOutcomeTests: XCTestCase {
    func testOnlyTheLatestChangesAreKeptWithARequestsAnswer() {
        let shared = SharedDocument(session: Session(document: .newDocument()))
        _ = shared.join(key: "a", name: "ana")
        // Four pulses of 100,000 markers, then one of 10,000: the first one's changes are let go, its answer kept.
        for k in 0..<5 {
            let outcome = shared.run("pulse period=1/100000 count=\(k == 4 ? 10_000 : 100_000) start=\(k * 2 + 3)", by: "a", id: k + 1)
            XCTAssertNil(outcome.error)
        }
        let kept = shared.outcomes(of: "a", after: 0)
        XCTAssertEqual(kept.map(\.id), [1, 2, 3, 4, 5])
        XCTAssertEqual(kept.map { $0.outcome.deltas.count }, [0, 1, 1, 1, 1])
        // A repeated request still gets its answer (and, while kept, its changes).
        XCTAssertEqual(shared.run("pulse period=1 count=1 start=0", by: "a", id: 5).deltas.first?.seq, 5)
        XCTAssertEqual(shared.run("pulse period=1 count=1 start=0", by: "a", id: 1).deltas.count, 0)
        XCTAssertEqual(shared.seq, 5)
    }
}

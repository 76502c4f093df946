import Foundation
import TemperaCore
@testable import TemperaNet
import TemperaTestSupport
import XCTest

/// A host that cannot write its journal does not answer the change as done: the sender is refused in one line,
/// the other participants never hear of it, the host says so in its log, and the journal is left whole (a crash
/// then loses nothing that was answered). The failure is real: the kernel's file-size limit (RLIMIT_FSIZE, as
/// `ulimit -f` sets it) put on the running host, so its next journal write goes in part and then fails.
final class JournalFailureTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = TestPaths.temporaryDirectory("journal-fail") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Sends and waits for the answer: (message, error).
    func run(_ p: Participant, _ command: String) -> (message: String?, error: String?)? {
        let id = p.send(command)
        _ = waitUntil(30) { p.sync { $0.answers[id] != nil } }
        return p.sync { $0.answers[id] }
    }

    func journal() -> String? {
        let found = FileManager.default.enumerator(atPath: dir + "/state")?.compactMap { $0 as? String }
            .first { $0.hasSuffix(".journal") }
        return found.map { dir + "/state/" + $0 }
    }

    func size(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1 }

    /// The first track's times in a participant's copy (none while its copy has no track yet).
    func times(_ p: Participant) -> [Double] { p.sync { $0.document }.tracks.first?.markers.map(\.time) ?? [] }

    func testAChangeTheHostCannotJournalIsRefusedAndNobodyHearsOfIt() throws {
        let file = dir + "/shared.tempera"
        try DocumentFile.save(Document(tracks: [Track(name: "one")]), to: file)
        let port = freeTCPPort()
        var server = try ServeProcess([file], in: dir, port: port)
        defer { _ = server.stop() }
        let ana = Participant(host: "127.0.0.1", port: port, name: "ana")
        let bo = Participant(host: "127.0.0.1", port: port, name: "bo")
        join(ana)
        join(bo)
        // A journal well beyond the size of the host's log (which the limit holds too).
        XCTAssertNil(run(ana, "pulse period=1/2000 count=500 start=0.6")?.error)
        XCTAssertNil(run(ana, "marker add 0.1")?.error)
        XCTAssertTrue(waitUntil(5) { bo.sync { $0.seq } == 2 })
        let path = try XCTUnwrap(journal(), "the host's journal")
        let kept = size(path)
        XCTAssertGreaterThan(kept, 10_000)

        // Files may grow to 10 bytes past the journal's end (the soft limit; the hard one stays): its next line
        // goes in part, then fails (EFBIG).
        XCTAssertEqual(Spawn.run("/usr/bin/prlimit", ["--fsize=\(kept + 10):unlimited", "--pid", "\(server.pid)"]).status, 0)
        let refused = run(ana, "marker add 0.5")
        XCTAssertEqual(refused?.error, "the host cannot write its journal (File too large): the change was not made")
        XCTAssertEqual(size(path), kept, "the part of the line that went in was cut back")
        XCTAssertTrue(waitUntil(2) { server.logText.contains("refused ana's change (marker), nothing changed") }, server.logText)
        XCTAssertTrue(server.logText.contains("cannot write the journal \(path): File too large"), server.logText)
        usleep(300_000)
        XCTAssertEqual(bo.sync { $0.seq }, 2, "bo was told of no change")
        XCTAssertFalse(times(bo).contains(0.5))
        XCTAssertFalse(times(ana).contains(0.5), "ana's copy has no marker at 0.5 either")
        // Undo takes back ana's last kept change, not the refused one.
        XCTAssertEqual(run(ana, "undo")?.error, "the host cannot write its journal (File too large): the change was not made")

        // Room again: the next change is kept, numbered after the last one kept.
        XCTAssertEqual(Spawn.run("/usr/bin/prlimit", ["--fsize=unlimited:unlimited", "--pid", "\(server.pid)"]).status, 0)
        XCTAssertNil(run(ana, "marker add 0.3")?.error)
        XCTAssertTrue(waitUntil(5) { bo.sync { $0.seq } == 3 }, "the refused change took no number")
        XCTAssertEqual(run(ana, "undo")?.message, "undid marker add")
        XCTAssertTrue(waitUntil(5) { bo.sync { $0.seq } == 4 })
        XCTAssertEqual(run(ana, "redo")?.message, "redid marker add")
        XCTAssertTrue(waitUntil(5) { bo.sync { $0.seq } == 5 })

        // Killed now, the host comes back with every answered change and none of the refused.
        server.crash()
        server = try ServeProcess([file], in: dir, port: port)
        XCTAssertTrue(server.logText.contains("recovered 5 changes"), server.logText)
        let cy = Participant(host: "127.0.0.1", port: port, name: "cy")
        join(cy)
        // Connected is said on the welcome; the document follows in parts.
        XCTAssertTrue(waitUntil(5) { cy.sync { $0.seq == 5 && !$0.document.tracks.isEmpty } }, "cy has the document")
        let recovered = times(cy)
        XCTAssertEqual(recovered.count, 502)
        XCTAssertTrue(recovered.contains(0.1) && recovered.contains(0.3))
        XCTAssertFalse(recovered.contains(0.5))
        for p in [ana, bo, cy] { p.cut() }
    }

    /// The journal itself: a line that fails in part is cut back, so the lines after it still replay, and the
    /// refused change leaves the shared document as it was.
    func testAFailedWriteIsCutBackSoTheLinesAfterItStillReplay() throws {
        let path = dir + "/j.journal"
        let start = Document(tracks: [Track(name: "one")])
        let (journal, _) = try Journal.open(path, fileBytes: nil, loaded: start)
        let shared = SharedDocument(session: Session(document: start))
        shared.join(key: "a", name: "ana")
        func keep(_ o: SharedDocument.Outcome) -> String? {
            do {
                try journal.append(key: "a", name: "ana", id: nil, deltas: o.deltas)
                return nil
            } catch {
                return "\(error)"
            }
        }
        XCTAssertNil(shared.run("marker add 0.1", by: "a", keep: keep).error)
        let kept = size(path)
        // This process may write 5 bytes past the journal's end, for a moment (SIGXFSZ ignored, as tempera does).
        signal(SIGXFSZ, SIG_IGN)
        var old = rlimit()
        getrlimit(Int32(RLIMIT_FSIZE.rawValue), &old)
        var tight = old
        tight.rlim_cur = rlim_t(kept + 5)
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &tight), 0)
        let refused = shared.run("marker add 0.2", by: "a", keep: keep)
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &old), 0)
        XCTAssertEqual(refused.error, "cannot write the journal \(path): File too large")
        XCTAssertEqual(refused.deltas.count, 0)
        XCTAssertEqual(size(path), kept, "cut back to its last whole line")
        XCTAssertEqual(shared.seq, 1)
        XCTAssertEqual(shared.session.document.tracks[0].markers.map(\.time), [0.1])
        XCTAssertNil(shared.run("marker add 0.3", by: "a", keep: keep).error)
        XCTAssertEqual(shared.seq, 2)
        XCTAssertEqual(shared.run("undo", by: "a", keep: keep).message, "undid marker add")
        let (_, replay) = try Journal.open(path, fileBytes: nil, loaded: start)
        XCTAssertEqual(replay.entries.count, 3)
        XCTAssertEqual(replay.document.tracks[0].markers.map(\.time), [0.1])
        XCTAssertEqual(replay.document, shared.session.document)
    }
}

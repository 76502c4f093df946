import TemperaCore
import TemperaNet
import XCTest

/// The host's rules without the network: own cursors, numbered changes, undo of one's own steps.
final class SharedDocumentTests: XCTestCase {
    func makeShared() -> SharedDocument {
        let shared = SharedDocument(session: Session(document: Document.newDocument()))
        shared.join(key: "a", name: "ana")
        shared.join(key: "b", name: "bo")
        return shared
    }

    func testEachParticipantRunsAgainstTheirOwnCursorAndSelection() {
        let shared = makeShared()
        XCTAssertNil(shared.run("cursor 1", by: "a").error)
        XCTAssertNil(shared.run("track 2", by: "b").error)
        XCTAssertNil(shared.run("marker add 0.3", by: "b").error)
        // ana's draw happens at her cursor on her track (1), untouched by bo's moves.
        XCTAssertNil(shared.run("marker add 1.01", by: "a").error)
        let doc = shared.session.document
        XCTAssertEqual(doc.tracks[1].markers.filter { $0.time == 0.3 }.count, 1)
        XCTAssertEqual(doc.tracks[0].markers.filter { $0.time == 1.01 }.count, 1)
        XCTAssertEqual(shared.participants["a"]?.view.cursor, 1)
        XCTAssertEqual(shared.participants["b"]?.view.currentTrack, 1)
        XCTAssertEqual(shared.seq, 2)
    }

    func testARefusedCommandSaysWhatTheEditorWouldAndChangesNothing() {
        let shared = makeShared()
        let o = shared.run("shift 1/8", by: "a")
        XCTAssertEqual(o.error, "nothing is selected")
        XCTAssertTrue(o.deltas.isEmpty)
        // The same line the editor's : line shows for it.
        let local = Session(document: Document.newDocument())
        for line in ["fill \"1 x\"", "track 9", "select range 2 1", "slot 17 gain=1"] {
            var expected = ""
            do { try local.run(line: line) } catch let e as CommandError { expected = e.description } catch {}
            XCTAssertFalse(expected.isEmpty)
            XCTAssertEqual(shared.run(line, by: "a").error, expected)
        }
        XCTAssertEqual(shared.seq, 0)
    }

    func testUndoTakesBackOnlyTheParticipantsOwnLastStep() {
        let shared = makeShared()
        _ = shared.run("tempo 1.5", by: "a")
        _ = shared.run("volume 0.5", by: "b")
        // bo's volume is his last step; ana's undo takes back her tempo and leaves his volume.
        let o = shared.run("undo", by: "a")
        XCTAssertEqual(o.message, "undid tempo")
        XCTAssertEqual(shared.session.document.transport.tempo, 1)
        XCTAssertEqual(shared.session.document.transport.volume, 0.5)
        XCTAssertEqual(shared.run("redo", by: "a").message, "redid tempo")
        XCTAssertEqual(shared.session.document.transport.tempo, 1.5)
    }

    func testUndoOfAStepSomeoneChangedSinceNamesThem() {
        let shared = makeShared()
        _ = shared.run("select at 0", by: "a")
        _ = shared.run("shift 0.01", by: "a")
        _ = shared.run("select at 0.01", by: "b")
        _ = shared.run("shift 0.01", by: "b")
        let o = shared.run("undo", by: "a")
        XCTAssertEqual(o.error, "cannot undo shift: bo changed it since")
        XCTAssertEqual(shared.session.document.tracks[0].markers[0].time, 0.02)
        // Once bo takes his change back, ana's undo applies.
        XCTAssertEqual(shared.run("undo", by: "b").message, "undid shift")
        XCTAssertEqual(shared.run("undo", by: "a").message, "undid shift")
        XCTAssertEqual(shared.session.document.tracks[0].markers[0].time, 0)
    }

    func testAChangeAppliedToACopyGivesTheHostsDocument() throws {
        let shared = makeShared()
        var copy = shared.session.document
        for line in ["select all", "delete", "track add x", "pulse period=1/3 count=4", "slot 3 gain=0.5",
                     "select all", "fill \"1 2\"", "undo", "tempo 2"] {
            for d in shared.run(line, by: "a").deltas {
                try d.change.apply(to: &copy)
            }
        }
        XCTAssertEqual(DocumentFile.encode(copy), DocumentFile.encode(shared.session.document))
        XCTAssertEqual(copy.tracks.map { $0.markers.map(\.id) }, shared.session.document.tracks.map { $0.markers.map(\.id) })
    }

    func testTheTransportFieldListNamesEverySetting() {
        XCTAssertEqual(Transport.fields.map(\.name), Mirror(reflecting: Transport()).children.map { $0.label ?? "" })
    }

    func testATrackAddIsUndoneWhileNoOneHasTouchedTheTrackAndNotAfter() {
        let shared = makeShared()
        _ = shared.run("track add ana", by: "a")
        XCTAssertEqual(shared.run("undo", by: "a").message, "undid track add")
        XCTAssertEqual(shared.session.document.tracks.count, 4)
        XCTAssertEqual(shared.run("redo", by: "a").message, "redid track add")
        XCTAssertEqual(shared.session.document.tracks.map(\.name).last, "ana")
        _ = shared.run("track 5", by: "b")
        _ = shared.run("marker add 0.5", by: "b")
        XCTAssertEqual(shared.run("undo", by: "a").error, "cannot undo track add: bo changed it since")
    }

    func testAJoinedSessionSendsDocumentCommandsAndMovesItsCursorItself() throws {
        let session = Session(document: Document.newDocument())
        var sent: [String] = []
        session.remote = { sent.append($0.text); return nil }
        try session.run(line: "cursor 1")
        try session.run(line: "select all")
        try session.run(line: "marker add 0.3")
        try session.run(line: "shift 1/8")
        XCTAssertEqual(session.cursor, 1)
        XCTAssertEqual(session.selectionCount, 16)
        XCTAssertEqual(sent, ["marker add 0.3", "shift 0.125"])
        XCTAssertEqual(session.document, Document.newDocument())
    }

    func testARepeatedRequestIdIsNotRunTwice() {
        let shared = makeShared()
        XCTAssertEqual(shared.run("marker add 0.3", by: "a", id: 1).deltas.count, 1)
        XCTAssertEqual(shared.run("marker add 0.3", by: "a", id: 1).deltas.first?.seq, 1)
        XCTAssertEqual(shared.seq, 1)
    }

    func testOnlyTheHostSavesToAPathOfItsChoosing() {
        let shared = makeShared()
        XCTAssertEqual(shared.run("save /tmp/elsewhere.json", by: "a").error,
                       "only the host saves elsewhere: 'save' writes the shared file")
    }

    /// A change the host could not keep (its journal refused it) is taken back whole: an undo refused puts its
    /// steps back on the participant's undo list, a redo refused on the redo list, a new step leaves none behind.
    func testTakingBackARefusedRequestRestoresTheParticipantsUndoAndRedo() {
        let shared = makeShared()
        let base = shared.session.document.tracks[0].markers.count
        for k in 0..<3 { XCTAssertNil(shared.run("marker add \(k + 1)/4", by: "a", id: k + 1).error) }
        let refuse: (SharedDocument.Outcome) -> String? = { _ in "the disk is full" }
        XCTAssertEqual(shared.run("undo 2", by: "a", id: 4, keep: refuse).error, "the disk is full")
        XCTAssertEqual(shared.session.document.tracks[0].markers.count, base + 3)
        XCTAssertNil(shared.run("undo 1", by: "a", id: 5).error)
        XCTAssertEqual(shared.run("redo 1", by: "a", id: 6, keep: refuse).error, "the disk is full")
        XCTAssertEqual(shared.run("marker add 7/8", by: "a", id: 7, keep: refuse).error, "the disk is full")
        XCTAssertEqual(shared.session.document.tracks[0].markers.count, base + 2)
        // Everything is as if the refused requests never came: redo brings the third back, undo takes all three.
        XCTAssertNil(shared.run("redo 1", by: "a", id: 8).error)
        XCTAssertNil(shared.run("undo 3", by: "a", id: 9).error)
        XCTAssertEqual(shared.session.document.tracks[0].markers.count, base)
        XCTAssertEqual(shared.run("undo 1", by: "a", id: 10).error, "nothing to undo")
    }

    /// A participant's outcomes are kept for a reconnect: the latest 4,096, and the changes only of the latest
    /// outcomes within the bound of marker records; a long run of requests keeps both bounds.
    func testTheOutcomesKeptForAReconnectStayWithinTheirBounds() {
        let shared = makeShared()
        for k in 1...5_000 { XCTAssertNil(shared.run("marker add \(k)/1000", by: "a", id: k).error) }
        let kept = shared.outcomes(of: "a", after: 0)
        XCTAssertEqual(kept.count, 4_096)
        XCTAssertEqual(kept.first?.id, 5_000 - 4_095)
        XCTAssertEqual(kept.last?.outcome.deltas.count, 1)
        XCTAssertEqual(shared.outcomes(of: "a", after: 4_990).map(\.id), Array(4_991...5_000))
    }
}

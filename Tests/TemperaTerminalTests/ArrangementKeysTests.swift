import XCTest
@testable import TemperaTerminal
import TemperaCore

/// The arrangement from the keys: the Groups tab opens a group as the timeline (Enter) and places it (p), Esc
/// returns; the Song tab's grid (rows tracks, columns sections) toggles a cell with Space and picks its group
/// with Enter; digits and s / e set a section's start and end BPM. Each change is one undo step.
final class ArrangementKeysTests: XCTestCase {
    func keys(_ d: Dispatcher, _ names: String...) { for n in names { d.handle(Key(name: n)!) } }

    func testTheGroupsTabEditsAndPlacesTheChosenGroupAndEscReturns() throws {
        let d = Dispatcher(session: Session(document: groupsDocument()), width: 120, height: 40, clock: { 0 })
        keys(d, "F3")
        XCTAssertEqual(d.contexts, [.groups, .tab, .global])
        d.view.chosenGroup = 2
        d.session.cursor = 4
        d.session.currentTrack = 1
        keys(d, "p")
        XCTAssertEqual(d.session.document.song.instances, [GroupInstance(group: 2, start: 4, track: 1)])
        XCTAssertEqual(d.session.undoName, "place group 2")
        keys(d, "enter")
        XCTAssertEqual(d.session.editingGroup, 2)
        XCTAssertEqual(d.session.undoName, "group edit 2")
        var canvas = Canvas(width: 120, height: 40)
        _ = EditorView.render(session: d.session, view: d.view, into: &canvas)
        XCTAssertTrue((0..<40).contains { canvas.line($0).contains(" group 2, edited as the timeline (Esc: done) ") })
        XCTAssertEqual(d.session.document.tracks[1].markers.map(\.time), [0, 0.25])
        // Esc gives the keys to the timeline; there, the selection empty, Esc stores the group and returns.
        keys(d, "esc", "esc")
        XCTAssertNil(d.session.editingGroup)
        XCTAssertEqual(d.session.undoName, "group done")
        XCTAssertEqual(d.session.document.groups[2].elements.map(\.offset), [0, 0.25, 0.5])
    }

    func testTheGridTogglesACellAndPicksItsGroupEachOneStep() throws {
        let d = Dispatcher(session: Session(document: groupsDocument()), width: 140, height: 40, clock: { 0 })
        keys(d, "F5", "a", "a")
        XCTAssertEqual(d.view.songRow, 1)
        keys(d, "right", "space")
        XCTAssertEqual(d.session.document.song.sections[1].tracks, [0, 2, 3, 4], "track 2 silent in section 2")
        XCTAssertNil(d.session.document.song.sections[0].tracks)
        XCTAssertEqual(d.session.undoName, "section tracks")
        keys(d, "space", "enter")
        XCTAssertNil(d.session.document.song.sections[1].tracks)
        XCTAssertEqual(d.session.document.song.sections[1].plays, [1: 2], "the first stored group")
        keys(d, "enter")
        XCTAssertEqual(d.session.document.song.sections[1].plays, [1: 12])
        keys(d, "enter")
        XCTAssertEqual(d.session.document.song.sections[1].plays, [:], "after the last, its own markers")
        keys(d, "enter", "right", "space")
        var canvas = Canvas(width: 140, height: 40)
        _ = EditorView.render(session: d.session, view: d.view, into: &canvas)
        let rows = (0..<40).map { canvas.line($0) }
        let header = try XCTUnwrap(rows.firstIndex { $0.contains("grid    1  2") }, rows.joined(separator: "\n"))
        XCTAssertTrue(rows[header + 2].contains("snare   *  2"), rows[header + 2])
        XCTAssertTrue(rows[header + 3].contains("hat     *  –"), rows[header + 3])
        XCTAssertEqual(Array(d.session.history.undoSteps.map(\.name).suffix(7)),
                       ["section tracks", "section tracks", "section play", "section play", "section play", "section play",
                        "section tracks"])
    }

    func testAFourBarAccelerandoFrom90To120InNineKeys() throws {
        // A loop of quarters over four bars at 90 BPM (beat 0.5 s at x1: 16 quarters in 8 s).
        var doc = Document(tracks: [Track(name: "click", markers: MarkerList((0..<16).map {
            Marker(id: MarkerID($0), time: Double($0) * 0.5, amp: 1, content: .clip(1))
        }))])
        doc.transport = Transport(tempo: 0.75, volume: 1, loopStart: 0, loopEnd: 8, loopOn: true, length: 8)
        let d = Dispatcher(session: Session(document: doc), width: 120, height: 40, clock: { 0 })
        let presses = ["F5", "a", "9", "0", "s", "1", "2", "0", "e"]
        for k in presses { keys(d, k) }
        XCTAssertEqual(presses.count, 9)
        let s = d.session.document.song.sections[0]
        let t = d.session.document.transport
        XCTAssertEqual(t.bpm(atTempo: try XCTUnwrap(s.tempo)), 90, accuracy: 1e-9)
        XCTAssertEqual(t.bpm(atTempo: try XCTUnwrap(s.tempoEnd)), 120, accuracy: 1e-9)
        XCTAssertEqual(d.view.message, "section 1 (A): 90→120 BPM")
    }
}

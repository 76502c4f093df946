import XCTest
@testable import TemperaTerminal
import TemperaCore

/// The Song tab's keys: each change is one `section ...` command and one undo step; the cursor row follows.
final class SongKeysTests: XCTestCase {
    func dispatcher() -> Dispatcher {
        let d = Dispatcher(session: Session(document: .demo()), width: 120, height: 40, clock: { 0 })
        d.handle(Key(name: "F5")!)
        return d
    }

    func keys(_ d: Dispatcher, _ names: String...) { for n in names { d.handle(Key(name: n)!) } }

    func testKeysBuildASongEachChangeOneUndoStep() throws {
        let d = dispatcher()
        XCTAssertEqual(d.contexts, [.song, .tab, .global])
        keys(d, "a", "+", "+", "D", ">", ">", "K")
        let song = d.session.document.song
        XCTAssertEqual(song.sections.map(\.repeats), [3, 3])
        XCTAssertEqual(song.sections[0].tempo, d.session.document.transport.tempo(forBPM: 122), "moved up: first")
        XCTAssertNil(song.sections[1].tempo)
        XCTAssertEqual(d.view.songRow, 0)
        XCTAssertEqual(d.session.history.undoSteps.map(\.name),
                       ["section add", "section repeats", "section repeats", "duplicate section", "section tempo",
                        "section tempo", "move section"])
        keys(d, "J", "d")
        XCTAssertEqual(d.session.document.song.sections.count, 1)
        keys(d, "r")
        XCTAssertEqual(d.view.commandLabel, "rename section 1: ")
        for c in "verse" { d.handle(Key(name: String(c))!) }
        keys(d, "enter")
        XCTAssertEqual(d.session.document.song.sections[0].name, "verse")
        keys(d, "F6")
        XCTAssertTrue(d.session.document.song.on)
        XCTAssertEqual(d.session.undoName, "song on")
        for _ in 0..<12 { keys(d, "u") }
        XCTAssertEqual(d.session.document.song, Song())
    }

    func testKeysOnAnEmptySongSayHowToStartOne() {
        let d = dispatcher()
        keys(d, "+")
        XCTAssertEqual(d.view.message, "the song has no section: a adds the loop region")
        XCTAssertTrue(d.view.messageIsError)
        keys(d, "F6")
        XCTAssertFalse(d.session.canUndo)
    }

    func testAClickOnARowChoosesItAndOnTheTransportSwitchesLoopAndSong() throws {
        let d = dispatcher()
        keys(d, "a", "a")
        var canvas = Canvas(width: 120, height: 40)
        d.view.focus = .timeline
        let spots = EditorView.render(session: d.session, view: d.view, into: &canvas)
        XCTAssertTrue(spots.contains { $0.hit($0.rect.x, $0.rect.y) == .section(1) })
        XCTAssertTrue(spots.contains { $0.hit($0.rect.x, $0.rect.y) == .songMode })
    }
}

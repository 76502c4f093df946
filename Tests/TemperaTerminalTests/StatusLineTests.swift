import XCTest
@testable import TemperaTerminal
import TemperaCore

final class StatusLineTests: XCTestCase {
    func testOpenCommandLineShowsColonTextAndCursorCell() {
        var view = ViewState()
        var line = Prompt("tempo 2")
        line.move(to: 6)
        view.prompt = line
        view.message = "hidden while typing"
        let canvas = render(Session(document: .demo()), view)
        XCTAssertEqual(canvas.line(23).prefix(9), ":tempo 2 ")
        XCTAssertEqual(canvas[0, 23].role, .prompt)
        XCTAssertEqual(canvas[7, 23], Cell("2", .cursor))
        XCTAssertEqual(canvas[6, 23], Cell(" ", .normal))
    }

    func testCursorAtTheEndIsABlankCursorCell() {
        var view = ViewState()
        view.prompt = Prompt("undo")
        let canvas = render(Session(document: .demo()), view)
        XCTAssertEqual(canvas[5, 23], Cell(" ", .cursor))
    }

    func testLongCommandScrollsToKeepTheCursorInView() {
        var view = ViewState()
        view.prompt = Prompt(String(repeating: "a", count: 100) + "Z")
        let canvas = render(Session(document: .demo()), view)
        XCTAssertEqual(canvas.line(23).prefix(3), ":aa")
        XCTAssertEqual(canvas[77, 23].char, "Z")
        XCTAssertEqual(canvas[78, 23], Cell(" ", .cursor))
    }

    func testMessageAndErrorRoles() {
        var view = ViewState()
        view.message = "filled 6 markers"
        XCTAssertEqual(render(Session(document: .demo()), view).role(of: "filled 6 markers", inRow: 23), .message)
        view.message = "line 1, column 3: unknown clip 'x'"
        view.messageIsError = true
        XCTAssertEqual(render(Session(document: .demo()), view).role(of: "line 1", inRow: 23), .error)
    }

    func testWithoutMessageTheLineSaysWhatUndoWouldUndo() throws {
        let session = Session(document: .demo())
        var view = ViewState()
        view.keyHints = ["undo": "u", "help": "?", "command": ":"]
        XCTAssertTrue(render(session, view).line(23).hasPrefix(" ? help  : command "))
        try session.run(line: "tempo 2")
        let line = render(session, view).line(23)
        XCTAssertTrue(line.hasPrefix(" undo \(session.undoName!) (u)  ? help  : command "), line)
    }

    func testRightSideNamesTrackAndSelection() {
        let session = Session(document: .demo())
        session.currentTrack = 2
        session.selection[2] = Set(session.document.tracks[2].markers.prefix(3).map(\.id))
        XCTAssertTrue(render(session).line(23).hasSuffix("track 3/5 hat  3 selected "))
    }

    func testModifiedDocumentIsMarkedOnTheTopEdge() throws {
        let session = Session(document: .demo(), path: "song.tempera")
        XCTAssertTrue(render(session).line(0).hasPrefix("┌─ transport ─ song.tempera ─"))
        try session.run(line: "tempo 2")
        let canvas = render(session)
        XCTAssertTrue(canvas.line(0).hasPrefix("┌─ transport ─ song.tempera ● ─"), canvas.line(0))
        XCTAssertEqual(canvas.role(of: "●", inRow: 0), .warning)
    }

    func testAsciiScreenHoldsOnlyAsciiCharacters() {
        let session = Session(document: .demo())
        session.cursor = 0.75
        session.selection[0] = [session.document.tracks[0].markers[2].id]
        var view = ViewState()
        view.ascii = true
        view.transport.isPlaying = true
        view.transport.position = 0.5
        view.prompt = Prompt("1 2", purpose: .pattern(.fill))
        for tab in Tab.allCases {
            view.tab = tab
            for (w, h) in [(80, 24), (120, 40), (60, 15)] {
                let text = render(session, view, width: w, height: h).text
                XCTAssertTrue(text.allSatisfy(\.isASCII), "\(tab) \(w)x\(h): \(text.filter { !$0.isASCII })")
            }
        }
    }
}

import Foundation
import XCTest
@testable import TemperaCore
import TemperaStudio
@testable import TemperaTerminal

/// The fill and pattern-select tools open their code at once: typed, then applied by Enter, through the
/// shipped key map.
final class PatternEditorTests: XCTestCase {
    func contents(_ d: Dispatcher, _ n: Int = 6) -> [Content?] {
        d.session.document.tracks[0].markers.prefix(n).map(\.content)
    }

    func testAMissingRepetitionCountIsReadWholeBesideTheCodeAt80Columns() {
        let d = Dispatcher(session: Session(document: .newDocument()), width: 80, height: 24, clock: { 0 })
        keys(d, "f C-u")
        for c in "1 2 3 (4 5 6 x" { d.handle(Key(c)) }
        keys(d, "enter")
        XCTAssertEqual(d.view.message, "column 14: 'x' needs a count, as in x3")
        let status = render(d.session, d.view).line(23)
        XCTAssertTrue(status.hasSuffix("column 14: 'x' needs a count, as in x3 "), status)
    }

    func testASelectedPromptIsReplacedByTypingAndDeletingAndKeptByMoving() {
        var p = Prompt("1 - 3")
        p.selectAll()
        p.insert("2")
        XCTAssertEqual(p.line, "2")
        p = Prompt("1 - 3")
        p.selectAll()
        p.backspace()
        XCTAssertEqual(p.line, "")
        p = Prompt("1 - 3")
        p.selectAll()
        p.left()
        XCTAssertFalse(p.selected)
        XCTAssertEqual(p.cursor, 0)
        p.insert("4 ")
        XCTAssertEqual(p.line, "4 1 - 3")
        p = Prompt("1 - 3")
        p.selectAll()
        p.right()
        XCTAssertEqual(p.cursor, 5)
        XCTAssertEqual(p.line, "1 - 3")
    }

    func testFillToolTypesItsCodeAndEnterFillsFromTheCursorAsOneUndoStep() {
        let d = make()
        let before = d.session.document
        keys(d, "f 1 space - space 3 x 2 enter")
        XCTAssertNil(d.view.prompt)
        XCTAssertEqual(d.view.tool, .fill)
        XCTAssertEqual(d.session.document.pattern, "1 - 3x2")
        XCTAssertEqual(contents(d), [.clip(1), .rest, .clip(3), .clip(3), nil, nil])
        keys(d, "u")
        XCTAssertEqual(d.session.document, before)
        XCTAssertFalse(d.session.canUndo)
    }

    func testPatternEditorOpensWithTheDocumentsCodeSelectedSoTypingReplacesIt() throws {
        let d = make()
        try d.runLine("pattern \"2 2\"")
        keys(d, "f")
        XCTAssertEqual(d.view.commandLine, "2 2")
        XCTAssertEqual(d.view.commandLabel, "fill pattern: ")
        XCTAssertTrue(d.view.commandSelected)
        XCTAssertEqual(d.view.patternInput, "2 2")
        var canvas = Canvas(width: 120, height: 40)
        EditorView.draw(session: d.session, view: d.view, into: &canvas)
        XCTAssertTrue(canvas.line(39).hasPrefix("fill pattern: 2 2 "))
        XCTAssertEqual(canvas.role(of: "2 2", inRow: 39), .markerSelected)
        XCTAssertEqual(canvas.role(of: "fill pattern:", inRow: 39), .prompt)
        keys(d, "4")
        XCTAssertEqual(d.view.commandLine, "4")
        XCTAssertFalse(d.view.commandSelected)
    }

    func testArrowsEditThePreFilledCode() throws {
        let d = make()
        try d.runLine("pattern \"2 2\"")
        keys(d, "f end space 5 home 1 space enter")
        XCTAssertEqual(d.session.document.pattern, "1 2 2 5")
        XCTAssertEqual(contents(d, 5), [.clip(1), .clip(2), .clip(2), .clip(5), nil])
    }

    func testEscClosesTheEditorApplyingNothingAndKeepsTheTool() {
        let d = make()
        let before = d.session.document
        keys(d, "f 3 esc")
        XCTAssertNil(d.view.prompt)
        XCTAssertEqual(d.view.tool, .fill)
        XCTAssertEqual(d.session.document, before)
        XCTAssertEqual(d.view.commandLabel, ":")
        XCTAssertNil(d.view.patternInput)
        XCTAssertEqual(d.view.message, "fill: f types a code")
    }

    func testEscAfterAStoredCodeSaysEnterAppliesIt() throws {
        let d = make()
        try d.runLine("pattern \"1 2\"")
        keys(d, "p esc")
        XCTAssertEqual(d.view.tool, .patternSelect)
        XCTAssertEqual(d.view.message, "pattern select: Enter applies \"1 2\", p edits it")
        XCTAssertTrue(d.session.selection.values.allSatisfy(\.isEmpty))
    }

    func testEnterWithNoStoredCodeOpensTheEditor() {
        let d = make()
        keys(d, "f esc enter")
        XCTAssertEqual(d.view.commandLabel, "fill pattern: ")
        keys(d, "2 enter")
        XCTAssertEqual(contents(d, 2), [.clip(2), nil])
    }

    func testEnterOnTheTimelineAppliesTheStoredCodeAgain() {
        let d = make()
        keys(d, "f 7 enter C-right C-right enter")
        XCTAssertEqual(contents(d, 4), [.clip(7), nil, .clip(7), nil])
    }

    func testFillOverTheSelectionUsesTheTypedCode() throws {
        let d = make()
        try d.runLine("select range 0.5 0.75")
        keys(d, "f 4 space 5 enter")
        let markers = d.session.document.tracks[0].markers
        XCTAssertEqual(Array(markers.map(\.content)[3...7]), [nil, .clip(4), .clip(5), nil, nil])
    }

    func testAnUnknownClipReadsWholeBesideTheCodeAt80Columns() {
        let d = Dispatcher(session: Session(document: .newDocument()), width: 80, height: 24, clock: { 0 })
        keys(d, "f C-u 1 space 3 z enter")
        XCTAssertEqual(d.view.message, "column 3: unknown clip '3z' (1-16, -, +, ? or .)")
        let status = render(d.session, d.view).line(23)
        XCTAssertTrue(status.hasSuffix("column 3: unknown clip '3z' (1-16, -, +, ? or .) "), status)
    }

    func testBadCodeKeepsTheEditorOpenWithTheColumnOfTheError() {
        let d = make()
        let before = d.session.document
        keys(d, "f 1 space 3 z enter")
        XCTAssertNotNil(d.view.prompt)
        XCTAssertEqual(d.view.commandLine, "1 3z")
        XCTAssertTrue(d.view.messageIsError)
        XCTAssertEqual(d.view.message, "column 3: unknown clip '3z' (1-16, -, +, ? or .)")
        XCTAssertEqual(d.session.document, before)
        var canvas = Canvas(width: 120, height: 40)
        EditorView.draw(session: d.session, view: d.view, into: &canvas)
        XCTAssertTrue(canvas.line(39).hasPrefix("fill pattern: 1 3z "), canvas.line(39))
        XCTAssertTrue(canvas.line(39).hasSuffix("column 3: unknown clip '3z' (1-16, -, +, ? or .) "))
        XCTAssertEqual(canvas.role(of: "column 3", inRow: 39), .error)
        // Fixing it clears the error and applies.
        keys(d, "backspace enter")
        XCTAssertNil(d.view.prompt)
        XCTAssertFalse(d.view.messageIsError)
        XCTAssertEqual(contents(d, 3), [.clip(1), .clip(3), nil])
    }

    func testPatternSelectToolTypesItsCodeAndSelectsFromTheCursor() {
        let d = make()
        keys(d, "p + space - x 2 enter")
        XCTAssertEqual(d.view.tool, .patternSelect)
        XCTAssertEqual(d.session.document.pattern, "+ -x2")
        XCTAssertEqual(d.session.selectedIndices(track: 0), [0, 3, 6, 9, 12, 15])
        XCTAssertEqual(d.session.undoName, "pattern")
    }

    func testTheTerminalCursorFollowsTheLabelAndStaysOnTheLineBesideAnError() {
        let screen = MemoryScreen(width: 100, height: 30)
        let dir = NSTemporaryDirectory() + "tempera-pattern-\(getpid())"
        let paths = ConfigPaths(config: dir + "/config", state: dir + "/state")
        let d = Dispatcher(session: Session(document: .newDocument()), width: 100, height: 30, paths: paths, clock: { 0 })
        let editor = Editor(screen: screen, dispatcher: d, autosave: Autosave(paths: paths), clock: { 0 })
        func press(_ names: String) {
            editor.process(Key.sequence(names).map { .key($0) })
            editor.frame()
        }
        press("f 1 space 2")
        XCTAssertTrue(screen.canvas.line(29).hasPrefix("fill pattern: 1 2 "))
        XCTAssertEqual(screen.cursor?.x, "fill pattern: 1 2".count)
        XCTAssertEqual(screen.cursor?.y, 29)
        // A long bad code scrolls within the room the error leaves.
        editor.process(String(repeating: "1 ", count: 40).map { .key(Key($0)) } + [.key(Key(name: "z")!)])
        press("enter")
        XCTAssertTrue(d.view.messageIsError)
        let row = screen.canvas.line(29)
        let x = screen.cursor!.x
        XCTAssertEqual(Array(row)[x - 1], "z", row)
        XCTAssertEqual(screen.canvas.role(of: "column", inRow: 29), .error)
        XCTAssertLessThan(x, Array(row).firstIndex(of: "c") ?? 0)
    }
}

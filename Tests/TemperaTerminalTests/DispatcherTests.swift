import Foundation
import TemperaTestSupport
import XCTest
@testable import TemperaCore
@testable import TemperaTerminal

/// Keys through the shipped key map into the session, as a user types them.
final class DispatcherTests: XCTestCase {
    var dir = ""

    override func setUp() {
        dir = TestPaths.temporaryDirectory("dispatch")
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// A dispatcher on a screen of 120x40 with the view fitted to the loop, as the editor starts.
    /// The cursor moves freely (no grid) unless a test turns the grid on.
    func make(_ document: Document = .newDocument(), path: String? = nil) -> Dispatcher {
        var document = document
        document.transport.grid = nil
        let d = Dispatcher(session: Session(document: document, path: path), width: 120, height: 40,
                           paths: ConfigPaths(config: dir + "/config", state: dir + "/state"), clock: { 0 })
        d.fitView()
        return d
    }

    func times(_ d: Dispatcher, track: Int = 0) -> [Double] {
        d.session.document.tracks[track].markers.map(\.time)
    }

    // MARK: Cursor and drawing

    func testArrowsMoveTheCursorByOneColumnAndShiftArrowsByAnEighth() {
        let d = make()
        let column = d.view.viewport.secondsPerColumn
        keys(d, "right right right")
        XCTAssertEqual(d.session.cursor, 3 * column, accuracy: 1e-12)
        keys(d, "S-left")
        XCTAssertEqual(d.session.cursor, 3 * column - column / 8, accuracy: 1e-12)
        keys(d, "home")
        XCTAssertEqual(d.session.cursor, 0)
    }

    func testRotateAfterUndoReplacesTheStaleMessageWithItsUndoStep() {
        let d = make(.demo())
        keys(d, "* . /")
        keys(d, "u")
        XCTAssertEqual(d.view.message, "undid subdivide")
        keys(d, "r")
        XCTAssertNil(d.view.message)
        XCTAssertEqual(d.session.undoName, "rotate")
        XCTAssertTrue(StatusLine.hint(session: d.session, view: d.view).hasPrefix("undo rotate (u)"))
    }

    func testCursorCommandScrollsTheTimelineToTheCursor() throws {
        let d = make()
        try d.runLine("cursor 7")
        let p = d.view.viewport.position(of: 7)
        XCTAssertTrue(p >= 4 && p < Double(d.columns - 4), "cursor at column \(p)")
    }

    func testStampingAGroupKeepsTheCursorAfterItInView() throws {
        let d = make()
        try d.runLine("select all")
        keys(d, "G end")
        let before = d.view.viewport.start
        keys(d, "g enter")
        XCTAssertEqual(d.session.cursor, 4)
        XCTAssertNotEqual(d.view.viewport.start, before)
        let p = d.view.viewport.position(of: 4)
        XCTAssertTrue(p >= 4 && p < Double(d.columns - 4), "cursor at column \(p)")
    }

    func testSubdivisionKeySaysHowManyMarkersGoBetweenEachPair() {
        let d = make()
        keys(d, ".")
        XCTAssertEqual(d.view.message, "subdivide n=2: 2 new markers between each pair")
        keys(d, "* /")
        XCTAssertEqual(times(d).count, 16 + 15 * 2)
        keys(d, ", ,")
        XCTAssertEqual(d.view.message, "subdivide n=1: 1 new marker between each pair")
    }

    func testControlArrowsJumpFromMarkerToMarker() {
        let d = make()
        keys(d, "C-right C-right")
        XCTAssertEqual(d.session.cursor, 0.25)
        keys(d, "C-left")
        XCTAssertEqual(d.session.cursor, 0.125)
    }

    func testEnterWithDrawSingleAddsAnEmptyMarkerInMarkerMode() {
        let d = make()
        keys(d, "C-right right enter")
        let t = d.session.cursor
        XCTAssertEqual(d.session.document.tracks[0].markers.count, 17)
        let added = d.session.document.tracks[0].markers.first { $0.time == t }
        XCTAssertEqual(added?.content, nil)
        XCTAssertEqual(added?.amp, 0.8)
    }

    func testDrawClipKeyAddsAMarkerCarryingTheChosenClip() {
        let d = make()
        keys(d, "C-right right 3 a")
        let t = d.session.cursor
        let added = d.session.document.tracks[0].markers.first { $0.time == t }
        XCTAssertEqual(added?.content, .clip(3))
        XCTAssertEqual(d.session.chosenClip, .clip(3))
    }

    func testShiftUpAndDownSetTheDrawingAmplitudeWhenNothingIsSelected() {
        let d = make()
        keys(d, "S-down S-down right a")
        let t = d.session.cursor
        XCTAssertEqual(d.session.document.tracks[0].markers.first { $0.time == t }?.amp, 0.6)
    }

    func testTrackKeysMoveTheCurrentTrackWithinTheDocument() {
        let d = make()
        keys(d, "down down down down down")
        XCTAssertEqual(d.session.currentTrack, 3)
        keys(d, "up")
        XCTAssertEqual(d.session.currentTrack, 2)
    }

    func testTypingToolTypesClipsOntoMarkersWithoutOne() {
        let d = make()
        keys(d, "t 1 2 + - ~ 0")
        let contents = d.session.document.tracks[0].markers.prefix(7).map(\.content)
        XCTAssertEqual(contents, [.clip(1), .clip(2), .hold, .rest, .random, .clip(10), nil])
    }

    func testDigitsOutsideTypingChooseTheClip() {
        let d = make()
        keys(d, "7")
        XCTAssertEqual(d.session.chosenClip, .clip(7))
        keys(d, "^")
        XCTAssertEqual(d.session.chosenClip, .clip(16))
        XCTAssertEqual(d.session.document, freeGrid(.newDocument()))
    }

    func testFillToolAppliesTheDocumentsPatternFromTheCursor() {
        let d = make()
        keys(d, "P C-u")
        type(d, "pattern \"1x2 - 3\"")
        keys(d, "enter C-right f enter")
        XCTAssertEqual(d.session.document.pattern, "1x2 - 3")
        let contents = d.session.document.tracks[0].markers.prefix(6).map(\.content)
        XCTAssertEqual(contents, [nil, .clip(1), .clip(1), .rest, .clip(3), nil])
    }

    func testPatternSelectToolSelectsByTheDocumentsPattern() throws {
        let d = make()
        try d.runLine("pattern \"+ -x2\"")
        keys(d, "p enter")
        XCTAssertEqual(d.session.selectedIndices(track: 0), [0, 3, 6, 9, 12, 15])
    }

    // MARK: Selection and modify tools

    func testPickAndHoldSelectTheMarkerNearestTheCursor() {
        let d = make()
        keys(d, "s C-right enter")
        XCTAssertEqual(d.session.selectedIndices(track: 0), [1])
        keys(d, "h C-right enter")
        XCTAssertEqual(d.session.selectedIndices(track: 0), [1, 2])
        keys(d, "enter")
        XCTAssertEqual(d.session.selectedIndices(track: 0), [1])
        keys(d, "esc")
        XCTAssertEqual(d.session.selectedIndices(track: 0), [])
    }

    func testAllLeftAndAllRightActAtOnceAndKeepTheChosenTool() {
        let d = make()
        d.session.cursor = 1
        keys(d, ">")
        XCTAssertEqual(d.session.selectedIndices(track: 0), Array(8..<16))
        keys(d, "<")
        XCTAssertEqual(d.session.selectedIndices(track: 0), Array(0..<8))
        XCTAssertEqual(d.view.tool, .drawSingle)
    }

    func testShiftWithArrowsIsOneUndoStepCommittedByEnter() {
        let d = make()
        let column = d.view.viewport.secondsPerColumn
        let before = d.session.document
        keys(d, "* m right right right enter")
        XCTAssertEqual(times(d)[0], 3 * column, accuracy: 1e-12)
        XCTAssertEqual(times(d)[15], 15 * 0.125 + 3 * column, accuracy: 1e-12)
        XCTAssertEqual(d.session.undoName, "shift")
        keys(d, "u")
        XCTAssertEqual(d.session.document, before)
        XCTAssertFalse(d.session.canUndo)
    }

    func testEscAbortsAShiftDragAndLeavesNoStep() {
        let d = make()
        let before = d.session.document
        keys(d, "* m right right esc")
        XCTAssertEqual(d.session.document, before)
        XCTAssertFalse(d.session.canUndo)
        XCTAssertFalse(d.dragging)
    }

    func testScaleWithArrowsMovesTheHandleNearestTheCursorAndKeepsTheOtherEnd() {
        let d = make()
        let column = d.view.viewport.secondsPerColumn
        d.session.cursor = 2
        keys(d, "* x right right enter")
        let t = times(d)
        XCTAssertEqual(t[0], 0)
        XCTAssertEqual(t[15], 1.875 + 2 * column, accuracy: 1e-12)
        XCTAssertEqual(t[8], 1 * (1.875 + 2 * column) / 1.875, accuracy: 1e-9)
        XCTAssertEqual(d.session.undoName, "scale")
        keys(d, "u")
        XCTAssertEqual(times(d)[15], 1.875)
    }

    func testScaleFromTheEndOfTheTimelineMovesTheLastMarker() {
        let d = make()
        let column = d.view.viewport.secondsPerColumn
        keys(d, "down down * x end right right right enter")
        XCTAssertEqual(times(d, track: 2)[15], 1.875 + 3 * column, accuracy: 1e-9)
        XCTAssertEqual(d.session.undoName, "scale")
        XCTAssertEqual(d.view.message, "scale kept (u undoes)")
        XCTAssertFalse(d.dragging)
    }

    func testRotateReverseAndDeleteActAtOnceOnTheSelection() {
        let d = make()
        try! d.runLine("fill \"1 2 3\"")
        keys(d, "s enter h C-right enter h C-right enter")
        XCTAssertEqual(d.session.selectedIndices(track: 0), [0, 1, 2])
        keys(d, "c r")
        XCTAssertEqual(d.session.document.tracks[0].markers.prefix(3).map(\.content), [.clip(3), .clip(1), .clip(2)])
        keys(d, "v")
        XCTAssertEqual(d.session.document.tracks[0].markers.prefix(3).map(\.content), [.clip(2), .clip(1), .clip(3)])
        keys(d, "c D")
        XCTAssertEqual(d.session.document.tracks[0].markers.count, 13)
    }

    func testSubdivideUsesTheCountSetByItsKeys() {
        let d = make()
        keys(d, "s enter h C-right enter . . /")
        XCTAssertEqual(d.session.subdivision, 3)
        XCTAssertEqual(d.session.document.tracks[0].markers.count, 19)
    }

    // MARK: Transport settings

    func testHeldTempoKeysCoalesceIntoOneUndoStep() {
        let d = make()
        keys(d, "} } }")
        XCTAssertEqual(d.session.document.transport.tempo, 1.15, accuracy: 1e-12)
        keys(d, "u")
        XCTAssertEqual(d.session.document.transport.tempo, 1)
    }

    func testLoopRegionIsTypedOnTheColonLine() {
        let d = make()
        keys(d, "L")
        XCTAssertEqual(d.view.commandLine, "loop 0 2")
        keys(d, "C-u")
        type(d, "loop 1/2 3/2")
        keys(d, "enter")
        XCTAssertEqual(d.session.document.transport.loopStart, 0.5)
        XCTAssertEqual(d.session.document.transport.loopEnd, 1.5)
    }

    func testLoopAndVolumeKeysChangeTheTransport() {
        let d = make()
        keys(d, "l ( (")
        XCTAssertFalse(d.session.document.transport.loopOn)
        XCTAssertEqual(d.session.document.transport.volume, 0.7, accuracy: 1e-12)
    }

    // MARK: The : line

    func testColonLineRunsACommandOfTheLanguage() {
        let d = make()
        keys(d, ":")
        type(d, "tempo 3/2")
        XCTAssertEqual(d.view.commandLine, "tempo 3/2")
        keys(d, "enter")
        XCTAssertNil(d.view.commandLine)
        XCTAssertEqual(d.session.document.transport.tempo, 1.5)
    }

    func testColonLineErrorIsOneLineAndChangesNothing() {
        let d = make()
        keys(d, ":")
        type(d, "fill \"1 17\"")
        keys(d, "enter")
        XCTAssertEqual(d.session.document, freeGrid(.newDocument()))
        XCTAssertTrue(d.view.messageIsError)
        XCTAssertFalse(d.view.message!.contains("\n"))
        XCTAssertTrue(d.view.message!.contains("column"), d.view.message!)
    }

    func testColonLineEditingKeysAndHistory() {
        let d = make()
        keys(d, ":")
        type(d, "tempo 2")
        keys(d, "enter : up")
        XCTAssertEqual(d.view.commandLine, "tempo 2")
        keys(d, "backspace")
        type(d, "3")
        keys(d, "C-a")
        XCTAssertEqual(d.view.commandCursor, 0)
        keys(d, "enter")
        XCTAssertEqual(d.session.document.transport.tempo, 3)
        keys(d, ": esc")
        XCTAssertNil(d.view.commandLine)
    }

    func testUnknownOrMissingThemeNameIsOneLineThatFitsAt80Columns() throws {
        let d = Dispatcher(session: Session(document: .demo()), width: 80, height: 24,
                           paths: ConfigPaths(config: dir + "/config", state: dir + "/state"), clock: { 0 })
        try d.runLine("theme nope")
        XCTAssertEqual(d.view.message, "no theme 'nope' (dark, light, high-contrast, or your own)")
        XCTAssertTrue(d.view.messageIsError)
        XCTAssertTrue(render(d.session, d.view).line(23).contains(d.view.message!))
        try d.runLine("theme")
        XCTAssertEqual(d.view.message, "theme needs a name (dark, light, high-contrast, or your own)")
        XCTAssertTrue(render(d.session, d.view).line(23).contains(d.view.message!))
    }

    func testEscapeFromTheSaveLineOfAQuitSaysTheQuitIsCancelled() {
        let d = make(.demo())
        keys(d, "right a q y")
        XCTAssertEqual(d.view.commandLine, "save untitled.tempera")
        keys(d, "esc")
        XCTAssertNil(d.view.commandLine)
        XCTAssertNil(d.view.question)
        XCTAssertFalse(d.quitRequested)
        XCTAssertEqual(d.view.message, "quit cancelled: nothing saved")
    }

    func testRecoveryQuestionWithoutAFileDoesNotSpeakOfOne() {
        let d = make(.demo())
        var unsaved = Document.demo()
        unsaved.transport.tempo = 1.5
        d.offerRecovery(unsaved)
        XCTAssertEqual(d.view.message, "an autosave of unsaved work exists: recover it? (y/n)")
        keys(d, "n")
        XCTAssertNil(d.view.question)
        XCTAssertEqual(d.view.message, "not recovered: a clean quit deletes the autosave")
        XCTAssertEqual(d.session.document.transport.tempo, 1)
    }

    func testTabCompletesACommandName() {
        let d = make()
        keys(d, ":")
        type(d, "subd")
        keys(d, "tab")
        XCTAssertEqual(d.view.commandLine, "subdivide ")
    }

    func testEditorCommandsOnTheColonLine() throws {
        let d = make()
        try d.runLine("theme light")
        XCTAssertEqual(d.requestedTheme?.name, "light")
        try d.runLine("theme nope")
        XCTAssertTrue(d.view.messageIsError)
        try d.runLine("help")
        XCTAssertEqual(d.view.helpOffset, 0)
    }

    func testUnboundKeySaysSo() {
        let d = make()
        keys(d, "F12")
        XCTAssertEqual(d.view.message, "F12 is not bound (? lists the keys)")
    }

    // MARK: Tabs and focus

    func testTabMovesKeysToTheTabAreaWhereArrowsChooseSlots() {
        let d = make()
        keys(d, "tab right right down")
        XCTAssertEqual(d.view.focus, .tab)
        XCTAssertEqual(d.session.chosenClip, .clip(11))
        XCTAssertEqual(d.session.cursor, 0)
        keys(d, "] right")
        XCTAssertEqual(d.view.tab, .groups)
        XCTAssertEqual(d.view.chosenGroup, 2)
        keys(d, "tab")
        XCTAssertEqual(d.view.focus, .timeline)
    }

    func testDesignerKeysMoveTheSliderAsOneUndoStepAndEscRestoresIt() {
        let d = make()
        keys(d, "F4")
        XCTAssertEqual(d.view.tab, .designer)
        XCTAssertEqual(d.view.designer.focus, .slider)
        let s0 = d.session.document.designer.slider
        keys(d, "right right C-right")
        XCTAssertEqual(d.session.document.designer.slider, s0 + 0.11, accuracy: 1e-9)
        keys(d, "esc")
        XCTAssertEqual(d.session.document.designer.slider, s0, accuracy: 1e-12)
        keys(d, "S-right tab u")
        XCTAssertEqual(d.session.document.designer.slider, s0, accuracy: 1e-12)
        XCTAssertFalse(d.session.canUndo)
    }

    func testDesignerStampPutsTheResultAtTheCursor() {
        let d = make()
        let before = d.session.document.tracks[0].markers.count
        keys(d, "F4 s")
        let pairs = d.session.document.designer.pairs.count
        // The first dot lands on the grid marker at the cursor (0) and puts its clip there: no second marker.
        XCTAssertEqual(d.session.document.tracks[0].markers.count, before + pairs - 1)
        XCTAssertEqual(d.session.document.tracks[0].markers.filter { $0.time == 0 }.map(\.content), [d.session.chosenClip])
        keys(d, "u")
        XCTAssertEqual(d.session.document.tracks[0].markers.count, before)
    }

    // MARK: Files and quitting

    func testSaveWritesTheDocumentToItsPath() throws {
        let path = dir + "/song.tempera"
        let d = make(path: path)
        keys(d, "right a C-s")
        XCTAssertFalse(d.session.isModified)
        XCTAssertEqual(try DocumentFile.load(path).tracks[0].markers.count, 17)
    }

    func testSaveWithoutAPathAsksForOne() throws {
        let d = make()
        keys(d, "right a C-s")
        XCTAssertEqual(d.view.commandLine, "save untitled.tempera")
        keys(d, "C-u")
        type(d, dir + "/new.tempera")
        keys(d, "enter")
        XCTAssertEqual(d.session.path, dir + "/new.tempera")
        var canvas = Canvas(width: d.width, height: d.height)
        EditorView.draw(session: d.session, view: d.view, into: &canvas)
        XCTAssertTrue(canvas.line(0).contains(" new.tempera "), canvas.line(0))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/new.tempera"))
    }

    func testQuitAsksWhenModifiedAndCancelKeepsEditing() {
        let d = make()
        keys(d, "q")
        XCTAssertTrue(d.quitRequested)
        let e = make()
        keys(e, "a q")
        XCTAssertEqual(e.view.question, .quit)
        keys(e, "c")
        XCTAssertNil(e.view.question)
        XCTAssertFalse(e.quitRequested)
        keys(e, "q n")
        XCTAssertTrue(e.quitRequested)
        XCTAssertTrue(e.discardedChanges)
    }

    func testQuitAnsweredYesSavesFirst() throws {
        let path = dir + "/q.tempera"
        let d = make(path: path)
        keys(d, "right a q y")
        XCTAssertTrue(d.quitRequested)
        XCTAssertEqual(try DocumentFile.load(path).tracks[0].markers.count, 17)
    }

    func testQuitAnsweredYesWithoutAFileNameAsksForOneThenQuits() throws {
        let d = make()
        keys(d, "right a q y")
        XCTAssertFalse(d.quitRequested)
        XCTAssertEqual(d.view.commandLine, "save untitled.tempera")
        keys(d, "C-u")
        type(d, dir + "/named.tempera")
        keys(d, "enter")
        XCTAssertTrue(d.quitRequested)
        XCTAssertEqual(try DocumentFile.load(dir + "/named.tempera").tracks[0].markers.count, 17)
    }

    func testOpenLoadsAFileAfterAskingAboutUnsavedChanges() throws {
        let path = dir + "/other.tempera"
        try DocumentFile.save(Document.demo(), to: path)
        let d = make()
        keys(d, "right a C-o")
        XCTAssertEqual(d.view.commandLine, "open ")
        type(d, path)
        keys(d, "enter")
        XCTAssertEqual(d.view.question, .discard)
        keys(d, "y")
        XCTAssertEqual(d.session.path, path)
        XCTAssertEqual(d.session.document.tracks.count, Document.demo().tracks.count)
        XCTAssertEqual(d.sessionGeneration, 1)
    }

    func testOpenReportsAMalformedFileAndKeepsTheDocument() throws {
        let path = dir + "/bad.tempera"
        try "{ not json".write(toFile: path, atomically: true, encoding: .utf8)
        let d = make()
        try d.runLine("open " + path)
        XCTAssertTrue(d.view.messageIsError)
        XCTAssertNil(d.session.path)
    }

    func testRecoveryQuestionReplacesTheDocumentOnYes() {
        let d = make()
        d.offerRecovery(.demo())
        keys(d, "y")
        XCTAssertEqual(d.session.document, .demo())
        XCTAssertTrue(d.unsavedRecovery)
        keys(d, "q")
        XCTAssertEqual(d.view.question, .quit)
    }

    func testOtherKeysWaitForTheRecoveryAnswer() {
        let d = make()
        d.offerRecovery(.demo())
        keys(d, "right a x")
        XCTAssertEqual(d.session.document, freeGrid(.newDocument()))
        XCTAssertEqual(d.view.tool, .drawSingle)
        XCTAssertEqual(d.view.question, .recover(.demo()))
        keys(d, "n")
        XCTAssertNil(d.view.question)
        XCTAssertEqual(d.session.document, freeGrid(.newDocument()))
    }

    func testHelpOpensScrollsAndClosesOnAnyOtherKey() {
        let d = make()
        keys(d, "? down down")
        XCTAssertEqual(d.view.helpOffset, 2)
        keys(d, "x")
        XCTAssertNil(d.view.helpOffset)
        XCTAssertEqual(d.view.tool, .drawSingle)
    }
}

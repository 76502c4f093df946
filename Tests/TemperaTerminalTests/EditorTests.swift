import Foundation
import TemperaTestSupport
import XCTest
import TemperaAudio
@testable import TemperaCore
import TemperaStudio
@testable import TemperaTerminal

/// The editor loop on an in-memory screen: frames, resizes, the mouse, quitting and autosave.
final class EditorTests: XCTestCase {
    var dir = ""
    var now = 0.0

    override func setUp() {
        dir = TestPaths.temporaryDirectory("editor")
        now = 0
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    var paths: ConfigPaths { ConfigPaths(config: dir + "/config", state: dir + "/state") }

    func make(_ document: Document = .demo(), path: String? = nil, width: Int = 120, height: Int = 40,
              unicode: Bool = true) -> (Editor, MemoryScreen) {
        let screen = MemoryScreen(width: width, height: height, unicode: unicode)
        var document = document
        document.transport.grid = nil
        let d = Dispatcher(session: Session(document: document, path: path), width: width, height: height, paths: paths,
                           clock: { [unowned self] in self.now })
        let editor = Editor(screen: screen, dispatcher: d, autosave: Autosave(paths: paths),
                            clock: { [unowned self] in self.now })
        editor.frame()
        return (editor, screen)
    }

    func press(_ editor: Editor, _ names: String) {
        editor.process(Key.sequence(names).map { .key($0) })
    }

    func click(_ editor: Editor, x: Int, y: Int, button: Int = 1) {
        editor.process([.mouse(MouseEvent(.press, x: x, y: y, button: button)),
                        .mouse(MouseEvent(.release, x: x, y: y, button: button))])
    }

    /// Where a text first appears on screen.
    func find(_ text: String, in screen: MemoryScreen) -> (x: Int, y: Int)? {
        for y in 0..<screen.canvas.height {
            let line = Array(screen.canvas.line(y)), n = Array(text)
            guard line.count >= n.count else { continue }
            for x in 0...(line.count - n.count) where Array(line[x..<(x + n.count)]) == n { return (x, y) }
        }
        return nil
    }

    // MARK: Frames

    func testFirstFrameShowsTheFourAreasAndTheWholeLoop() {
        let (editor, screen) = make()
        let text = screen.text
        for title in ["transport", "timeline", "tools", "clips", "groups", "rhythm designer", "kick", "canon"] {
            XCTAssertTrue(text.contains(title), "missing \(title)")
        }
        let vp = editor.dispatcher.view.viewport
        XCTAssertEqual(vp.end(columns: editor.dispatcher.columns), 2, accuracy: 1e-9)
        XCTAssertEqual(screen.frames, 1)
    }

    func testToolPanelShowsTheKeysOfTheLiveMap() throws {
        let (editor, screen) = make()
        XCTAssertNotNil(find("m shift", in: screen))
        editor.dispatcher.view.keyMap = try editor.dispatcher.view.keyMap.merging("global  F7  tool.shift\nglobal m none\n", file: "k")
        editor.frame()
        XCTAssertNotNil(find("F7 shift", in: screen))
    }

    func testResizeBelowTheMinimumShowsTheMessageAndTheLayoutReturns() {
        let (editor, screen) = make()
        screen.resize(width: 60, height: 15)
        editor.process([.resize])
        XCTAssertTrue(screen.text.contains("too small"), screen.text)
        XCTAssertFalse(screen.text.contains("timeline"))
        screen.resize(width: 120, height: 40)
        editor.process([.resize])
        XCTAssertTrue(screen.text.contains("timeline"))
        XCTAssertEqual(screen.canvas.width, 120)
    }

    func testHelpOverlayListsTheBindingsAndClosesOnAKey() {
        let (editor, screen) = make()
        press(editor, "?")
        XCTAssertNotNil(find("help", in: screen))
        XCTAssertNotNil(find("play / pause the loop", in: screen))
        press(editor, "esc")
        XCTAssertNil(find("play / pause the loop", in: screen))
    }

    func testColonLineShowsWhatIsTypedWithTheCursorAfterIt() {
        let (editor, screen) = make()
        editor.process([.key(Key(":"))] + "tempo 2".map { .key(Key($0)) })
        XCTAssertEqual(screen.canvas.line(39).hasPrefix(":tempo 2"), true, screen.canvas.line(39))
        XCTAssertEqual(screen.cursor?.x, 8)
        XCTAssertEqual(screen.cursor?.y, 39)
        press(editor, "enter")
        XCTAssertNil(screen.cursor)
        XCTAssertEqual(editor.session.document.transport.tempo, 2)
    }

    func testALongColonLineScrollsAndTheCursorStaysOnIt() {
        let (editor, screen) = make(width: 80, height: 24)
        let text = "fill \"" + String(repeating: "1 ", count: 50) + "\""
        editor.process([.key(Key(":"))] + text.map { .key(Key($0)) })
        // 78 columns of text after the colon: the end of the line and the cursor cell after it.
        XCTAssertEqual(screen.cursor?.x, 78)
        XCTAssertEqual(screen.cursor?.y, 23)
        XCTAssertEqual(screen.canvas[78, 23].role, .cursor)
        XCTAssertTrue(screen.canvas.line(23).dropLast(2).hasSuffix("1 \""), screen.canvas.line(23))
    }

    func testAsciiScreenGetsOnlyAsciiCharacters() {
        let (_, screen) = make(unicode: false)
        let nonAscii = screen.canvas.cells.filter { !$0.char.isASCII }
        XCTAssertEqual(nonAscii.count, 0)
    }

    // MARK: The mouse

    func testClickOnTheTimelineDrawsAMarkerWhereTheHitSays() {
        let (editor, _) = make(.newDocument())
        let d = editor.dispatcher
        let l = d.layout
        let rows = l.rows(ofTrack: 1)!
        let x = l.timeline.x + 30, y = rows.y
        guard case .timeline(let track, let time, let amp) = EditorView.hitTest(
            x: x, y: y, session: d.session, view: d.view, size: (120, 40)) else { return XCTFail("no timeline there") }
        XCTAssertEqual(track, 1)
        click(editor, x: x, y: y)
        XCTAssertEqual(d.session.currentTrack, 1)
        let added = d.session.document.tracks[1].markers.filter { $0.time == time }
        XCTAssertEqual(added.count, 1)
        XCTAssertEqual(added.first?.amp, amp)
        // The default tool places the chosen clip, as `a` does.
        XCTAssertEqual(added.first?.content, d.session.chosenClip)
        XCTAssertEqual(d.session.undoName, "marker add")
    }

    func testClickOnAToolChoosesItAndOnSnapTogglesIt() throws {
        let (editor, screen) = make()
        let shift = try XCTUnwrap(find("m shift", in: screen))
        click(editor, x: shift.x + 2, y: shift.y)
        XCTAssertEqual(editor.dispatcher.view.tool, .shift)
        let snap = try XCTUnwrap(find("[snap]", in: screen))
        click(editor, x: snap.x + 1, y: snap.y)
        XCTAssertFalse(editor.session.snap)
    }

    /// Selects the whole first track, chooses shift, and returns the cell at 0.5 s on that track's bars.
    func shiftDragStart(_ editor: Editor) -> (x0: Int, y: Int) {
        let d = editor.dispatcher
        press(editor, "* m")
        let l = d.layout
        return (l.timeline.x + d.view.viewport.column(of: 0.5), l.rows(ofTrack: 0)!.y + 1)
    }

    func testHelpScrolledPastItsEndMovesBackAtTheFirstKeyUp() {
        let (editor, _) = make()
        var canvas = Canvas(width: 120, height: 40)
        let last = Help.draw(editor.dispatcher.view.keyMap, offset: .max, ascii: false, into: &canvas)
        XCTAssertGreaterThan(last, 0)
        press(editor, "? " + Array(repeating: "pgdn", count: 40).joined(separator: " "))
        XCTAssertEqual(editor.dispatcher.view.helpOffset, last)
        press(editor, "up")
        XCTAssertEqual(editor.dispatcher.view.helpOffset, last - 1)
    }

    func testMouseDragWithShiftIsOneUndoStep() {
        let (editor, _) = make(.newDocument())
        let d = editor.dispatcher
        let (x0, y) = shiftDragStart(editor)
        editor.process([.mouse(MouseEvent(.press, x: x0, y: y)),
                        .mouse(MouseEvent(.drag, x: x0 + 3, y: y)),
                        .mouse(MouseEvent(.drag, x: x0 + 5, y: y)),
                        .mouse(MouseEvent(.release, x: x0 + 5, y: y))])
        let column = d.view.viewport.secondsPerColumn
        let times = d.session.document.tracks[0].markers.map(\.time)
        XCTAssertEqual(times[0], 5 * column, accuracy: 1e-9)
        XCTAssertEqual(times[15], 1.875 + 5 * column, accuracy: 1e-9)
        XCTAssertEqual(d.session.undoName, "shift")
        press(editor, "u")
        XCTAssertEqual(d.session.document, freeGrid(.newDocument()))
    }

    func testEscDuringAMouseDragPutsTheSelectionBack() {
        let (editor, _) = make(.newDocument())
        let d = editor.dispatcher
        let (x0, y) = shiftDragStart(editor)
        editor.process([.mouse(MouseEvent(.press, x: x0, y: y)), .mouse(MouseEvent(.drag, x: x0 + 4, y: y))])
        // The drag moved the selection, so what Esc restores is a real change.
        XCTAssertEqual(d.session.document.tracks[0].markers[0].time, 4 * d.view.viewport.secondsPerColumn, accuracy: 1e-9)
        editor.process([.key(.esc)])
        XCTAssertEqual(d.session.document, freeGrid(.newDocument()))
        XCTAssertFalse(d.session.canUndo)
    }

    func testDraggingTheTempoSliderIsOneUndoStep() throws {
        let (editor, _) = make()
        let d = editor.dispatcher
        var cells: [(x: Int, value: Double)] = []
        for x in 0..<120 {
            if case .tempo(let v) = EditorView.hitTest(x: x, y: 1, session: d.session, view: d.view, size: (120, 40)) {
                cells.append((x, v))
            }
        }
        let first = try XCTUnwrap(cells.first), last = try XCTUnwrap(cells.last)
        let middle = cells[cells.count / 2]
        editor.process([.mouse(MouseEvent(.press, x: first.x, y: 1)), .mouse(MouseEvent(.drag, x: middle.x, y: 1)),
                        .mouse(MouseEvent(.drag, x: last.x, y: 1)), .mouse(MouseEvent(.release, x: last.x, y: 1))])
        XCTAssertEqual(d.session.document.transport.tempo, min(max(last.value, 0.05), 20))
        XCTAssertEqual(d.session.undoName, "tempo")
        press(editor, "u")
        XCTAssertEqual(d.session.document.transport.tempo, 1)
        XCTAssertFalse(d.session.canUndo)
    }

    func testClickingASlotChoosesItsClipAndATabShowsIt() throws {
        let (editor, screen) = make()
        let slot = try XCTUnwrap(find("5 clap", in: screen))
        click(editor, x: slot.x + 2, y: slot.y)
        XCTAssertEqual(editor.session.chosenClip, .clip(5))
        let groups = try XCTUnwrap(find("groups", in: screen))
        click(editor, x: groups.x + 1, y: groups.y)
        XCTAssertEqual(editor.dispatcher.view.tab, .groups)
        XCTAssertEqual(editor.dispatcher.view.focus, .tab)
    }

    func testWheelZoomsAboutThePointer() {
        let (editor, _) = make()
        let d = editor.dispatcher
        let before = d.view.viewport.secondsPerColumn
        let l = d.layout
        editor.process([.mouse(MouseEvent(.wheelUp, x: l.timeline.x + 10, y: l.timeline.y))])
        XCTAssertEqual(d.view.viewport.secondsPerColumn, before / 2, accuracy: 1e-12)
        editor.process([.mouse(MouseEvent(.wheelDown, x: l.timeline.x + 10, y: l.timeline.y, shift: true))])
        XCTAssertEqual(d.view.viewport.secondsPerColumn, before / 2, accuracy: 1e-12)
    }

    // MARK: Playing

    /// An editor with a real engine on the null output, which renders only when pumped.
    func makePlaying(_ document: Document = .demo()) -> (Editor, MemoryScreen, AudioEngine) {
        let (editor, screen) = make(document)
        let engine = AudioEngine(output: .null)
        engine.start()
        editor.dispatcher.player = engine
        editor.dispatcher.replaceSession(Session(document: document))
        editor.process([])
        editor.frame()
        return (editor, screen, engine)
    }

    func testSpacePlaysAndTheTransportShowsTheEnginesPosition() {
        let (editor, screen, engine) = makePlaying()
        press(editor, "space")
        XCTAssertTrue(engine.isPlaying)
        _ = engine.pump(frames: 24_000)
        editor.frame()
        XCTAssertNotNil(find("0.500 s", in: screen), screen.canvas.line(1))
        XCTAssertNotNil(find("playing", in: screen))
        let samples = engine.pump(frames: 48_000)
        XCTAssertGreaterThan(samples.map { abs($0) }.max() ?? 0, 0.05, "the demo is heard")
        press(editor, "space")
        XCTAssertFalse(engine.isPlaying)
    }

    func testSpacePlaysEvenWhileTheRecoveryQuestionWaits() {
        let (editor, _, engine) = makePlaying()
        editor.dispatcher.offerRecovery(.newDocument())
        press(editor, "space")
        XCTAssertTrue(engine.isPlaying)
        XCTAssertNotNil(editor.dispatcher.view.question)
    }

    func testAnEditWhilePlayingIsHeardAtTheNextEvent() {
        // Silence until the clip drawn at 0.5 s plays.
        let doc = Document(tracks: [Track(name: "t", markers: MarkerList([Marker(id: 0, time: 0.1)]))],
                           transport: Transport(loopStart: 0, loopEnd: 1, length: 1))
        let (editor, _, engine) = makePlaying(doc)
        press(editor, "space")
        XCTAssertEqual(engine.pump(frames: 12_000).map { abs($0) }.max(), 0)
        editor.session.cursor = 0.5
        press(editor, "right"); press(editor, "a")
        let after = engine.pump(frames: 24_000)
        // Frames 12000-23999 are 0.25-0.5 s: still silent; from 0.5 s the kick sounds.
        XCTAssertEqual(after.prefix(2 * 11_000).map { abs($0) }.max(), 0)
        XCTAssertGreaterThan(after.suffix(2 * 11_000).map { abs($0) }.max() ?? 0, 0.05)
    }

    func testThePlayheadPagesTheViewWhenItRunsOffIt() {
        let (editor, _, engine) = makePlaying()
        let d = editor.dispatcher
        d.view.viewport = Viewport(start: 0, secondsPerColumn: 0.005)   // about half a second in view
        press(editor, "space")
        _ = engine.pump(frames: 9_600)                                 // 0.2 s: still in view
        editor.frame()
        XCTAssertEqual(d.view.viewport.start, 0)
        _ = engine.pump(frames: 24_000)                                // 0.7 s: off the view
        editor.frame()
        XCTAssertEqual(d.view.viewport.start, 0.7 - 2 * 0.005, accuracy: 0.002)
        d.view.viewport.start = 1.8                                    // scrolled away by the user
        _ = engine.pump(frames: 4_800)
        editor.frame()
        XCTAssertEqual(d.view.viewport.start, 1.8)
    }

    // MARK: The loop, quitting and autosave

    func testRunReturnsTrueWhenTheUserQuits() {
        let (editor, screen) = make()
        screen.feed(keys: "right right q")
        XCTAssertTrue(editor.run())
        XCTAssertEqual(screen.unread, 0)
    }

    func testRunEndsWhenInputClosesAndKeepsChangesRecoverable() throws {
        let (editor, screen) = make()
        screen.feed(keys: "2 a")
        XCTAssertFalse(editor.run())
        let file = editor.autosave.file(for: nil)
        let saved = try DocumentFile.load(file)
        // Ids are not saved: compare what the file holds.
        XCTAssertEqual(DocumentFile.encode(saved), DocumentFile.encode(editor.session.document))
    }

    func testAutosaveWritesFiveSecondsAfterAChange() {
        let (editor, _) = make()
        let file = editor.autosave.file(for: nil)
        press(editor, "right"); press(editor, "a")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file))
        now = 4.9
        press(editor, "right")
        editor.autosave.flush()
        XCTAssertFalse(FileManager.default.fileExists(atPath: file))
        now = 5.0
        press(editor, "right")
        editor.autosave.flush()
        XCTAssertTrue(FileManager.default.fileExists(atPath: file))
    }

    func testSavingRemovesTheAutosave() {
        let path = dir + "/song.tempera"
        let (editor, _) = make(path: path)
        let file = editor.autosave.file(for: path)
        press(editor, "right"); press(editor, "a")
        now = 6
        press(editor, "right")
        editor.autosave.flush()   // the copy is written in the background
        XCTAssertTrue(FileManager.default.fileExists(atPath: file))
        press(editor, "C-s")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file))
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
    }

    func testAnAutosaveHoldingChangesIsOfferedWhateverTheDatesAndOneMatchingTheFileIsNot() throws {
        let path = dir + "/song.tempera"
        try DocumentFile.save(.newDocument(), to: path)
        var autosave = Autosave(paths: paths)
        let edited = Session(document: .newDocument(), path: path)
        try edited.run(.markerAdd(time: 0.3, amp: 0.5))
        XCTAssertNil(autosave.write(edited))
        // The file older than its autosave, then newer (a `touch` after a crash): offered both times.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: path)
        let offered = try XCTUnwrap(autosave.recoverable(for: path, loaded: .newDocument()))
        XCTAssertEqual(DocumentFile.encode(offered), DocumentFile.encode(edited.document))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: path)
        XCTAssertNotNil(autosave.recoverable(for: path, loaded: .newDocument()))
        // Once the file holds what the autosave holds there is nothing to recover.
        XCTAssertNil(autosave.recoverable(for: path, loaded: edited.document))
    }

    func testASecondEditorOnAFileIsToldAndKeepsItsOwnAutosave() throws {
        let path = dir + "/song.tempera"
        var first = Autosave(paths: paths)
        var second = Autosave(paths: paths)
        XCTAssertNil(first.claim(for: path))
        XCTAssertEqual(second.claim(for: path), "song.tempera is open in another editor too: saving asks before writing over its changes")
        XCTAssertNotEqual(first.file(for: path), second.file(for: path))
        XCTAssertTrue(second.file(for: path).hasSuffix("-2.tempera"))
        // The first lets go: a third editor then takes the first one's place.
        first.release()
        var third = Autosave(paths: paths)
        XCTAssertNil(third.claim(for: path))
        XCTAssertEqual(third.file(for: path), Autosave(paths: paths).file(for: path))
        second.release()
        third.release()
    }

    func testEachOfTwoCrashedEditorsAutosavesIsOfferedInTurn() throws {
        let path = dir + "/song.tempera"
        try DocumentFile.save(.newDocument(), to: path)
        // Two editors on the file, each with its own unsaved change, end without a clean quit (their locks go).
        var first = Autosave(paths: paths), second = Autosave(paths: paths)
        XCTAssertNil(first.claim(for: path))
        XCTAssertNotNil(second.claim(for: path))
        let a = Session(document: .newDocument(), path: path), b = Session(document: .newDocument(), path: path)
        try a.run(.markerAdd(time: 0.3, amp: 0.5))
        try b.run(.markerAdd(time: 0.7, amp: 0.5))
        XCTAssertNil(first.write(a))
        XCTAssertNil(second.write(b))
        first.release()
        second.release()
        // The next start is offered the first one's work; recovered and saved, its recovery file goes.
        var next = Autosave(paths: paths)
        XCTAssertNil(next.claim(for: path))
        let offered = try XCTUnwrap(next.recoverable(for: path, loaded: try DocumentFile.load(path)))
        XCTAssertEqual(DocumentFile.encode(offered), DocumentFile.encode(a.document))
        try DocumentFile.save(offered, to: path)
        next.remove(for: path)
        next.release()
        // The start after that is offered the second one's.
        var again = Autosave(paths: paths)
        XCTAssertNil(again.claim(for: path))
        let second2 = try XCTUnwrap(again.recoverable(for: path, loaded: try DocumentFile.load(path)))
        XCTAssertEqual(DocumentFile.encode(second2), DocumentFile.encode(b.document))
        // Taken over: it is this editor's recovery file now, and no other is left to offer.
        XCTAssertTrue(FileManager.default.fileExists(atPath: again.file(for: path)))
        again.remove(for: path)
        XCTAssertNil(again.recoverable(for: path, loaded: try DocumentFile.load(path)))
        again.release()
    }

    func testTheAutosaveOfAnEditorStillRunningIsNotTakenOver() throws {
        let path = dir + "/song.tempera"
        try DocumentFile.save(.newDocument(), to: path)
        var running = Autosave(paths: paths), other = Autosave(paths: paths)
        XCTAssertNil(running.claim(for: path))
        let edited = Session(document: .newDocument(), path: path)
        try edited.run(.markerAdd(time: 0.3, amp: 0.5))
        XCTAssertNil(running.write(edited))
        XCTAssertNotNil(other.claim(for: path))
        XCTAssertNil(other.recoverable(for: path, loaded: try DocumentFile.load(path)))
        XCTAssertTrue(FileManager.default.fileExists(atPath: running.file(for: path)))
        running.release()
        other.release()
    }

    func testAutosaveFilesAreKeptApartPerDocument() {
        let a = Autosave(paths: paths)
        XCTAssertNotEqual(a.file(for: "/x/song.tempera"), a.file(for: "/y/song.tempera"))
        XCTAssertTrue(a.file(for: "/x/song.tempera").hasPrefix(dir + "/state/autosave/song.tempera-"))
        XCTAssertEqual(a.file(for: nil), dir + "/state/autosave/untitled.tempera")
    }

    func testQuitWithoutSavingRemovesTheAutosave() {
        let (editor, screen) = make()
        let file = editor.autosave.file(for: nil)
        press(editor, "right"); press(editor, "a")
        now = 6
        press(editor, "right")
        editor.autosave.flush()   // the copy is written in the background
        XCTAssertTrue(FileManager.default.fileExists(atPath: file))
        screen.feed(keys: "q n")
        XCTAssertTrue(editor.run())
        XCTAssertFalse(FileManager.default.fileExists(atPath: file))
    }
}

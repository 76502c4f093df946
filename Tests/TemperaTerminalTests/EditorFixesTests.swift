import XCTest
@testable import TemperaTerminal
import TemperaAudio
import TemperaCore
import TemperaPlayback

/// What a first real session of the editor found, each fixed and held here.
final class EditorFixesTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "tempera-fixes-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    // MARK: Amplitude of a selection

    func testShiftDownOnASelectionLowersItsSavedAmplitudeATenthAPressAsOneUndoStep() throws {
        let d = make()
        keys(d, "1 right a s enter")
        let track = d.session.currentTrack
        let picked = try XCTUnwrap(d.session.selectedMarkers(track: track).first)
        XCTAssertEqual(picked.amp, 0.8)
        keys(d, "S-down S-down S-down")
        XCTAssertEqual(d.view.message, "amp 0.5 on 1 marker")
        try d.runLine("save \(dir)/amp.tempera")
        let saved = try DocumentFile.load(dir + "/amp.tempera")
        XCTAssertEqual(saved.tracks[track].markers.first { $0.time == picked.time && $0.content == .clip(1) }?.amp, 0.5)
        keys(d, "u")
        XCTAssertEqual(d.session.document.tracks[track].markers.marker(id: picked.id)?.amp, 0.8)
    }

    // MARK: The rhythm designer's audition and focus

    func testTheDesignerIsHeardOnlyWhileItHasTheKeysAndTheTransportSaysSo() {
        let d = make(.demo())
        keys(d, "F4")
        XCTAssertEqual(d.view.focus, .tab)
        XCTAssertNotEqual(DesignerTab.playbackDocument(session: d.session, view: d.view), d.session.document)
        XCTAssertTrue(render(d.session, d.view, width: 120, height: 40).line(0).contains("auditioning track 1"))
        keys(d, "esc")
        XCTAssertEqual(d.view.focus, .timeline)
        XCTAssertEqual(d.view.tab, .designer)
        XCTAssertEqual(DesignerTab.playbackDocument(session: d.session, view: d.view), d.session.document)
        XCTAssertNil(DesignerTab.auditionKey(session: d.session, view: d.view))
        XCTAssertFalse(render(d.session, d.view, width: 120, height: 40).text.contains("auditioning"))
    }

    func testTheAuditionedLaneShowsTheAuditionGhosted() {
        let d = make(.demo())
        keys(d, "F4")
        let canvas = render(d.session, d.view, width: 120, height: 40)
        let rows = d.layout.rows(ofTrack: 0)!
        let heard = DesignerTab.playbackDocument(session: d.session, view: d.view).tracks[0].markers
        let ghost = heard.first { $0.time > 0.01 && $0.time < d.session.document.transport.loopEnd }!
        let c = d.view.viewport.column(of: ghost.time)
        XCTAssertEqual(canvas[rows.x + c, rows.maxY - 1].role, .dim)
    }

    func testWithTheDesignerFocusedRenameStaysGlobalAndTheFocusIsPlainToSee() {
        let d = make(.demo())
        keys(d, "F4")
        var canvas = render(d.session, d.view, width: 120, height: 40)
        let l = d.layout
        XCTAssertEqual(canvas[l.dividerX, l.toolsTitleRow + 2].role, .titleActive)
        XCTAssertTrue(canvas.line(39).contains("Esc: back to the timeline"), canvas.line(39))
        let designer = d.session.document.designer
        keys(d, "R")
        XCTAssertEqual(d.view.commandLabel, "rename track 1: ")
        type(d, "ng")
        keys(d, "enter")
        XCTAssertEqual(d.session.document.tracks[0].name, "ng")
        XCTAssertEqual(d.session.document.designer, designer)
        keys(d, "esc")
        canvas = render(d.session, d.view, width: 120, height: 40)
        XCTAssertEqual(canvas[l.dividerX, l.toolsTitleRow + 2].role, .border)
    }

    func testTheDesignerSliderFollowsAMouseDragAsOneUndoStep() {
        let d = make(.demo())
        keys(d, "F4")
        let r = d.layout.tabs
        let g = DesignerTab.Geometry(width: r.width, height: r.height)
        let before = d.session.document.designer.slider
        let steps = d.session.history.undoSteps.count
        d.handle(MouseEvent(.press, x: r.x + g.laneX + 2, y: r.y + g.slider))
        let pressed = d.session.document.designer.slider
        d.handle(MouseEvent(.drag, x: r.x + g.laneX + g.laneWidth - 3, y: r.y + g.slider + 1))
        d.handle(MouseEvent(.release, x: r.x + g.laneX + g.laneWidth - 3, y: r.y + g.slider + 1))
        XCTAssertLessThan(pressed, before)
        XCTAssertGreaterThan(d.session.document.designer.slider, pressed)
        XCTAssertEqual(d.session.history.undoSteps.count, steps + 1)
    }

    func testDesignerHintsHoldOnlyWholeKeys() {
        var view = ViewState(keyMap: .standard)
        view.designer.focus = .slider
        let all = DesignerTab.hints(state: view.designer, view: view)
        for width in [10, 20, 31, 44] {
            let shown = DesignerTab.hints(state: view.designer, view: view, width: width)
            XCTAssertLessThanOrEqual(shown.count, width)
            XCTAssertTrue(all.hasPrefix(shown))
            XCTAssertTrue(shown.isEmpty || all.count == shown.count || all.dropFirst(shown.count).hasPrefix("  "), shown)
        }
    }

    // MARK: Files

    func testSaveAsIntoAnotherFolderKeepsRelativeSamplesPointingAtTheSameFiles() throws {
        let a = dir + "/a", b = dir + "/b", inner = dir + "/a/b2"
        for f in [a, b, inner] { try FileManager.default.createDirectory(atPath: f, withIntermediateDirectories: true) }
        var doc = Document.newDocument()
        doc.slots[0].file = "sounds/kick.wav"
        doc.slots[1].file = "kit/snare.wav"
        let d = Dispatcher(session: Session(document: doc, path: a + "/song.tempera"), width: 120, height: 40, clock: { 0 })
        try d.runLine("save")
        XCTAssertEqual(d.session.document.slot(1).file, "sounds/kick.wav")
        try d.runLine("saveas \(b)/song.tempera")
        XCTAssertEqual(d.session.document.slot(1).file, a + "/sounds/kick.wav")
        XCTAssertEqual(try DocumentFile.load(b + "/song.tempera").slot(1).file, a + "/sounds/kick.wav")
        XCTAssertEqual(d.session.document.slot(2).file, "kit/snare.wav")
        XCTAssertFalse(d.session.isModified)
        XCTAssertEqual(PathRebase.rebase("x/y.wav", from: a, to: inner), a + "/x/y.wav")
        XCTAssertNil(PathRebase.rebase("/abs/y.wav", from: a, to: inner))
        XCTAssertEqual(PathRebase.rebase("b2/y.wav", from: a, to: inner), "y.wav")
        XCTAssertEqual(SamplePaths.resolve(d.session.document.slot(1).file!, baseDirectory: b), a + "/sounds/kick.wav")
    }

    func testSaveAsOffersThePathAndCtrlUClearsOnlyThePath() {
        let d = make()
        keys(d, "S")
        XCTAssertEqual(d.view.commandLine, "saveas untitled.tempera")
        keys(d, "C-u")
        XCTAssertEqual(d.view.commandLine, "saveas ")
        keys(d, "C-u")
        XCTAssertEqual(d.view.commandLine, "")
    }

    func testOpeningAPathInAMissingFolderSaysSoAtOnce() throws {
        let d = make()
        let before = d.session
        try d.runLine("e! \(dir)/nowhere/song.tempera")
        XCTAssertTrue(d.session === before)
        XCTAssertTrue(d.view.messageIsError)
        XCTAssertEqual(d.view.message, "no folder \(dir)/nowhere: a new file cannot be saved there")
    }

    func testABrokenSampleSlotIsMarkedInTheClipsTab() {
        let d = make()
        XCTAssertEqual(PlaybackController.slots(in: ["slot 3: cannot open 'x.wav'", "slot 12: bad", "other"]), [3, 12])
        d.view.brokenSlots = [3, 12]
        let canvas = render(d.session, d.view, width: 120, height: 40)
        let r = d.layout.tabs
        let grid = SlotGrid(rect: Rect(x: r.x, y: r.y, width: r.width, height: r.height - 1))
        XCTAssertEqual(canvas[grid.cell(3).x, grid.cell(3).y], Cell("!", .error))
        XCTAssertEqual(canvas[grid.cell(12).x + 2, grid.cell(12).y], Cell("!", .error))
        XCTAssertNotEqual(canvas[grid.cell(4).x, grid.cell(4).y].role, .error)
    }

    // MARK: Clicks, drags and sliders

    func testAClickWithTheDefaultToolPlacesTheChosenClipAsADoes() {
        let d = make()
        keys(d, "3")
        let l = d.layout, rows = l.rows(ofTrack: 0)!
        // Free placement: with the grid on, the click would land on the grid marker at 0 or 0.125.
        let count = d.session.document.tracks[0].markers.count
        // Between two grid markers: a new marker carrying clip 3.
        let free = d.view.viewport.column(of: 0.0625)
        d.handle(MouseEvent(.press, x: l.timeline.x + free, y: rows.y))
        d.handle(MouseEvent(.release, x: l.timeline.x + free, y: rows.y))
        let markers = d.session.document.tracks[0].markers
        XCTAssertEqual(markers.count, count + 1)
        XCTAssertEqual(markers.first { $0.time > 0 && $0.time < 0.125 }?.content, .clip(3))
        // On a grid marker: the clip goes onto it, no second marker.
        let on = d.view.viewport.column(of: 0.25)
        d.handle(MouseEvent(.press, x: l.timeline.x + on, y: rows.y))
        XCTAssertEqual(d.session.document.tracks[0].markers.count, count + 1)
        XCTAssertEqual(d.session.document.tracks[0].markers.first { $0.time == 0.25 }?.content, .clip(3))
    }

    func testAOnAMarkerPutsTheClipOnItInsteadOfStacking() {
        let d = make()
        let count = d.session.document.tracks[0].markers.count
        keys(d, "4 a")
        XCTAssertEqual(d.session.document.tracks[0].markers.count, count)
        XCTAssertEqual(d.session.document.tracks[0].markers[0].content, .clip(4))
        keys(d, "a")
        XCTAssertEqual(d.view.message, "clip 4 is already on the marker at 0.000 s")
    }

    func testADragThatMovesNothingSaysWhy() {
        let d = make()
        keys(d, "c m")
        let l = d.layout, rows = l.rows(ofTrack: 0)!
        d.handle(MouseEvent(.press, x: l.timeline.x + 5, y: rows.y))
        XCTAssertEqual(d.view.message, "nothing to drag here: in clip mode only markers holding clips move")
        keys(d, "d")
        d.handle(MouseEvent(.press, x: l.timeline.x + 5, y: rows.y))
        d.handle(MouseEvent(.drag, x: l.timeline.x + 9, y: rows.y))
        XCTAssertEqual(d.view.message, "a drag moves the selection with the shift (m) or scale (x) tool")
    }

    func testTheTempoSliderMovesInSmallStepsAndItsMiddleIsExactlyOne() {
        for width in [9, 13, 23] {
            var last = 0.0
            for c in 0..<width {
                let t = Slider.tempo(atFraction: Slider.fraction(atColumn: c, width: width))
                if c > 0 { XCTAssertLessThanOrEqual(t / last, width >= 23 ? 1.09 : 1.25, "\(width) columns, column \(c)") }
                last = t
            }
            XCTAssertEqual(Slider.tempo(atFraction: Slider.fraction(atColumn: (width - 1) / 2, width: width)), 1, "\(width)")
        }
    }

    // MARK: Mouse encodings

    func testSGRAndX10MouseReportsDecodeTheSame() {
        var a = InputDecoder(), b = InputDecoder()
        XCTAssertEqual(a.sgr("0;10;5", release: false), MouseEvent(.press, x: 9, y: 4, button: 1))
        XCTAssertEqual(b.x10(32, 33 + 9, 33 + 4), MouseEvent(.press, x: 9, y: 4, button: 1))
        XCTAssertEqual(a.sgr("32;12;5", release: false), MouseEvent(.drag, x: 11, y: 4, button: 1))
        XCTAssertEqual(b.x10(32 + 32, 33 + 11, 33 + 4), MouseEvent(.drag, x: 11, y: 4, button: 1))
        XCTAssertEqual(a.sgr("0;12;5", release: true), MouseEvent(.release, x: 11, y: 4, button: 1))
        XCTAssertEqual(b.x10(32 + 3, 33 + 11, 33 + 4), MouseEvent(.release, x: 11, y: 4, button: 1))
        XCTAssertEqual(a.sgr("64;3;3", release: false)?.kind, .wheelUp)
        XCTAssertEqual(a.sgr("65;3;3", release: false)?.kind, .wheelDown)
        XCTAssertEqual(a.sgr("2;300;70", release: false), MouseEvent(.press, x: 299, y: 69, button: 3))
        XCTAssertEqual(a.sgr("20;3;3", release: false), MouseEvent(.press, x: 2, y: 2, button: 1, shift: true, ctrl: true))
        var fresh = InputDecoder()
        XCTAssertNil(fresh.sgr("35;3;3", release: false), "motion with no button held")
        XCTAssertNil(a.sgr("0;3", release: false))
    }
}

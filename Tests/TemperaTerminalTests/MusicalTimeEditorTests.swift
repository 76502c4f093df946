import XCTest
@testable import TemperaTerminal
import TemperaCore

/// Musical time in the editor: BPM, the bars.beats ruler, the cursor grid, the limit of the marker under
/// the cursor, and the keys of everyday editing.
final class MusicalTimeEditorTests: XCTestCase {
    func testTheTransportShowsBPMAndTheFactor() throws {
        let d = make(.demo())
        XCTAssertTrue(render(d.session, d.view, width: 120, height: 40).line(1).contains("120 bpm ×1.00"))
        try d.runLine("bpm 90")
        XCTAssertEqual(d.session.document.transport.tempo, 0.75)
        XCTAssertTrue(render(d.session, d.view, width: 120, height: 40).line(1).contains(" 90 bpm ×0.75"))
    }

    func testTheRulerReadsBarsAndBeatsAndBTogglesSeconds() {
        let d = make(.demo())
        var canvas = render(d.session, d.view, width: 120, height: 40)
        let ruler = canvas.line(d.layout.ruler.y)
        XCTAssertTrue(ruler.contains("1.2"), ruler)
        XCTAssertTrue(ruler.contains("1.4"), ruler)
        keys(d, "b")
        canvas = render(d.session, d.view, width: 120, height: 40)
        XCTAssertTrue(canvas.line(d.layout.ruler.y).contains("┼0.2━━━━━━━┼0.4"))
        XCTAssertFalse(canvas.line(d.layout.ruler.y).contains("1.3"))
    }

    func testArrowsFollowTheGridAndTheFineKeysMoveAColumn() throws {
        let d = make(grid: 5)
        keys(d, "right right")
        XCTAssertEqual(d.session.cursor, 0.2, accuracy: 1e-12)
        keys(d, "right right right")
        XCTAssertEqual(d.session.cursor, 0.5, "five fifths are exactly a beat")
        keys(d, "S-right")
        XCTAssertEqual(d.session.cursor, 0.5 + d.view.viewport.secondsPerColumn, accuracy: 1e-12)
        keys(d, "left")
        XCTAssertEqual(d.session.cursor, 0.5)
        keys(d, ";")
        XCTAssertEqual(d.session.document.transport.grid, 6)
    }

    func testAClickLandsOnTheNearestGridPointAndAltPlacesFreely() throws {
        let d = make(grid: 3)
        let l = d.layout, rows = l.rows(ofTrack: 1)!
        let x = l.timeline.x + d.view.viewport.column(of: 0.17)
        d.handle(MouseEvent(.press, x: x, y: rows.y))
        XCTAssertEqual(d.session.cursor, 0.5 / 3)
        XCTAssertTrue(d.session.document.tracks[1].markers.contains { $0.time == 0.5 / 3 && $0.content == .clip(1) })
        d.handle(MouseEvent(.release, x: x, y: rows.y))
        d.handle(MouseEvent(.press, x: x, y: rows.y, alt: true))
        XCTAssertNotEqual(d.session.cursor, 0.5 / 3)
    }

    func testTheMarkerUnderTheCursorShowsItsLimitAndOffGridClipsStandOut() throws {
        var doc = fiveTracks([(1.0 / 3 + 0.5, 0.8, .clip(1)), (1.0 + 0.0012, 0.8, .clip(2)), (1.03, 0.8, .clip(3))])
        doc.transport.length = 2
        doc.transport.loopEnd = 2
        let s = Session(document: doc)
        s.cursor = 0.5 + 1.0 / 3
        var view = ViewState(viewport: Viewport(start: 0, secondsPerColumn: 0.02))
        XCTAssertEqual(TimelinePane.annotation(session: s, view: view, ascii: false), "bar 1 beat 2 + 2/3 (0.0 ms)")
        s.cursor = 1.0012
        XCTAssertEqual(TimelinePane.annotation(session: s, view: view, ascii: false), "bar 1 beat 3 (+1.2 ms)")
        XCTAssertEqual(TimelinePane.limitText(SubdivisionLimit(time: 0.9988, transport: doc.transport), ascii: true),
                       "bar 1 beat 3 (-1.2 ms)")
        let canvas = render(s, view)
        let l = Layout(width: 80, height: 24, trackCount: 5)
        let rows = l.rows(ofTrack: 0)!
        XCTAssertTrue(canvas.line(l.timelineTitleRow).contains("bar 1 beat 3 (+1.2 ms)"))
        // 1.03 s is 2.06 beats: no division up to 9 within 6 ms, so it is drawn apart.
        XCTAssertEqual(canvas[rows.x + view.viewport.column(of: 1.03), rows.maxY - 2].role, .accent)
        XCTAssertEqual(canvas[rows.x + view.viewport.column(of: 1.0012), rows.maxY - 2].role, .marker)
        view.rulerSeconds = true
    }

    func testEverydayEditingKeysAreCommands() throws {
        let d = make()
        keys(d, "*")
        keys(d, "=")
        XCTAssertEqual(d.view.commandLine, "amp ")
        type(d, "0.3")
        keys(d, "enter")
        XCTAssertTrue(d.session.document.tracks[0].markers.allSatisfy { $0.amp == 0.3 })
        keys(d, "y")
        XCTAssertNotNil(d.session.clipboard)
        keys(d, "k")
        XCTAssertTrue(d.session.document.transport.click)
        XCTAssertEqual(d.view.message, "metronome on")
        keys(d, "k")
        XCTAssertFalse(d.session.document.transport.click)
    }

    func testRenderWritesTheFileOffTheEditorThreadWithAProgressBar() throws {
        let dir = NSTemporaryDirectory() + "tempera-render-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let d = make(.demo())
        keys(d, "C-e")
        XCTAssertEqual(d.view.commandLine, "render untitled.wav")
        keys(d, "C-u")
        type(d, dir + "/demo.wav")
        keys(d, "enter")
        XCTAssertNotNil(d.view.render)
        var view = d.view
        view.render?.fraction = 0.5
        XCTAssertTrue(render(d.session, view).line(23).contains("rendering demo.wav ["), render(d.session, view).line(23))
        XCTAssertTrue(render(d.session, view).line(23).contains("] 50%"))
        d.waitForRender()
        XCTAssertNil(d.view.render)
        XCTAssertEqual(d.view.message, "rendered \(dir)/demo.wav")
        let size = try FileManager.default.attributesOfItem(atPath: dir + "/demo.wav")[.size] as? Int ?? 0
        // Two seconds of 24-bit stereo at 48 kHz and more.
        XCTAssertGreaterThan(size, 2 * 48_000 * 6)
    }
}

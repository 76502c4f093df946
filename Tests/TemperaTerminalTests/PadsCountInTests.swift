import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest
@testable import TemperaTerminal

/// The Pads tab during the count-in before a take: the record line counts the beats down, and a pad played then
/// sounds but is not recorded, which the status line says. And a take while the song plays.
final class PadsCountInTests: XCTestCase {
    /// The Pads tab's record line as drawn now.
    func recordLine(_ d: Dispatcher) -> String {
        let c = render(d.session, d.view, width: 100, height: 30)
        return (0..<30).map { c.line($0) }.first { $0.contains("vel") } ?? ""
    }

    func testTheCountInBeforeATakeCountsItsBeatsDownOnTheRecordLineAndAPadThenIsNotRecorded() throws {
        // One bar of three 0.5 s beats of count-in, the click on.
        var doc = Document.demo()
        doc.transport.tempo = 1
        doc.transport.beat = 0.5
        doc.transport.meter = 3
        doc.transport.click = true
        doc.transport.countIn = 1
        let (editor, d, engine, done) = padsEditor(doc)
        defer { done() }
        func press(_ names: String) { editor.process(Key.sequence(names).map { .key($0) }) }
        let before = d.session.document
        press("F7 enter space")
        XCTAssertTrue(d.session.takeOpen)
        _ = pump(engine, 256)             // the first beat sounds
        editor.process([.resize])
        XCTAssertEqual(d.view.transport.countIn, 3)
        XCTAssertTrue(recordLine(d).hasSuffix("│ velocity 80% · ● count-in 3: not recording yet      │"), "[" + recordLine(d) + "]")
        XCTAssertEqual(PadsTab.recordText(session: d.session, view: d.view, Glyphs.utf8).2, .warning)
        _ = pump(engine, 24_000)          // 0.5 s: the second beat
        editor.process([.resize])
        XCTAssertEqual(d.view.transport.countIn, 2)
        XCTAssertTrue(recordLine(d).contains("● count-in 2: not recording yet"), recordLine(d))
        press("q")
        XCTAssertEqual(d.view.message, "pad 5 clap 80% (count-in: not recorded)")
        XCTAssertEqual(d.view.takeHits, 0)
        _ = pump(engine, 24_000)          // 1 s: the last beat
        editor.process([.resize])
        XCTAssertEqual(d.view.transport.countIn, 1)
        XCTAssertTrue(recordLine(d).contains("● count-in 1: not recording yet"), recordLine(d))
        _ = pump(engine, 24_000)          // 1.5 s: the music starts, and the take with it
        editor.process([.resize])
        XCTAssertNil(d.view.transport.countIn)
        XCTAssertTrue(recordLine(d).contains("● recording: 0 hits"), recordLine(d))
        _ = pump(engine, 4_800)
        press("w")
        XCTAssertTrue(d.view.message?.hasPrefix("pad 6 rim 80% recorded at 0.1") == true, d.view.message ?? "")
        press("space")
        XCTAssertEqual(d.view.message, "take: 1 hit recorded, one undo step (u undoes)")
        let added = d.session.document.tracks.flatMap { t in t.markers.filter { m in !before.tracks.contains { $0.markers.contains(m) } } }
        XCTAssertEqual(added.map(\.content), [.clip(6)], "the pad of the count-in is not in the take")
    }

    func testWithoutATakeTheCountInIsNotOnTheRecordLine() {
        var view = ViewState()
        view.tab = .pads
        view.transport.countIn = 2
        let session = Session(document: .demo())
        XCTAssertEqual(PadsTab.recordText(session: session, view: view, Glyphs.utf8).0, "record off")
        session.recordArmed = true
        XCTAssertEqual(PadsTab.recordText(session: session, view: view, Glyphs.utf8).0,
                       "● count-in 2: not recording yet")
        view.ascii = true
        view.transport.countIn = 0
        XCTAssertEqual(PadsTab.recordText(session: session, view: view, Glyphs.ascii).1, "* starting")
    }

    func testATakeWhileTheSongPlaysRecordsAHitInTheRegionOfTheSectionHeardAtItsTimeThere() throws {
        // A [0,1) once at x1 (1 s), then B [2,3) twice at x2 (0.5 s a pass): B's second pass starts at 1.5 s.
        var doc = Document.demo()
        doc.transport.tempo = 1
        doc.transport.length = 3
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 1, repeats: 1, tempo: 1),
                                   Song.Section(name: "B", start: 2, end: 3, repeats: 2, tempo: 2)], on: true)
        let (editor, d, engine, done) = padsEditor(doc)
        defer { done() }
        func press(_ names: String) { editor.process(Key.sequence(names).map { .key($0) }) }
        let before = d.session.document
        press("F7 enter space")
        _ = pump(engine, 78_000)          // 1.625 s: B's second pass, 0.125 s in at x2
        press("q")
        press("space")
        XCTAssertEqual(d.view.message, "take: 1 hit recorded, one undo step (u undoes)")
        let added = d.session.document.tracks.flatMap { t in t.markers.filter { m in !before.tracks.contains { $0.markers.contains(m) } } }
        XCTAssertEqual(added.map(\.content), [.clip(5)])
        XCTAssertEqual(added.first?.time ?? 0, 2.25, accuracy: 0.02, "in B's region [2,3), not in A's, not at its start")
    }
}

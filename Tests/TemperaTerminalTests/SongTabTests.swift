import XCTest
@testable import TemperaTerminal
import TemperaCore

/// The Song tab, the transport's song text and the ruler's section marks.
final class SongTabTests: XCTestCase {
    /// The demo with three sections: A = [0, 2) x2, B = [1, 1.5) x3 at x1.25, A again.
    func songSession(on: Bool = true) throws -> Session {
        let s = Session(document: .demo())
        for line in ["section add", "section add B 1 1.5 x3 tempo=1.25", "section add A 0 2"] { try s.run(line: line) }
        if on { try s.run(line: "song on") }
        return s
    }

    func testTheTabListsEachSectionWithItsRegionInBarsRepeatsBPMAndLength() throws {
        var view = ViewState()
        view.tab = .song
        let c = render(try songSession(), view, width: 120, height: 40)
        XCTAssertTrue(c.line(31).hasSuffix("│   #  name    region    ×     bpm    length    │"))
        XCTAssertTrue(c.line(32).hasSuffix("│ ▶ 1  A       1.1–2.1   ×1    120    2.000 s   │"), "the cursor's row")
        XCTAssertTrue(c.line(33).hasSuffix("│   2  B       1.3–1.4   ×3    150*   1.200 s   │"), "* marks its own tempo")
        XCTAssertTrue(c.line(34).hasSuffix("│   3  A       1.1–2.1   ×1    120    2.000 s   │"))
        XCTAssertTrue(c.line(37).hasSuffix("│ song on · loop off · 3 sections, 5.200 s      │"))
        XCTAssertTrue(c.line(30).contains("┬─ clips  groups  rhythm designer [song]"))
        XCTAssertEqual(c.role(of: "1  A", inRow: 32), .toolActive)
    }

    func testTheSectionPlayingShowsItsPassAndTheTransportSaysSongAndPass() throws {
        var view = ViewState()
        view.tab = .song
        view.transport.song = SongTab.Playing(section: 1, pass: 2, songPass: 0)
        let c = render(try songSession(), view)
        XCTAssertTrue(c.line(1).hasPrefix("│ ⏮ ⏸ paused  ♪ song 2/3 · pass 3/3  120 bpm"), c.line(1))
        XCTAssertTrue(c.line(17).hasSuffix("│   2  B       1.3–1.4   3/3      │"))
        XCTAssertEqual(c.role(of: "2  B", inRow: 17), .playing)
        XCTAssertTrue(c.line(14).hasSuffix("┬─clips groups rhythm [song] pads─┤"), "short titles at 80 columns")
        // With the song off, the transport shows the loop again, and the section's row is not highlighted.
        let off = render(try songSession(on: false), view)
        XCTAssertTrue(off.line(1).contains("⟲ 0.000–2.000  120 bpm"), off.line(1))
        XCTAssertEqual(off.role(of: "2  B", inRow: 17), .tool)
    }

    func testALoopingSongCountsItsOwnPasses() {
        let song = Song(sections: [Song.Section(name: "A", start: 0, end: 1, repeats: 4)], on: true, loop: true)
        XCTAssertEqual(SongTab.transportText(song, SongTab.Playing(section: 0, pass: 2, songPass: 1), .utf8),
                       "song 1/1 · pass 3/4 · loop 2")
        XCTAssertEqual(SongTab.transportText(song, nil, .ascii), "song 1/1 | pass 1/4")
    }

    func testTheRulerMarksWhereEachSectionsRegionStarts() throws {
        var view = ViewState()
        view.rulerSeconds = true
        view.transport.song = SongTab.Playing(section: 1, pass: 0, songPass: 0)
        let c = render(try songSession(), view, width: 120, height: 40)
        XCTAssertTrue(c.line(3).hasPrefix("│          │▼1,3━━━━━━┼0.25━━━━━┼0.50━━━━━┼0.75━━━━━♪2━━━━━━━━┼1.25"))
        XCTAssertEqual(c.role(of: "♪2", inRow: 3), .playing)
    }

    func testAnEmptySongSaysHowToStartOne() {
        var view = ViewState()
        view.tab = .song
        view.keyHints["song.add"] = "a"
        let c = render(Session(document: .demo()), view)
        XCTAssertTrue(c.line(21).hasSuffix("│ no section: a adds the loop re… │"), c.line(21))
    }
}

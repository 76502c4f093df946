import XCTest
@testable import TemperaTerminal
import TemperaCore

/// The designer as it appears in the whole editor screen.
final class DesignerTabScreenTests: XCTestCase {
    private func screen(_ s: Session, _ v: ViewState, width: Int = 80, height: Int = 24) -> Canvas {
        var c = Canvas(width: width, height: height)
        EditorView.draw(session: s, view: v, into: &c)
        return c
    }

    /// The tab area's text, row by row, trailing blanks trimmed.
    private func tabArea(_ c: Canvas, _ s: Session, _ v: ViewState) -> [String] {
        let l = EditorView.layout(session: s, view: v, width: c.width, height: c.height)
        return (0..<l.tabs.height).map { dy in
            var row = String(Array(c.line(l.tabs.y + dy))[l.tabs.x..<l.tabs.maxX])
            while row.last == " " { row.removeLast() }
            return row
        }
    }

    func testEightyByTwentyFourShowsTheDefaultTemperamentInTheTabArea() {
        let s = Session(document: Document(tracks: [Track(name: "a")]))
        let v = ViewState(tab: .designer, focus: .tab)
        let c = screen(s, v)
        XCTAssertEqual(Array(tabArea(c, s, v).prefix(6)), [
            "  top 7 ●  ●  ·  ●  ●  ·  ●",
            " result ●  ●     ●  ●     ●",
            "  bot 5 ●   ●   ●    ●   ●",
            "▸s 0.50 ─────0━━━━━●────1─────",
            " ioi ms 343 486 343 486 343",
            "    map 0-0 1-1 3-2 4-3 6-4",
        ])
    }

    func testSliderStepsRedrawTheDotsAndIntervals() throws {
        let s = Session(document: Document(tracks: [Track(name: "a")]))
        var v = ViewState(tab: .designer, focus: .tab)
        try s.run(.temperPreset("swing"))
        _ = try DesignerTab.handle(action: "designer.slider.one", session: s, state: &v.designer)
        let rows = tabArea(screen(s, v), s, v)
        XCTAssertEqual(rows[1], " result ●             ●")
        XCTAssertEqual(rows[3], "▸s 1.00 ─────0━━━━━━━━━━●─────")
        XCTAssertEqual(rows[4], " ioi ms 333 167  swing 2.00:1")
    }

    func testClicksInTheTabAreaComeBackRelativeToIt() {
        let s = Session(document: Document(tracks: [Track(name: "a")]))
        let v = ViewState(tab: .designer, focus: .tab)
        let l = EditorView.layout(session: s, view: v, width: 80, height: 24)
        XCTAssertEqual(EditorView.hitTest(x: l.tabs.x + 9, y: l.tabs.y + 3, session: s, view: v, size: (80, 24)),
                       .designer(x: 9, y: 3))
    }
}

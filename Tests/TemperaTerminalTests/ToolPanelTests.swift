import XCTest
@testable import TemperaTerminal
import TemperaCore

final class ToolPanelTests: XCTestCase {
    static let keys: [String: String] = [
        "mode.clip": "c", "mode.snap": "n", "subdivision": "N",
        "tool.drawSingle": "d", "tool.drawGroup": "g", "tool.typing": "t", "tool.fill": "f",
        "tool.select": "p", "tool.hold": "h", "tool.allLeft": "[", "tool.allRight": "]",
        "tool.patternSelect": "P", "tool.shift": "s", "tool.scale": "S", "tool.subdivide": "v",
        "tool.rotate": "r", "tool.reverse": "R", "tool.delete": "x",
    ]

    func panel(_ session: Session, _ view: ViewState, width: Int = 80) -> [String] {
        let canvas = render(session, view, width: width)
        let l = Layout(width: width, height: 24, trackCount: session.document.tracks.count)
        return (l.tools.y..<l.tools.maxY).map { String(canvas.line($0).dropFirst(2).prefix(l.tools.width)) }
    }

    func testEveryToolShowsTheKeyTheKeyMapGivesIt() {
        var view = ViewState()
        view.keyHints = Self.keys
        let rows = panel(Session(document: .demo()), view)
        XCTAssertEqual(rows, [
            "mode   c  clip   n [snap]   N subdivide n=1",
            "draw   d single  g group  t typing         ",
            "fill   f pattern  1 - 3x2 +                ",
            "select p pick  h hold  [ all◀  ] all▶      ",
            "       P pattern                           ",
            "modify s shift  S scale  v subdivide       ",
            "       r rotate  R reverse  x delete       ",
        ])
    }

    func testKeysComeFromTheMapSoARebindingShows() {
        var view = ViewState()
        view.keyHints = Self.keys
        view.keyHints["tool.shift"] = "M-s"
        let rows = panel(Session(document: .demo()), view)
        XCTAssertTrue(rows[5].hasPrefix("modify M-s shift  S scale"))
    }

    func testWithoutKeysToolsStillShowTheirNames() {
        let rows = panel(Session(document: .demo()), ViewState())
        XCTAssertEqual(rows[1], "draw   single  group  typing               ")
        XCTAssertEqual(rows[3], "select pick  hold  all◀  all▶  pattern     ")
        XCTAssertEqual(rows[4], "modify shift  scale  subdivide  rotate     ")
        XCTAssertEqual(rows[5], "       reverse  delete                     ")
    }

    func testActiveToolIsHighlighted() {
        var view = ViewState()
        view.tool = .scale
        let canvas = render(Session(document: .demo()), view)
        XCTAssertEqual(canvas.role(of: "scale", inRow: 19), .toolActive)
        XCTAssertEqual(canvas.role(of: "shift", inRow: 19), .tool)
        XCTAssertEqual(canvas.role(of: "single", inRow: 16), .tool)
    }

    func testClipModeAndSnapShowTheirStateInTextAndRole() {
        let session = Session(document: .demo())
        session.clipMode = true
        session.snap = false
        let canvas = render(session)
        XCTAssertTrue(canvas.line(15).hasPrefix("│ mode   [clip]   snap "))
        XCTAssertEqual(canvas.role(of: "[clip]", inRow: 15), .toolActive)
        XCTAssertEqual(canvas.role(of: "snap", inRow: 15), .tool)
    }

    func testPatternAreaShowsTheCodeBeingTypedWithACursor() {
        var view = ViewState()
        view.tool = .fill
        view.prompt = Prompt("1x2 - 3", purpose: .pattern(.fill))
        let canvas = render(Session(document: .demo()), view)
        XCTAssertTrue(canvas.line(17).hasPrefix("│ fill   pattern  1x2 - 3▏ "))
        XCTAssertEqual(canvas.role(of: "1x2 - 3", inRow: 17), .pattern)
        XCTAssertEqual(canvas.role(of: "▏", inRow: 17), .cursor)
        XCTAssertEqual(canvas.role(of: "pattern", inRow: 17), .toolActive)
    }

    func testLongTypedPatternKeepsItsEndInView() {
        var view = ViewState()
        view.prompt = Prompt(String(repeating: "1 ", count: 30) + "end", purpose: .pattern(.fill))
        let row = render(Session(document: .demo()), view).line(17)
        XCTAssertTrue(row.hasPrefix("│ fill   pattern  …1 1 1 "))
        XCTAssertTrue(row.contains(" 1 1 end▏│ "))
    }

    func testEmptyDocumentPatternSaysSo() {
        var doc = Document.demo()
        doc.pattern = ""
        XCTAssertTrue(render(Session(document: doc)).line(17).hasPrefix("│ fill   pattern  (no code) "))
    }

    func testWidePanelKeepsEachSectionOnOneRow() {
        var view = ViewState()
        view.keyHints = Self.keys
        let canvas = render(Session(document: .demo()), view, width: 120, height: 40)
        XCTAssertTrue(canvas.line(34).hasPrefix("│ select p pick  h hold  [ all◀  ] all▶  P pattern "))
        XCTAssertTrue(canvas.line(35).hasPrefix("│ modify s shift  S scale  v subdivide  r rotate  R reverse  x delete "))
    }

    func testAsciiPanelArrowsArePlain() {
        var view = ViewState()
        view.ascii = true
        XCTAssertTrue(render(Session(document: .demo()), view).line(18).hasPrefix("| select pick  hold  all<  all>  pattern "))
    }
}

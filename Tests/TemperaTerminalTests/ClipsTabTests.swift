import XCTest
@testable import TemperaTerminal
import TemperaCore

final class ClipsTabTests: XCTestCase {
    func tab(_ canvas: Canvas, width: Int = 80) -> [String] {
        let l = Layout(width: canvas.width, height: canvas.height, trackCount: 5)
        return (l.tabs.y..<l.tabs.maxY).map { String(canvas.line($0).dropFirst(l.tabs.x).prefix(l.tabs.width)) }
    }

    func testSixteenSlotsDownThreeColumnsThenHoldRestRandom() {
        let rows = tab(render(Session(document: .demo())))
        XCTAssertEqual(rows, [
            " 1 kick    7 low-t… 13 crash   ",
            " 2 snare   8 mid-t… 14 clave   ",
            " 3 close…  9 high-… 15 woodb…  ",
            " 4 open-… 10 cowbe… 16 conga   ",
            " 5 clap   11 shaker            ",
            " 6 rim    12 ride              ",
            "+ hold  - rest  ? random       ",
        ])
    }

    func testASoundFontSlotShowsItsNoteAsSf() {
        var bass = ClipSlot(name: "bass", note: 40, mode: .gate)
        bass.soundFont = "default"
        XCTAssertEqual(ClipsTab.cellText(3, bass, width: 24, .utf8), " 3 bass        gate sf40")
        XCTAssertEqual(ClipsTab.cellText(3, ClipSlot(name: "mallet", note: 72), width: 24, .utf8), " 3 mallet            n72")
    }

    func testChosenClipIsHighlighted() {
        let session = Session(document: .demo())
        session.chosenClip = .clip(11)
        let canvas = render(session)
        XCTAssertEqual(canvas.role(of: "11 shaker", inRow: 19), .toolActive)
        XCTAssertEqual(canvas.role(of: " 5 clap", inRow: 19), .toolKey)
        XCTAssertEqual(canvas.role(of: "clap", inRow: 19), .tool)
    }

    func testChosenHoldIsHighlightedOnTheLastLine() {
        let session = Session(document: .demo())
        session.chosenClip = .hold
        let canvas = render(session)
        XCTAssertEqual(canvas.role(of: "+ hold", inRow: 21), .toolActive)
        XCTAssertEqual(canvas.role(of: "- rest", inRow: 21), .toolKey)
    }

    func testSlotDetailsShowGateNoteAndGainWhenWide() {
        var doc = Document.demo()
        doc.slots[0] = ClipSlot(name: "bass", file: "b.wav", note: 48, gain: 0.5, mode: .gate)
        doc.slots[1] = ClipSlot()
        let narrow = tab(render(Session(document: doc)))
        XCTAssertEqual(narrow[0].prefix(10), " 1 bass   ", "a narrow cell keeps the name")
        XCTAssertEqual(narrow[1].prefix(10), " 2 –      ")
        let medium = tab(render(Session(document: doc), width: 120, height: 40), width: 120)
        XCTAssertEqual(medium[0].prefix(15), " 1 bass  g n48 ")
        let wide = tab(render(Session(document: doc), width: 200, height: 40), width: 200)
        XCTAssertTrue(wide[0].hasPrefix(" 1 bass"))
        XCTAssertTrue(wide[0].contains("gate n48 ×0.50"))
    }

    func testSlotDetailsShowLayersPanAndChokeGroup() {
        var doc = Document.demo()
        doc.slots[0] = ClipSlot(name: "snare", layers: [ClipSlot.Layer(file: "a.wav"), ClipSlot.Layer(file: "b.wav"),
                                                         ClipSlot.Layer(file: "c.wav")], pan: -0.5, choke: 2)
        let wide = tab(render(Session(document: doc), width: 200, height: 40), width: 200)
        XCTAssertTrue(wide[0].hasPrefix(" 1 snare"))
        XCTAssertTrue(wide[0].contains("3v <50 c2"), wide[0])
    }

    func testEmptySlotIsDim() {
        var doc = Document.demo()
        doc.slots[5] = ClipSlot()
        let canvas = render(Session(document: doc))
        XCTAssertEqual(canvas[50, 20], Cell("–", .dim))
    }
}

import XCTest
@testable import TemperaTerminal
import TemperaCore

/// A linked instance on the timeline: a framed block named after its group, its markers labelled.
final class InstanceTimelineTests: XCTestCase {
    func testAnInstanceIsDrawnAsAFramedBlockWithItsGroupsName() throws {
        // Clip 1 and clip 12 a tenth of a second apart make group 3 (span 0.2 s); placed twice on track 2 at 0.2 s.
        var doc = fiveTracks([])
        doc.groups[3] = Group(elements: [GroupElement(offset: 0, amp: 1, content: .clip(1)),
                                         GroupElement(offset: 0.1, amp: 1, content: .clip(12))], span: 0.2)
        let s = Session(document: doc)
        try s.run(line: "place group 3 at=0.2 track=2 times=2")
        let canvas = render(s, tenMillisecondView())
        let rows = try XCTUnwrap(EditorView.layout(session: s, view: tenMillisecondView(), width: 80, height: 24).rows(ofTrack: 1))
        // 10 ms a column from screen column 12: the block runs from 0.2 s (column 32) to 0.6 s (column 72).
        let top = canvas.line(rows.y)
        XCTAssertEqual(String(Array(top)[32...37]), "[G3×2─", top)
        XCTAssertEqual(canvas[32, rows.y].role, .accent)
        let labels = canvas.line(rows.maxY - 1)
        XCTAssertEqual(Array(labels)[32], "1")
        XCTAssertEqual(Array(labels)[42], "@", "clip 12 a tenth of a second later")
        XCTAssertEqual(Array(labels)[52], "1", "the second pass")
        XCTAssertEqual(Array(top)[71], "]", "the block ends where the instance does")
    }
}

import XCTest
@testable import TemperaTerminal
import TemperaCore

/// The demo with group 2 (three elements over two tracks) and group 12 filled.
func groupsDocument() -> Document {
        var doc = Document.demo()
        doc.groups[2] = Group(elements: [GroupElement(offset: 0, amp: 1, content: .clip(1)),
                                         GroupElement(offset: 0.25, amp: 1, content: .clip(2)),
                                         GroupElement(offset: 0.5, trackOffset: 1, amp: 1, content: nil)],
                              span: 0.75)
        doc.groups[12] = Group(elements: [GroupElement(offset: 0, amp: 1, content: nil)], span: 12.5)
        return doc
}

final class GroupsTabTests: XCTestCase {

    func testGroupSlotsShowElementCountsAndSpans() {
        var view = ViewState()
        view.tab = .groups
        let canvas = render(Session(document: groupsDocument()), view)
        XCTAssertTrue(canvas.line(15).hasSuffix("│  1 –       7 –      13 –        │"))
        XCTAssertTrue(canvas.line(16).hasSuffix("│  2 3 0.75  8 –      14 –        │"), "a narrow cell drops the unit")
        XCTAssertTrue(canvas.line(20).hasSuffix("│  6 –      12 1 12.5             │"))
        let wide = render(Session(document: groupsDocument()), view, width: 120, height: 40)
        XCTAssertTrue(wide.line(32).contains("│  2 3 0.75s      8 –"))
        XCTAssertTrue(canvas.line(14).contains("┬─clips [groups] rhythm song pads─┤"))
    }

    func testChosenGroupIsHighlightedAndDescribed() {
        var view = ViewState()
        view.tab = .groups
        view.chosenGroup = 2
        let canvas = render(Session(document: groupsDocument()), view)
        XCTAssertEqual(canvas.role(of: " 2 3 0.75", inRow: 16), .toolActive)
        XCTAssertEqual(canvas.role(of: " 1 –", inRow: 15), .toolKey)
        XCTAssertTrue(canvas.line(21).hasSuffix("│ group 2: 3 markers over 0.750 … │"))
    }

    func testSummaryOfAGroupOverSeveralTracks() {
        let doc = groupsDocument()
        XCTAssertEqual(GroupsTab.summary(2, doc.groups), "group 2: 3 markers over 0.750 s, 2 tracks")
        XCTAssertEqual(GroupsTab.summary(12, doc.groups), "group 12: 1 marker over 12.500 s")
        XCTAssertEqual(GroupsTab.summary(5, doc.groups), "group 5 is empty: select markers and store")
    }

    func testSpansAreShortForCells() {
        XCTAssertEqual(GroupsTab.span(0.75), "0.75s")
        XCTAssertEqual(GroupsTab.span(2), "2s")
        XCTAssertEqual(GroupsTab.span(12.5), "12.5s")
        XCTAssertEqual(GroupsTab.span(0.125), "0.125s")
    }
}

import XCTest
@testable import TemperaTerminal

final class CanvasTests: XCTestCase {
    func testFillIsClippedToTheCanvasEvenEntirelyOutsideIt() {
        var c = Canvas(width: 4, height: 2)
        c.fill(x: 2, y: 1, width: 5, height: 5, "#")
        XCTAssertEqual(c.text, "\n  ##")
        c.fill(x: 10, y: 10, width: 3, height: 3, "!")
        c.fill(x: -5, y: -5, width: 2, height: 2, "!")
        XCTAssertEqual(c.text, "\n  ##")
    }

    func testPutClipsAndReportsTheNextColumn() {
        var c = Canvas(width: 5, height: 1)
        XCTAssertEqual(c.put(-1, 0, "abcdefg"), 5)
        XCTAssertEqual(c.text, "bcdef")
        XCTAssertEqual(c.put(0, 3, "xyz"), 3, "a row outside draws nothing")
    }

    func testBlitCopiesCellsWithTheirRolesClipped() {
        var c = Canvas(width: 3, height: 1)
        var sub = Canvas(width: 2, height: 1)
        sub.put(0, 0, "ok", .accent)
        c.blit(sub, x: 2, y: 0)
        XCTAssertEqual(c.text, "  o")
        XCTAssertEqual(c[2, 0].role, .accent)
    }
}

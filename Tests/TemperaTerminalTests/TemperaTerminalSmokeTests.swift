import XCTest
@testable import TemperaTerminal
import TemperaCore

final class TemperaTerminalSmokeTests: XCTestCase {
    func testNewDocumentStartsFromAPresetGrid() {
        let doc = Document.newDocument()
        XCTAssertEqual(doc.tracks.count, 4)
        XCTAssertEqual(doc.tracks[0].markers.count, 16)
    }
}

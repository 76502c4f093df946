import XCTest
@testable import TemperaCore
import TemperaCore

final class TemperaCoreSmokeTests: XCTestCase {
    func testNewDocumentStartsFromAPresetGrid() {
        let doc = Document.newDocument()
        XCTAssertEqual(doc.tracks.count, 4)
        XCTAssertEqual(doc.tracks[0].markers.count, 16)
    }
}

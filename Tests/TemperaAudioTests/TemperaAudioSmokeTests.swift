import XCTest
@testable import TemperaAudio
import TemperaCore

final class TemperaAudioSmokeTests: XCTestCase {
    func testNewDocumentStartsFromAPresetGrid() {
        let doc = Document.newDocument()
        XCTAssertEqual(doc.tracks.count, 4)
        XCTAssertEqual(doc.tracks[0].markers.count, 16)
    }
}

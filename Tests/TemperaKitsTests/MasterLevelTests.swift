import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaKits
import XCTest

/// The master never clips: the demo and the loudest Hydrogen demo songs (with their real kits) peak at most at
/// its ceiling (-0.3 dBFS), so the soft clip above it never touches them; a song that stays below the ceiling
/// passes untouched.
final class MasterLevelTests: XCTestCase {
    func testTheDemoPeaksBelowTheSoftClip() throws {
        let doc = Document.demo()
        let renderer = OfflineRenderer(document: doc, baseDirectory: nil, loops: 2, maxTail: 1)
        XCTAssertEqual(renderer.warnings, [])
        let peak = renderer.renderAll().map(abs).max() ?? 0
        print(String(format: "demo: peak %.4f (%.2f dBFS) at volume %.2f", peak, 20 * log10(peak), doc.transport.volume))
        XCTAssertGreaterThan(peak, 0.3)
        XCTAssertLessThanOrEqual(peak, RenderState.clipKnee, "the demo reaches the soft clip")
    }

    /// The three loudest of the seven at Hydrogen's levels: demo2 peaks at 0.88, below the ceiling, and is not
    /// limited at all; demo3 and the TR-808 demo pass it (Hydrogen itself clips the latter) and are held at it.
    /// (The other four peak at 0.51-0.72.)
    func testTheLoudestHydrogenDemoSongsWithTheirKitsPeakAtMostAtTheSoftClipsKnee() throws {
        let songs = ["GM_kit_demo2", "GM_kit_demo3", "TR808kit-demo"].map { "/usr/share/hydrogen/data/demo_songs/\($0).h2song" }
        guard songs.allSatisfy(FileManager.default.fileExists(atPath:)) else {
            throw XCTSkip("skipped: needs Hydrogen's demo songs (Debian's hydrogen-data)")
        }
        for song in songs {
            let (doc, _) = try HydrogenSong.document(path: song)
            let renderer = OfflineRenderer(document: doc, baseDirectory: nil, loops: 1, maxTail: 1)
            let peak = renderer.renderAll().map(abs).max() ?? 0
            print(String(format: "%@: peak %.4f (%.2f dBFS)", (song as NSString).lastPathComponent, peak, 20 * log10(peak)))
            XCTAssertLessThanOrEqual(peak, RenderState.clipKnee, song)
            if song.contains("demo2") { XCTAssertEqual(peak, 0.8824, accuracy: 0.001, "below the ceiling: untouched") }
        }
    }
}

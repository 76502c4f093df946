import Foundation
import TemperaAudio
import TemperaTestSupport
import XCTest
@testable import TemperaCore
@testable import TemperaTerminal
import TemperaStudio

/// `:export FILE.mid` on the command line of the editor.
final class ExportLineTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("export-line") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func make(_ document: Document, path: String?) -> Dispatcher {
        Dispatcher(session: Session(document: document, path: path), offline: StudioFiles(), width: 120, height: 40,
                   paths: ConfigPaths(config: dir + "/config", state: dir + "/state"), clock: { 0 })
    }

    func noteOns(_ f: MidiFile) -> [Int] {
        f.tracks.flatMap { $0 }.compactMap { e -> Int? in
            if case .noteOn(_, _, let v) = e.message, v > 0 { return e.tick }
            return nil
        }
    }

    func testExportWritesTheLoopAsAMidiFileAndSaysWhere() throws {
        let d = make(.demo(), path: dir + "/demo.tempera")
        try d.runLine("export \(dir)/demo.mid")
        XCTAssertEqual(d.view.message, "exported the loop to \(dir)/demo.mid")
        XCTAssertFalse(d.view.messageIsError)
        let f = try MidiFile.parse(try DocumentFile.readFile(dir + "/demo.mid"))
        XCTAssertEqual(f.tracks.map { $0.first }, [.trackName("tempo")] + Document.demo().tracks.map { .trackName($0.name) })
        let onsets = Schedule(document: .demo(), sampleRate: 48_000).onsets(pass: 0)
        XCTAssertEqual(noteOns(f).sorted(), onsets.map { Int(($0.time * 960 * 120 / 60).rounded()) }.sorted())
        XCTAssertFalse(d.session.isModified, "exporting is not an edit")
    }

    func testExportWritesTheSongWhenTheSongPlays() throws {
        var doc = Document.demo()
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 2, repeats: 2)], on: true)
        let d = make(doc, path: nil)
        try d.runLine("export \(dir)/song.mid")
        XCTAssertEqual(d.view.message, "exported the song to \(dir)/song.mid")
        let f = try MidiFile.parse(try DocumentFile.readFile(dir + "/song.mid"))
        XCTAssertEqual(noteOns(f).count, 2 * Schedule(document: doc, sampleRate: 48_000).onsets(pass: 0).count)
    }

    func testExportWithoutAFileOrIntoAMissingFolderIsOneLine() throws {
        let d = make(.demo(), path: nil)
        try d.runLine("export")
        XCTAssertEqual(d.view.message, "export needs a file name: export song.mid")
        XCTAssertTrue(d.view.messageIsError)
        try d.runLine("export \(dir)/no/such/x.mid")
        XCTAssertEqual(d.view.message, "cannot save '\(dir)/no/such/x.mid': the folder '\(dir)/no/such' does not exist")
        XCTAssertTrue(d.view.messageIsError)
    }
}

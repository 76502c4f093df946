import Foundation
import TemperaAudio
import TemperaCore
import TemperaStudio
import XCTest

/// The registry's writers, which the editor's `:export` and `:render` and `tempera export` and `render` all write
/// with: the options a command line gives reach the file, and the editor's line says what was written.
final class FormatsWriterTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.path + "/tempera-formats-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func notes(_ path: String) throws -> Int {
        let file = try MidiFile.parse(try DocumentFile.readFile(path))
        var count = 0
        for track in file.tracks {
            for event in track {
                if case .noteOn(_, _, let velocity) = event.message, velocity > 0 { count += 1 }
            }
        }
        return count
    }

    func testTheNotesAreWrittenForAsManyPassesAsAsked() throws {
        let doc = Document.demo()
        let writer = Formats.writer(for: folder + "/a.mid", sound: false)
        XCTAssertEqual(writer.name, "a Standard MIDI File")
        _ = try writer.write(doc, baseDirectory: nil, to: folder + "/one.mid")
        _ = try writer.write(doc, baseDirectory: nil, to: folder + "/three.mid", options: Formats.WriteOptions(loops: 3))
        let one = try notes(folder + "/one.mid")
        XCTAssertGreaterThan(one, 0)
        XCTAssertEqual(try notes(folder + "/three.mid"), 3 * one)
    }

    func testTheEditorsExportSaysWhatWentWhere() throws {
        let path = folder + "/song.mid"
        XCTAssertEqual(try Formats.export(.demo(), baseDirectory: nil, to: path), "exported the loop to \(path)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
        XCTAssertThrowsError(try Formats.export(.demo(), baseDirectory: nil, to: folder + "/nowhere/song.mid"))
    }

    func testASoundFileIsWrittenWithTheRateAndBitsAsked() throws {
        XCTAssertEqual(Formats.soundWriter(named: "FLAC")?.name, "a FLAC file")
        XCTAssertNil(Formats.soundWriter(named: "mp3"))
        var doc = Document.newDocument()
        doc.transport.length = 0.25
        let path = folder + "/short.wav"
        let writer = try XCTUnwrap(Formats.soundWriter(named: "wav"))
        _ = try writer.write(doc, baseDirectory: folder, to: path,
                             options: Formats.WriteOptions(sampleRate: 8_000, bits: .int16, maxTail: 0))
        let bytes = try DocumentFile.readFile(path)
        XCTAssertEqual(Array(bytes[0..<4]), Array("RIFF".utf8))
        let rate = bytes[24..<28].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        let bits = Int(bytes[34]) | Int(bytes[35]) << 8
        XCTAssertEqual(rate, 8_000)
        XCTAssertEqual(bits, 16)
    }
}

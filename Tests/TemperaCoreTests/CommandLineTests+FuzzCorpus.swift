import Foundation
import XCTest
@testable import TemperaCore

/// The fuzzers' seed scripts (Fuzz/Corpus/script) through the real program: a script that fails writes nothing,
/// neither its output nor its `save PATH` copies, and one that succeeds saves a document that opens.
extension CommandLineTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")

    func testAnySeedScriptThatFailsLeavesTheOutputFileByteIdentical() throws {
        let scripts = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.appendingPathComponent("script").path)
            .sorted()
        let existing = try Data(contentsOf: Self.corpus.appendingPathComponent("document/song.json"))
        var failed = 0, succeeded = 0
        for name in scripts {
            let doc = try savedDocument(), out = path("out.tempera"), script = path("script.txt")
            let docBytes = bytes(doc)
            _ = FileManager.default.createFile(atPath: out, contents: existing)
            try FileManager.default.copyItem(atPath: Self.corpus.appendingPathComponent("script/" + name).path,
                                             toPath: script)
            let run = try tempera(["script", doc, script, "-o", out])
            if run.status == 0 {
                succeeded += 1
                XCTAssertNoThrow(try DocumentFile.load(out), name)
            } else {
                failed += 1
                XCTAssertEqual(run.err.filter { $0 == "\n" }.count, 1, "\(name): \(run.err)")
                XCTAssertEqual(bytes(out), existing, "\(name) changed the output file")
                XCTAssertEqual(bytes(doc), docBytes, "\(name) changed the document")
                XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(),
                               ["out.tempera", "script.txt", "song.tempera"], name)
            }
            for file in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
                try FileManager.default.removeItem(atPath: path(file))
            }
        }
        // The corpus holds both kinds, so neither half of the property goes untested.
        XCTAssertGreaterThanOrEqual(failed, 3)
        XCTAssertGreaterThanOrEqual(succeeded, 8)
    }
}

import Foundation
import XCTest
@testable import TemperaCore

/// Saving is atomic and leaves nothing behind: a save killed at any moment leaves the old document or the new
/// one, never a broken one, and no temporary file beside it.
extension CommandLineTests {
    func testASaveKilledMidWriteLeavesAWholeDocumentAndNoStrayFile() throws {
        let doc = path("big.tempera")
        let s = Session(document: Document.newDocument())
        try s.run(line: "pulse period=1/100 count=200000")
        try DocumentFile.save(s.document, to: doc)
        var count = try DocumentFile.load(doc).tracks[0].markers.count
        let script = try write("s.txt", "tempo 3/2\nmarker add 1/7\n")
        var killedWhileRunning = 0
        for round in 0..<20 {
            let process = Process()
            process.executableURL = Self.binary
            process.arguments = ["script", doc, script]
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Spread the kills over the run: loading, editing, writing, renaming.
            usleep(useconds_t(50_000 + (round * 97_000) % 900_000))
            if process.isRunning { killedWhileRunning += 1 }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // The old document, or the new one with the script's one marker more.
            let now = try DocumentFile.load(doc).tracks[0].markers.count
            XCTAssertTrue(now == count || now == count + 1, "round \(round): \(now) markers after \(count)")
            count = now
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(),
                           ["big.tempera", "s.txt"], "round \(round)")
        }
        XCTAssertGreaterThan(killedWhileRunning, 5, "the kills must land while the script runs")
    }

    func testSavingThroughASymbolicLinkWritesItsTarget() throws {
        let real = try savedDocument()
        try FileManager.default.createSymbolicLink(atPath: path("link.tempera"), withDestinationPath: "song.tempera")
        let script = try write("s.txt", "tempo 2\n")
        XCTAssertEqual(try tempera(["script", path("link.tempera"), script]).status, 0)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: path("link.tempera")), "song.tempera")
        XCTAssertEqual(try DocumentFile.load(real).transport.tempo, 2)
    }

    func testStaleTemporaryFilesOfADeadSaveAreRemovedAtTheNextOpen() throws {
        let doc = try savedDocument()
        // A save of a process that no longer exists (pid 2^22 - 1 is beyond the default pid range) ...
        let stale = path(".song.tempera.tempera-4194303-0.tmp")
        _ = FileManager.default.createFile(atPath: stale, contents: Data("{".utf8))
        // ... and one of another document, which is not this open's to remove.
        let other = path(".other.tempera.tempera-4194303-0.tmp")
        _ = FileManager.default.createFile(atPath: other, contents: Data("{".utf8))
        _ = try DocumentFile.load(doc)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale))
        XCTAssertTrue(FileManager.default.fileExists(atPath: other))
    }

    func testAFailingSaveInAScriptWritesNoneOfItsTargets() throws {
        let doc = try savedDocument()
        let before = bytes(doc)
        let script = try write("s.txt", "tempo 2\nsave \(path("copy.tempera"))\ntempo 3\n")
        let result = try tempera(["script", doc, script, "-o", path("missing/out.tempera")])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.err, "tempera: cannot save '\(path("missing/out.tempera"))': the folder '\(path("missing"))' does not exist\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("copy.tempera")))
        XCTAssertEqual(bytes(doc), before)
    }

    func testSavingOverADeviceOrAPipeIsRefused() throws {
        let doc = try savedDocument()
        let script = try write("s.txt", "tempo 2\n")
        XCTAssertEqual(mkfifo(path("pipe"), 0o600), 0)
        let result = try tempera(["script", doc, script, "-o", path("pipe")])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.err, "tempera: cannot save '\(path("pipe"))': it is not a regular file\n")
        var info = stat()
        XCTAssertEqual(lstat(path("pipe"), &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFIFO)
    }
}

import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// A render's file: whole or absent (written beside its name and renamed), written in large pieces, not synced to
/// the disk as a document is (a render is made again from its document), and holding exactly the render, as WAV
/// and as FLAC. `strace` shows what the program asks of the kernel.
final class RenderFileTests: XCTestCase {
    var dir = ""
    var doc = ""

    override func setUp() {
        dir = TestPaths.temporaryDirectory("renderfile")
        doc = dir + "/doc.tempera"
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// A document of one sound twice a pass: half a second of a sine.
    func document() throws -> Document {
        let tone = try Fixture.wav(Fixture.sine(hz: 441, seconds: 0.5), in: dir, name: "tone.wav")
        let document = Fixture.document(tracks: [[(0, .clip(1)), (0.5, .clip(1))]], slots: [ClipSlot(file: tone)])
        try DocumentFile.save(document, to: doc)
        return document
    }

    /// The names of the system calls among `calls` that `tempera ARGS` made, in order.
    func traced(_ calls: String, _ args: [String]) -> [String] { tracedByThread(calls, args).map(\.call) }

    /// The system calls among `calls` that `tempera ARGS` made, in order, each with the thread that made it.
    func tracedByThread(_ calls: String, _ args: [String]) -> [(thread: Int, call: String)] {
        let log = dir + "/strace.log"
        let run = Spawn.run("/usr/bin/strace", ["-f", "-qq", "-o", log, "-e", "trace=" + calls, TestPaths.binary] + args,
                            environment: ["XDG_CACHE_HOME": dir + "/cache"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
        return lines.compactMap { line in
            // "PID name(arguments) = result"
            let thread = Int(line.prefix { $0.isNumber }) ?? 0
            let call = line.drop { $0.isNumber || $0 == " " }
            return call.firstIndex(of: "(").map { (thread, String(call[..<$0])) }
        }
    }

    func testARenderIsRenamedIntoPlaceWithoutASyncAndADocumentIsSynced() throws {
        _ = try document()
        let syncs = "fsync,fdatasync,sync,syncfs,sync_file_range"
        let render = traced(syncs + ",rename,renameat,renameat2", ["render", doc, "-o", dir + "/out.wav"])
        XCTAssertTrue(render.contains { $0.hasPrefix("rename") }, "\(render)")
        XCTAssertEqual(render.filter { !$0.hasPrefix("rename") }, [], "a render is not synced")
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/out.wav"))
        // Saving a document still syncs the file and its folder.
        let save = traced(syncs, ["script", doc, "/dev/null"])
        XCTAssertGreaterThanOrEqual(save.filter { $0 == "fsync" }.count, 2, "\(save)")
    }

    func testARenderIsWrittenInLargePiecesBesideTheRendering() throws {
        _ = try document()
        // Eight seconds of 24-bit stereo at 48 kHz and the tail: 2.3 MB, which libsndfile hands over 8,190 bytes
        // at a time (some 280 writes); gathered, about ten.
        // They are made on a thread of their own while the next buffer renders (the process's first thread, the one
        // that runs the program, is the one strace names with execve).
        let calls = tracedByThread("execve,write,pwrite64,writev", ["render", doc, "-o", dir + "/out.wav", "--loops", "8"])
        let main = try XCTUnwrap(calls.first { $0.call == "execve" }).thread
        let writes = calls.filter { $0.call != "execve" }
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: dir + "/out.wav")[.size] as? Int)
        XCTAssertGreaterThan(size, 2_300_000)
        XCTAssertLessThan(writes.count, 20, "\(writes.count) writes for \(size) bytes")
        XCTAssertGreaterThan(writes.filter { $0.thread != main }.count, writes.count / 2, "written beside the render")
    }

    func testTheFilesHoldTheRenderExactly() throws {
        let document = try document()
        let expected = OfflineRenderer(document: document, baseDirectory: dir, loops: 8).renderAll()
        let wav = Spawn.run(TestPaths.binary, ["render", doc, "-o", dir + "/out.wav", "--loops", "8", "--bits", "32f"],
                            environment: ["XDG_CACHE_HOME": dir + "/cache"])
        XCTAssertEqual(wav.status, 0, wav.stderr)
        assertSamplesEqual(try AudioFile.read(dir + "/out.wav").samples, expected)
        // FLAC (libsndfile seeks back through it to finish the stream) and a 24-bit WAV: the render in 24 bits.
        for out in ["out24.wav", "out.flac"] {
            let run = Spawn.run(TestPaths.binary, ["render", doc, "-o", dir + "/" + out, "--loops", "8"],
                                environment: ["XDG_CACHE_HOME": dir + "/cache"])
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        // Within a step of 24 bits (libsndfile rounds to them one way for WAV, another for FLAC).
        assertSamplesEqual(try AudioFile.read(dir + "/out24.wav").samples, expected, accuracy: 1.5 / 8_388_608)
        assertSamplesEqual(try AudioFile.read(dir + "/out.flac").samples, expected, accuracy: 1.5 / 8_388_608)
    }
}

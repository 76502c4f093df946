import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// `import` tells a recording's length and size from its header, before reading a sample: a sparse WAV whose
/// header claims gigabytes is refused without being read, and the 30-minute limit is a duration at the file's own
/// rate, not a count of frames.
final class ImportLimitTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = TestPaths.temporaryDirectory("import-limits") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// A 16-bit PCM WAV of `frames` frames whose samples are a hole (a sparse file: no disk, reads as silence).
    func sparseWAV(_ name: String, frames: Int, rate: Int, channels: Int) throws -> String {
        let path = dir + "/" + name
        let data = frames * channels * 2
        var h: [UInt8] = []
        func u32(_ v: Int) { h += withUnsafeBytes(of: UInt32(v).littleEndian) { Array($0) } }
        func u16(_ v: Int) { h += withUnsafeBytes(of: UInt16(v).littleEndian) { Array($0) } }
        h += Array("RIFF".utf8); u32(36 + data); h += Array("WAVE".utf8)
        h += Array("fmt ".utf8); u32(16); u16(1); u16(channels); u32(rate); u32(rate * channels * 2); u16(channels * 2); u16(16)
        h += Array("data".utf8); u32(data)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(h)))
        let fd = open(path, O_WRONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        XCTAssertEqual(ftruncate(fd, off_t(h.count + data)), 0)
        close(fd)
        return path
    }

    func testAFiveHourRecordingAtOneKilohertzIsTooLongWhateverItsFrameCount() throws {
        // 18 million frames: fewer than 30 minutes hold at 48 kHz, yet five hours at 1 kHz.
        let path = try sparseWAV("long.wav", frames: 5 * 3600 * 1000, rate: 1000, channels: 1)
        XCTAssertThrowsError(try AudioImport.read(path)) { error in
            XCTAssertEqual("\(error)", "\(path): 5 h long; a recording to import is at most 30 minutes")
        }
        // Just under the limit at the same rate reads.
        let short = try sparseWAV("short.wav", frames: 29 * 60 * 1000, rate: 1000, channels: 1)
        XCTAssertEqual(try AudioImport.read(short).duration, 29 * 60)
    }

    func testASparseThreeGigabyteWavIsRefusedFromItsHeaderWithoutBeingRead() throws {
        let exe = TestPaths.binary
        guard FileManager.default.isExecutableFile(atPath: exe) else { throw XCTSkip("build tempera first (swift build)") }
        // 3 GiB of 16-bit stereo at 48 kHz: 4 h 39 min 37 s.
        let path = try sparseWAV("huge.wav", frames: (3 << 30) / 4, rate: 48_000, channels: 2)
        let r = Spawn.measured(exe, ["import", path, "-o", dir + "/out.tempera"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "\(path): 4 h 39 min 37 s long; a recording to import is at most 30 minutes\n")
        // Read whole it took 3.18 GB; refused from the header, what the program itself takes.
        XCTAssertGreaterThan(r.peakBytes, 0)
        XCTAssertLessThan(r.peakBytes, 200 << 20, "peak \(r.peakBytes >> 20) MB")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.tempera"))
    }
}

/// `render` writes at least one pass: with the loop off a pass is the whole timeline, bounded as a loop is.
final class RenderPassLimitTests: XCTestCase {
    func testATimelineLongerThanTheLongestLoopIsNotRenderedWithTheLoopOff() throws {
        let exe = TestPaths.binary
        guard FileManager.default.isExecutableFile(atPath: exe) else { throw XCTSkip("build tempera first (swift build)") }
        let dir = TestPaths.temporaryDirectory("render-pass")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var doc = Document.newDocument()
        doc.transport.length = 10_000_000
        doc.transport.loopOn = false
        try DocumentFile.save(doc, to: dir + "/long.tempera")
        let started = Date()
        let r = Spawn.run(exe, ["render", dir + "/long.tempera", "-o", dir + "/out.wav"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "tempera: a pass of this document is 10000000 s (the timeline, the loop being off); render plays "
            + "at most 3600 s a pass: set a loop (loop A B)\n")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.wav"))
        // With the loop on (its two seconds) it renders.
        doc.transport.loopOn = true
        try DocumentFile.save(doc, to: dir + "/long.tempera")
        XCTAssertEqual(Spawn.run(exe, ["render", dir + "/long.tempera", "-o", dir + "/out.wav", "--tail", "0"]).status, 0)
    }
}

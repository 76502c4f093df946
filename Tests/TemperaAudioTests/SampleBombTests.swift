import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// Sound files whose header promises more audio than any slot should hold — a 1 Hz rate, a compressed file
/// of silence that decodes to hours, a sparse file of gigabytes — are refused from the header, in one line, at
/// once and in little memory; `render` goes on without them.
final class SampleBombTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("bombs") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// A 16-bit mono PCM WAV header announcing `dataBytes` of sound data at `rate`.
    static func wavHeader(rate: UInt32, dataBytes: UInt32, channels: UInt16 = 1) -> [UInt8] {
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }
        var h = Array("RIFF".utf8) + le32(36 + dataBytes) + Array("WAVE".utf8)
        h += Array("fmt ".utf8) + le32(16) + le16(1) + le16(channels) + le32(rate) + le32(rate * 2 * UInt32(channels))
        h += le16(2 * channels) + le16(16)
        h += Array("data".utf8) + le32(dataBytes)
        return h
    }

    /// The 4 KB WAV at 1 Hz (768 MB once converted to 48 kHz before this check).
    func oneHertz() throws -> String {
        let path = dir + "/one-hz.wav"
        var bytes = SampleBombTests.wavHeader(rate: 1, dataBytes: 4000)
        bytes += (0..<4000).map { UInt8(truncatingIfNeeded: $0 * 37) }
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    /// A sparse WAV of 100 MB at 8 kHz: 1 h 44 min once read, 2.4 GB as stereo floats at 48 kHz.
    func sparse() throws -> String {
        let path = dir + "/sparse.wav"
        let size = 100 << 20
        _ = FileManager.default.createFile(atPath: path, contents: Data(SampleBombTests.wavHeader(rate: 8000, dataBytes: UInt32(size - 44))))
        XCTAssertEqual(truncate(path, off_t(size)), 0)
        return path
    }

    /// A FLAC file of silence: a few kilobytes that decode to 20 minutes.
    func silentFlac() throws -> String {
        let path = dir + "/silence.flac"
        try AudioFile.write([Float](repeating: 0, count: 8000 * 1200), sampleRate: 8000, to: path, as: .flac16)
        return path
    }

    func testAOneHertzWavIsRefusedFromItsHeaderAtOnce() throws {
        let path = try oneHertz()
        let t0 = Date()
        XCTAssertThrowsError(try SampleLoader.load(path: path, sampleRate: 48_000, name: "one-hz.wav")) {
            XCTAssertEqual("\($0)", "one-hz.wav: its sample rate (1 Hz) is outside 1 kHz to 768 kHz")
        }
        XCTAssertLessThan(Date().timeIntervalSince(t0), 0.2)
    }

    func testASparseWavOfAnHourAndAHalfIsRefusedAtOnce() throws {
        let path = try sparse()
        let t0 = Date()
        XCTAssertThrowsError(try SampleLoader.load(path: path, sampleRate: 48_000, name: "sparse.wav")) {
            XCTAssertEqual("\($0)", "sparse.wav: 1 h 49 min 14 s of audio once converted; a slot holds at most 10 min "
                + "(TEMPERA_MAX_SAMPLE_SECONDS)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(t0), 0.2)
    }

    func testACompressedFileOfTwentyMinutesIsRefusedBeforeDecoding() throws {
        let path = try silentFlac()
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        XCTAssertLessThan(size, 200_000, "a small file")
        let t0 = Date()
        XCTAssertThrowsError(try SampleLoader.load(path: path, sampleRate: 48_000, name: "silence.flac")) {
            XCTAssertEqual("\($0)", "silence.flac: 20 min of audio once converted; a slot holds at most 10 min "
                + "(TEMPERA_MAX_SAMPLE_SECONDS)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(t0), 0.2)
    }

    func testPitchingDownCountsTowardsTheLimit() throws {
        // Six minutes at 8 kHz is within the limit as recorded, and twelve minutes an octave down.
        let path = dir + "/six.wav"
        try AudioFile.write([Float](repeating: 0, count: 8000 * 360), sampleRate: 8000, to: path, as: .wav16)
        XCTAssertNoThrow(try SampleLoader.load(path: path, sampleRate: 8000, note: 60))
        XCTAssertThrowsError(try SampleLoader.load(path: path, sampleRate: 8000, note: 48, name: "six.wav")) {
            XCTAssertEqual("\($0)", "six.wav: 12 min of audio once converted; a slot holds at most 10 min (TEMPERA_MAX_SAMPLE_SECONDS)")
        }
    }

    func testTheLimitsAreASetting() throws {
        let path = dir + "/short.wav"
        try AudioFile.write([Float](repeating: 0, count: 48_000 * 3), sampleRate: 48_000, to: path, as: .wav16)
        let limits = SampleLimits.fromEnvironment(["TEMPERA_MAX_SAMPLE_SECONDS": "2"])
        XCTAssertEqual(limits.seconds, 2)
        XCTAssertEqual(limits.problem(frames: 48_000 * 3, channels: 1, rate: 48_000, outputRate: 48_000, note: nil, pitch: 0),
                       "3 s of audio once converted; a slot holds at most 2 s (TEMPERA_MAX_SAMPLE_SECONDS)")
        let small = SampleLimits.fromEnvironment(["TEMPERA_MAX_SAMPLE_MB": "1"])
        XCTAssertEqual(small.problem(frames: 48_000 * 3, channels: 1, rate: 48_000, outputRate: 48_000, note: nil, pitch: 0),
                       "decoding it would take 2.7 MiB; a slot may take at most 1 MiB (TEMPERA_MAX_SAMPLE_MB)")
        XCTAssertEqual(limits.problem(frames: 10, channels: 1, rate: 999, outputRate: 48_000, note: nil, pitch: 0),
                       "its sample rate (999 Hz) is outside 1 kHz to 768 kHz")
        XCTAssertEqual(limits.problem(frames: 10, channels: 1, rate: 768_001, outputRate: 48_000, note: nil, pitch: 0),
                       "its sample rate (768,001 Hz) is outside 1 kHz to 768 kHz")
        XCTAssertNil(limits.problem(frames: 10, channels: 1, rate: 1000, outputRate: 48_000, note: nil, pitch: 0))
        XCTAssertNil(limits.problem(frames: 10, channels: 1, rate: 768_000, outputRate: 48_000, note: nil, pitch: 0))
    }

    /// `tempera render` of a document holding each of them: one line each, and the render is made, in a
    /// process that stays under 50 MB.
    func testRenderWithEveryBombSaysOneLineEachAndStaysSmall() throws {
        let exe = TestPaths.binary
        guard FileManager.default.isExecutableFile(atPath: exe) else { throw XCTSkip("build tempera first (swift build)") }
        _ = try oneHertz()
        _ = try sparse()
        _ = try silentFlac()
        try Fixture.wav(Fixture.block(frames: 200, level: 0.5), in: dir, name: "click.wav")
        let names = ["one-hz.wav", "sparse.wav", "silence.flac"]
        let doc = Fixture.document(tracks: [[(0, .clip(1)), (0.25, .clip(2)), (0.5, .clip(3)), (0.75, .clip(4))]],
                                   slots: [ClipSlot(file: "click.wav")] + names.map { ClipSlot(file: $0) })
        try DocumentFile.save(doc, to: dir + "/doc.tempera")
        let r = Spawn.measured(exe, ["render", dir + "/doc.tempera", "-o", dir + "/out.wav", "--tail", "0"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, """
            tempera: slot 2: one-hz.wav: its sample rate (1 Hz) is outside 1 kHz to 768 kHz
            tempera: slot 3: sparse.wav: 1 h 49 min 14 s of audio once converted; a slot holds at most 10 min (TEMPERA_MAX_SAMPLE_SECONDS)
            tempera: slot 4: silence.flac: 20 min of audio once converted; a slot holds at most 10 min (TEMPERA_MAX_SAMPLE_SECONDS)

            """)
        // The same render with ordinary samples in those slots: what the program takes anyway.
        let plain = Fixture.document(tracks: [[(0, .clip(1)), (0.25, .clip(2)), (0.5, .clip(3)), (0.75, .clip(4))]],
                                     slots: [ClipSlot](repeating: ClipSlot(file: "click.wav"), count: 4))
        try DocumentFile.save(plain, to: dir + "/plain.tempera")
        let base = Spawn.measured(exe, ["render", dir + "/plain.tempera", "-o", dir + "/plain.wav", "--tail", "0"])
        XCTAssertEqual(base.status, 0, base.stderr)
        print("render with three bombs: peak \(r.peakBytes >> 20) MB, \(r.seconds) s; with ordinary samples: "
            + "peak \(base.peakBytes >> 20) MB, \(base.seconds) s")
        XCTAssertLessThan(r.peakBytes - base.peakBytes, 50 << 20, "the refusals take less than 50 MB")
        XCTAssertLessThan(r.seconds, 5)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/out.wav"))
    }
}

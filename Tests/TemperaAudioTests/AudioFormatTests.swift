import CSndfile
import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// Every format libsndfile reads, MP3 included, is taken for import and for slots.
final class AudioFormatTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("formats") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Half a second of clicks at 0.1, 0.25 and 0.4 s, mono at 44.1 kHz.
    static func clicks() -> [Float] {
        var x = [Float](repeating: 0, count: 22_050)
        for t in [0.1, 0.25, 0.4] { AudioImportTests.click(into: &x, at: Int(t * 44_100), amp: 0.7) }
        return x
    }

    func head(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(4096)) }

    func testAnMP3IsImportedAndPlayedFromASlot() throws {
        let path = dir + "/clicks.mp3"
        try AudioFile.write(Self.clicks(), sampleRate: 44_100, to: path, as: .mp3)
        // libsndfile writes it without a tag: it starts with an MPEG audio frame header.
        XCTAssertEqual(Array(try head(path).prefix(2)), [0xFF, 0xFB])
        XCTAssertTrue(AudioImport.looksLikeAudio(try head(path)))
        // With an ID3 tag first, as most MP3 files have.
        XCTAssertTrue(AudioImport.looksLikeAudio(Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0]))
        XCTAssertFalse(AudioImport.looksLikeAudio([0xFF, 0xFB, 0xF0, 0x64]), "a reserved bit rate is no frame")
        XCTAssertFalse(AudioImport.looksLikeAudio(Array("MThd".utf8)))

        let sound = try AudioImport.read(path)
        XCTAssertEqual(sound.sampleRate, 44_100)
        XCTAssertEqual(sound.duration, 0.5, accuracy: 0.06, "an MP3 decoder may add a frame of padding")
        let found = try AudioImport.onsets(of: sound)
        XCTAssertEqual(found.count, 3, "\(found.map(\.time))")

        // The program imports it (the registry of formats recognises it) and plays it from a slot.
        let out = dir + "/clicks.json"
        let r = Spawn.run(TestPaths.binary, ["import", path, "-o", out, "--slice"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains(": 3 onsets in "), r.stderr)
        let buffer = try SampleLoader.load(path: path, sampleRate: 48_000)
        XCTAssertEqual(Double(buffer.frames) / 48_000, 0.5, accuracy: 0.06)
    }

    /// Each major format libsndfile lists that it can also write is written, recognised, read for import and
    /// loaded as a slot's sound (the headerless ones, RAW and its kin, cannot be told from their bytes).
    func testEveryFormatLibsndfileListsIsTaken() throws {
        var count: Int32 = 0
        sf_command(nil, Int32(SFC_GET_FORMAT_MAJOR_COUNT), &count, Int32(MemoryLayout<Int32>.size))
        XCTAssertGreaterThan(count, 20)
        let headerless: Set<Int32> = [Int32(SF_FORMAT_RAW), Int32(SF_FORMAT_HTK), Int32(SF_FORMAT_MAT4), Int32(SF_FORMAT_SD2),
                                      Int32(SF_FORMAT_MPC2K)]
        var taken: [String] = []
        for k in 0..<count {
            var info = SF_FORMAT_INFO()
            info.format = k
            sf_command(nil, Int32(SFC_GET_FORMAT_MAJOR), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size))
            let major = info.format, ext = String(cString: info.extension)
            let name = String(cString: info.name)
            guard !headerless.contains(major) else { continue }
            // A codec it writes: 16-bit PCM, else the format's own.
            let codecs: [Int32] = [Int32(SF_FORMAT_PCM_16), Int32(SF_FORMAT_VORBIS), Int32(SF_FORMAT_MPEG_LAYER_III),
                                   Int32(SF_FORMAT_ALAW), Int32(SF_FORMAT_PCM_S8), Int32(SF_FORMAT_DPCM_16)]
            var check = SF_INFO()
            check.samplerate = 44_100
            check.channels = 1
            guard let codec = codecs.first(where: { check.format = major | $0; return sf_format_check(&check) == SF_TRUE }) else {
                print("\(name): libsndfile writes none of the usual codecs; skipped")
                continue
            }
            let path = dir + "/clicks.\(ext)"
            var write = SF_INFO()
            write.samplerate = 44_100
            write.channels = 1
            write.format = major | codec
            guard let f = sf_open(path, Int32(SFM_WRITE), &write) else { XCTFail("\(name): cannot write"); continue }
            let x = Self.clicks()
            _ = x.withUnsafeBufferPointer { sf_writef_float(f, $0.baseAddress, sf_count_t(x.count)) }
            sf_close(f)
            XCTAssertTrue(AudioImport.looksLikeAudio(try head(path)), "\(name) (.\(ext)) is not recognised")
            XCTAssertNoThrow(try AudioImport.read(path), name)
            XCTAssertNoThrow(try SampleLoader.load(path: path, sampleRate: 44_100), name)
            taken.append(ext)
        }
        print("formats taken: \(taken.joined(separator: " "))")
        // libsndfile names MPEG audio `m1a`.
        XCTAssertTrue(taken.contains("m1a") && taken.contains("flac") && taken.contains("oga") && taken.contains("caf"), "\(taken)")
    }
}

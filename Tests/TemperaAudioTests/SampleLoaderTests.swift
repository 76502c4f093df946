import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

final class SampleLoaderTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("samples") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func testEveryContainerLoadsToStereoAtTheOutputRate() throws {
        let tone = Fixture.sine(hz: 440, seconds: 0.25)
        let cases: [(String, AudioFile.Container)] = [("a.wav", .wav24), ("a.flac", .flac16), ("a.aiff", .aiff16),
                                                      ("a.ogg", .oggVorbis)]
        for (name, container) in cases {
            let path = try Fixture.wav(tone, in: dir, name: name, as: container)
            let s = try SampleLoader.load(path: path, sampleRate: 48_000)
            XCTAssertEqual(s.frames, 12_000, name)
            // Both channels carry the mono source.
            XCTAssertEqual(s.data[2 * 100], s.data[2 * 100 + 1], name)
            XCTAssertEqual(s.data[2 * 100], tone[100], accuracy: name == "a.ogg" ? 0.05 : 1e-4, name)
        }
    }

    func testStereoFilesKeepTheirChannels() throws {
        var st = [Float](repeating: 0, count: 2000)
        for i in 0..<1000 { st[2 * i] = 0.25; st[2 * i + 1] = -0.5 }
        let path = dir + "/st.wav"
        try AudioFile.write(st, channels: 2, sampleRate: 48_000, to: path, as: .wavFloat)
        let s = try SampleLoader.load(path: path, sampleRate: 48_000)
        XCTAssertEqual(s.frames, 1000)
        XCTAssertEqual(s.data[0], 0.25)
        XCTAssertEqual(s.data[1], -0.5)
    }

    func testA44kFileBecomesTheRightLengthAt48k() throws {
        let path = try Fixture.wav(Fixture.sine(hz: 441, seconds: 1, rate: 44_100), in: dir, name: "cd.wav", rate: 44_100)
        let s = try SampleLoader.load(path: path, sampleRate: 48_000)
        XCTAssertEqual(s.frames, 48_000)
        // The tone keeps its pitch: 441 Hz is a period of 48000/441 frames; compare against the ideal sine mid-file
        // (the converter's filter leaves a small error).
        for i in stride(from: 10_000, to: 11_000, by: 97) {
            XCTAssertEqual(s.data[2 * i], 0.5 * Float(sin(2 * Double.pi * 441 * Double(i) / 48_000)), accuracy: 0.01)
        }
    }

    func testMidiNote72PlaysAnOctaveUpInHalfTheLength() throws {
        let path = try Fixture.wav(Fixture.sine(hz: 200, seconds: 0.5), in: dir, name: "tone.wav")
        let asRecorded = try SampleLoader.load(path: path, sampleRate: 48_000, note: 60)
        let up = try SampleLoader.load(path: path, sampleRate: 48_000, note: 72)
        let down = try SampleLoader.load(path: path, sampleRate: 48_000, note: 48)
        XCTAssertEqual(asRecorded.frames, 24_000)
        XCTAssertEqual(up.frames, 12_000)
        XCTAssertEqual(down.frames, 48_000)
        // An octave up: 400 Hz, so 120 frames per period.
        for i in stride(from: 2_000, to: 3_000, by: 53) {
            XCTAssertEqual(up.data[2 * i], 0.5 * Float(sin(2 * Double.pi * 400 * Double(i) / 48_000)), accuracy: 0.01)
        }
    }

    func testTheEndOfEverySampleFadesToSilence() throws {
        let path = try Fixture.wav(Fixture.block(frames: 1000, level: 0.8), in: dir, name: "dc.wav")
        let s = try SampleLoader.load(path: path, sampleRate: 48_000)
        XCTAssertEqual(s.data[0], 0.8)
        XCTAssertEqual(s.data[2 * 999], 0)
        // 2 ms: 96 frames of linear fade, from frame 904 on.
        XCTAssertEqual(s.data[2 * 903], 0.8)
        XCTAssertEqual(s.data[2 * 904], 0.8 * 95 / 96, accuracy: 1e-6)
        XCTAssertEqual(s.data[2 * 952], 0.8 * 47 / 96, accuracy: 1e-6)
    }

    func testAMissingFileIsNamed() {
        XCTAssertThrowsError(try SampleLoader.load(path: dir + "/nowhere.wav", sampleRate: 48_000, name: "drums/nowhere.wav")) {
            XCTAssertEqual("\($0)", "drums/nowhere.wav: file not found (\(self.dir)/nowhere.wav)")
        }
    }

    func testGarbageIsNamed() throws {
        let path = dir + "/garbage.wav"
        try Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try SampleLoader.load(path: path, sampleRate: 48_000, name: "garbage.wav")) {
            XCTAssertTrue("\($0)".hasPrefix("garbage.wav: "), "\($0)")
        }
    }

    func testATruncatedWavIsNamed() throws {
        let path = try Fixture.wav(Fixture.sine(hz: 440, seconds: 1), in: dir, name: "cut.wav", as: .wav16)
        try truncate(path, to: 50_000)
        XCTAssertThrowsError(try SampleLoader.load(path: path, sampleRate: 48_000, name: "cut.wav")) {
            XCTAssertTrue("\($0)".hasPrefix("cut.wav: damaged or truncated"), "\($0)")
        }
    }

    func testATruncatedFlacIsNamed() throws {
        let path = try Fixture.wav(Fixture.sine(hz: 440, seconds: 1), in: dir, name: "cut.flac", as: .flac16)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        try truncate(path, to: size / 3)
        XCTAssertThrowsError(try SampleLoader.load(path: path, sampleRate: 48_000, name: "cut.flac")) {
            XCTAssertTrue("\($0)".hasPrefix("cut.flac: damaged or truncated"), "\($0)")
        }
    }

    func testABadSlotPlaysSilenceAndTheDocumentKeepsItsReference() throws {
        let good = try Fixture.wav(Fixture.block(frames: 200), in: dir, name: "good.wav")
        let doc = Fixture.document(tracks: [[(0, .clip(1)), (0.5, .clip(2))]],
                                   slots: [ClipSlot(file: good), ClipSlot(file: "missing.wav")])
        let engine = AudioEngine(output: .null)
        let warnings = engine.load(document: doc, baseDirectory: dir)
        XCTAssertEqual(warnings, ["slot 2: missing.wav: file not found (\(dir)/missing.wav)"])
        XCTAssertEqual(doc.slots[1].file, "missing.wav")
        let r = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0)
        let out = r.renderAll()
        XCTAssertEqual(Onsets.soundStarts(out), [0])
    }

    func testKitReferencesResolveToTheShippedSamples() {
        XCTAssertEqual(SamplePaths.resolve("kit/kick.wav", baseDirectory: "/docs", kitDirectory: "/k"), "/k/kick.wav")
        XCTAssertEqual(SamplePaths.resolve("/abs/x.wav", baseDirectory: "/docs"), "/abs/x.wav")
        XCTAssertEqual(SamplePaths.resolve("sub/x.wav", baseDirectory: "/docs"), "/docs/sub/x.wav")
        XCTAssertEqual(SamplePaths.kitDirectory(environment: ["TEMPERA_SAMPLES": "/env/kit"]), "/env/kit")
        // A build sits below the repository: walking up from it finds Samples/kick.wav.
        let exe = TestPaths.binary
        XCTAssertEqual(SamplePaths.kitDirectory(environment: [:], executable: exe), TestPaths.kitDirectory)
    }

    func testTheDefaultKitLoadsEverySlot() throws {
        let engine = AudioEngine(output: .null, kitDirectory: TestPaths.kitDirectory)
        XCTAssertEqual(engine.load(document: Document.demo(), baseDirectory: nil), [])
        for name in Document.kitNames {
            let s = try SampleLoader.load(path: TestPaths.kitDirectory + "/\(name).wav", sampleRate: 48_000)
            XCTAssertLessThan(s.frames, 72_000, name)
            let peak = (0..<s.frames).map { abs(s.data[2 * $0]) }.max()!
            XCTAssertEqual(peak, 0.708, accuracy: 0.05, name)
        }
    }

    private func truncate(_ path: String, to size: Int) throws {
        let h = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try h.truncate(atOffset: UInt64(size))
        try h.close()
    }
}

import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// Samples that are not what a sample should be: NaN and infinities in a float WAV, a FIFO, a device or a folder
/// where a slot's file should be.
final class HostileSampleTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("hostile") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// 1000 frames at 0.5 with three NaNs and two infinities among them.
    func poisonedWav(name: String = "nan.wav") throws -> String {
        var samples = Fixture.block(frames: 1000, level: 0.5)
        samples[10] = .nan
        samples[500] = .nan
        samples[501] = -.nan
        samples[700] = .infinity
        samples[900] = -.infinity
        return try Fixture.wav(samples, in: dir, name: name, as: .wavFloat)
    }

    func testNaNAndInfinitiesInAFileLoadAsSilenceAndAreCounted() throws {
        let s = try SampleLoader.load(path: try poisonedWav(), sampleRate: 48_000)
        XCTAssertEqual(s.replacedNonFinite, 5)
        XCTAssertEqual(s.frames, 1000)
        XCTAssertTrue((0..<(2 * s.frames)).allSatisfy { s.data[$0].isFinite })
        XCTAssertEqual(s.data[2 * 10], 0)
        XCTAssertEqual(s.data[2 * 11], 0.5)
        // Resampled, the NaN does not spread through the filter either.
        let converted = try SampleLoader.load(path: try poisonedWav(), sampleRate: 44_100)
        XCTAssertTrue((0..<(2 * converted.frames)).allSatisfy { converted.data[$0].isFinite })
        XCTAssertEqual(converted.replacedNonFinite, 5)
    }

    func testANaNWavRendersNoNaNAndSaysSoInOneLine() throws {
        _ = try poisonedWav()
        let doc = Fixture.document(tracks: [[(0, .clip(1)), (0.5, .clip(1))]], slots: [ClipSlot(file: "nan.wav")])
        let r = OfflineRenderer(document: doc, baseDirectory: dir, loops: 2, maxTail: 0)
        XCTAssertEqual(r.warnings, ["slot 1: nan.wav: 5 sample values were not a number (NaN or infinite) and play as silence"])
        let out = r.renderAll()
        XCTAssertTrue(out.allSatisfy { $0.isFinite })
        XCTAssertEqual(out.map(abs).max(), 0.5, "the rest of the sample plays as it is")
    }

    func testTheMasterBusSilencesABlockThatIsNotANumber() {
        // A buffer poisoned after loading (as no loader makes one) stands for a NaN from anywhere in the mix.
        let buffer = SampleBuffer(mono: Fixture.block(frames: 4096, level: 0.25), sampleRate: 48_000)
        buffer.data[2 * 600] = .nan
        withOneClipRenderState(buffer) { state, shared in
            shared.pointee.send(TransportCommand(.play))
            var blocks: [[Float]] = []
            for _ in 0..<3 {
                var out = [Float](repeating: 1, count: 2 * 512)
                RenderState.render(state, into: &out, frames: 512)
                blocks.append(out)
            }
            XCTAssertTrue(blocks[0].allSatisfy { $0.isFinite } && blocks[0].contains { $0 != 0 }, "the block before plays")
            XCTAssertEqual(blocks[1], [Float](repeating: 0, count: 2 * 512), "the block holding the NaN is silence")
            XCTAssertTrue(blocks[2].allSatisfy { $0.isFinite } && blocks[2].contains { $0 != 0 }, "the block after plays")
            XCTAssertEqual(shared.pointee.silencedBlocks.load(ordering: .relaxed), 1)
        }
    }

    func testAFifoADeviceAndAFolderAreRefusedAtOnceNamingWhatTheyAre() throws {
        let fifo = dir + "/pipe.wav"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        try FileManager.default.createDirectory(atPath: dir + "/folder.wav", withIntermediateDirectories: true)
        let t0 = Date()
        XCTAssertThrowsError(try SampleLoader.load(path: fifo, sampleRate: 48_000)) {
            XCTAssertEqual("\($0)", "\(fifo): is a pipe (FIFO), not a regular file (\(fifo))")
        }
        XCTAssertThrowsError(try SampleLoader.load(path: "/dev/zero", sampleRate: 48_000, name: "zero")) {
            XCTAssertEqual("\($0)", "zero: is a device, not a regular file (/dev/zero)")
        }
        XCTAssertThrowsError(try SampleLoader.load(path: dir + "/folder.wav", sampleRate: 48_000, name: "folder.wav")) {
            XCTAssertEqual("\($0)", "folder.wav: is a folder, not a sound file (\(self.dir)/folder.wav)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(t0), 1)
    }

    func testAFifoSoundFontIsRefusedAtOnce() throws {
        let fifo = dir + "/pipe.sf2"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let bank = SoundFontBank(sampleRate: 48_000)
        var slot = ClipSlot(note: 60)
        slot.soundFont = "pipe.sf2"
        let (sounds, problem) = bank.samples(for: slot, baseDirectory: dir)
        XCTAssertTrue(sounds.allSatisfy { $0 == nil })
        XCTAssertEqual(problem, "pipe.sf2: is a pipe (FIFO), not a regular file (\(fifo))")
    }
}

/// Loading in the background: the caller gets the document published at once and the samples when they are in.
final class BackgroundLoadTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("background") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func testSamplesLoadedInTheBackgroundArePublishedWithTheirProblemsWhenIn() throws {
        // Twenty seconds at 44.1 kHz: converted to 48 kHz as it loads.
        try Fixture.wav(Fixture.sine(hz: 441, seconds: 20, rate: 44_100), in: dir, name: "long.wav", rate: 44_100)
        let doc = Fixture.document(tracks: [[(0, .clip(1))]], slots: [ClipSlot(file: "long.wav"), ClipSlot(file: "gone.wav")])
        let engine = AudioEngine(output: .null)
        engine.start()
        defer { engine.stop() }
        let t0 = Date()
        engine.loadInBackground(document: doc, baseDirectory: dir)
        XCTAssertLessThan(Date().timeIntervalSince(t0), 0.05, "the call returns before the samples are read")
        XCTAssertTrue(engine.isLoading)
        var warnings: [String]?
        let end = Date().addingTimeInterval(30)
        while warnings == nil && Date() < end {
            warnings = engine.finishedLoad()
            usleep(10_000)
        }
        XCTAssertEqual(warnings, ["slot 2: gone.wav: file not found (\(dir)/gone.wav)"])
        XCTAssertFalse(engine.isLoading)
        engine.play()
        let out = engine.pump(frames: 4800)
        XCTAssertGreaterThan(out.map(abs).max() ?? 0, 0.4, "the loaded sample plays")
    }

    func testAnEditWhileLoadingIsLoadedToo() throws {
        try Fixture.wav(Fixture.sine(hz: 441, seconds: 5, rate: 44_100), in: dir, name: "a.wav", rate: 44_100)
        try Fixture.wav(Fixture.block(frames: 4800, level: 0.25), in: dir, name: "b.wav")
        var doc = Fixture.document(tracks: [[(0, .clip(1))]], slots: [ClipSlot(file: "a.wav")])
        let engine = AudioEngine(output: .null)
        engine.start()
        defer { engine.stop() }
        engine.loadInBackground(document: doc, baseDirectory: dir)
        doc.slots[0] = ClipSlot(file: "b.wav")
        engine.updateInBackground(document: doc)
        var warnings: [String]?
        let end = Date().addingTimeInterval(30)
        while warnings == nil && Date() < end {
            warnings = engine.finishedLoad()
            usleep(10_000)
        }
        XCTAssertEqual(warnings, [])
        engine.play()
        let out = engine.pump(frames: 2400)
        // b.wav's constant level (the track's gain still settling from silence), not a.wav's sine.
        XCTAssertTrue((2000..<2400).allSatisfy { abs(out[2 * $0] - 0.25) < 1e-3 }, "the newer slot's sample plays")
    }
}

import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// Starting on a moment of the clock and moving the music while it plays: what playing together rests on.
final class PlayAtTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = TestPaths.temporaryDirectory("play-at") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func engine() throws -> AudioEngine {
        try Fixture.wav(Fixture.block(frames: 100, level: 0.5), in: dir, name: "b.wav")
        let doc = Fixture.document(tracks: [[(0, .clip(1)), (0.25, .clip(1))]], slots: [ClipSlot(file: "b.wav")], span: 0.5)
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        _ = pump(engine, 4_864)
        return engine
    }

    func testPlayingFromAMomentStartsPassZeroOnTheFrameThatMomentIsHeard() throws {
        let engine = try engine()
        // The null output reports no latency: the frame heard at the stamp's moment is the stamp's frame.
        let clock = engine.playheadClock
        XCTAssertEqual(clock.frame, 4_864)
        engine.play(heardAtNanos: clock.nanos + UInt64(1_000.0 / 48_000 * 1e9))
        let out = pump(engine, 30_000)
        XCTAssertEqual(Onsets.soundStarts(out), [1_000, 13_000, 25_000])
    }

    func testAMomentAlreadyPastJoinsAtTheNextPassStartAsThatPass() throws {
        let engine = try engine()
        // Pass 0 would have started 1.1 s ago (52,800 frames): passes last 24,000 frames, so pass 3 starts
        // 19,200 frames from now, and the music there is 1.5 s into the unwrapped loop.
        engine.play(heardAtNanos: engine.playheadClock.nanos - 1_100_000_000)
        let out = pump(engine, 32_000)
        XCTAssertEqual(Onsets.soundStarts(out), [19_200, 31_200])
        XCTAssertEqual(engine.playheadClock.music, 1.5 + (32_000.0 - 19_200) / 48_000, accuracy: 1e-9)
    }

    func testANudgeMovesTheMusicLaterOrEarlierByThatManyFrames() throws {
        let engine = try engine()
        engine.play(heardAtNanos: engine.playheadClock.nanos)
        var out = pump(engine, 6_000)
        engine.nudge(seconds: 480.0 / 48_000)
        out += pump(engine, 24_000)
        engine.nudge(seconds: -240.0 / 48_000)
        out += pump(engine, 12_000)
        XCTAssertEqual(Onsets.soundStarts(out), [0, 12_480, 24_480, 36_240])
    }
}

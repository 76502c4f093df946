import Foundation
import TemperaAudio
import TemperaCore
import TemperaPlayback
import TemperaTestSupport
import XCTest

/// When the player hears a new document, and what it said about loading: decided once, for the editor, `join`
/// and `play --pads` alike. A real engine on the null output plays; slots name files that are not there.
final class PlaybackControllerTests: XCTestCase {
    let dir = TestPaths.temporaryDirectory("controller")

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// One track; the slots given by number name missing files.
    func document(missing: [Int] = []) -> Document {
        var slots = (0..<16).map { _ in ClipSlot() }
        for n in missing { slots[n - 1] = ClipSlot(file: "gone\(n).wav") }
        return Document(tracks: [Track(name: "t1", markers: MarkerList([]))], slots: slots,
                        transport: Transport(tempo: 1, volume: 1, loopStart: 0, loopEnd: 1, loopOn: true, length: 1))
    }

    typealias Version = PlaybackController.Version

    func testTheDocumentIsBuiltAndPublishedOnlyWhenItsVersionChanged() {
        let engine = AudioEngine(output: .null)
        let c = PlaybackController(player: engine)
        var built = 0
        let doc = document()
        func publish(_ v: Version) -> PlaybackController.News? {
            c.publish(v, baseDirectory: dir, document: { built += 1; return doc })
        }
        XCTAssertEqual(publish(Version(generation: 0, revision: 0))?.fresh, true, "the first is a load")
        XCTAssertNil(publish(Version(generation: 0, revision: 0)), "nothing changed")
        XCTAssertEqual(built, 1, "and the document was not built for nothing")
        XCTAssertEqual(publish(Version(generation: 0, revision: 1))?.fresh, false, "an edit is an update")
        XCTAssertEqual(publish(Version(generation: 0, revision: 1, extra: 3))?.fresh, false, "so is an audition's move")
        XCTAssertNil(publish(Version(generation: 0, revision: 1, extra: 3)))
        XCTAssertEqual(publish(Version(generation: 1, revision: 1, extra: 3))?.fresh, true, "a new session loads")
        XCTAssertEqual(built, 4)
        XCTAssertEqual(c.version, Version(generation: 1, revision: 1, extra: 3))
    }

    func testEachLoadProblemIsSaidOnceAndANewSessionSaysThemAllAgain() throws {
        let c = PlaybackController(player: AudioEngine(output: .null))
        var news = try XCTUnwrap(c.publish(Version(generation: 0, revision: 0), baseDirectory: dir,
                                           document: { document(missing: [3]) }))
        XCTAssertEqual(news.brokenSlots, [3])
        XCTAssertEqual(news.warnings.count, 1)
        XCTAssertTrue(news.warnings[0].hasPrefix("slot 3: "), news.warnings[0])
        XCTAssertEqual(news.message, news.warnings[0])
        let slot3 = news.warnings[0]

        // An edit that leaves the slots alone loads nothing and says nothing.
        news = try XCTUnwrap(c.publish(Version(generation: 0, revision: 1), baseDirectory: dir,
                                       document: { document(missing: [3]) }))
        XCTAssertNil(news.brokenSlots)
        XCTAssertNil(news.message)

        // A slot that changed: only its problem is new.
        news = try XCTUnwrap(c.publish(Version(generation: 0, revision: 2), baseDirectory: dir,
                                       document: { document(missing: [3, 5]) }))
        XCTAssertEqual(news.brokenSlots, [3, 5])
        XCTAssertTrue(news.message?.hasPrefix("slot 5: ") == true, news.message ?? "nil")
        XCTAssertFalse(news.message?.contains("more") == true)

        // A new session: every problem again, in one line.
        news = try XCTUnwrap(c.publish(Version(generation: 1, revision: 0), baseDirectory: dir,
                                       document: { document(missing: [3, 5]) }))
        XCTAssertTrue(news.fresh)
        XCTAssertEqual(news.message, slot3 + " (and 1 more)")
    }

    func testInTheBackgroundTheProblemsComeWhenTheSamplesAreIn() throws {
        let c = PlaybackController(player: AudioEngine(output: .null))
        c.loadsInBackground = true
        let news = try XCTUnwrap(c.publish(Version(generation: 0, revision: 0), baseDirectory: dir,
                                           document: { document(missing: [2]) }))
        XCTAssertEqual(news.brokenSlots, [], "nothing known yet")
        XCTAssertNil(news.message)
        XCTAssertTrue(c.look()?.isLoading == true)
        var loaded: PlaybackController.News?
        let deadline = Date().addingTimeInterval(10)
        while loaded == nil, Date() < deadline {
            loaded = c.finishedLoad()
            usleep(1_000)
        }
        XCTAssertEqual(loaded?.brokenSlots, [2])
        XCTAssertTrue(loaded?.message?.hasPrefix("slot 2: ") == true)
        XCTAssertFalse(c.look()?.isLoading == true)
        XCTAssertNil(c.finishedLoad(), "said once")
    }

    func testANewPlayerHearsTheDocumentAfresh() {
        let c = PlaybackController(player: nil)
        let v = Version(generation: 0, revision: 0)
        XCTAssertEqual(c.publish(v, baseDirectory: dir, document: { document() })?.warnings, [], "silent: remembered only")
        XCTAssertNil(c.look())
        let engine = AudioEngine(output: .null)
        c.player = engine
        let news = c.publish(v, baseDirectory: dir, document: { document(missing: [7]) })
        XCTAssertEqual(news?.fresh, true)
        XCTAssertEqual(news?.brokenSlots, [7])
        engine.start()
        XCTAssertEqual(c.look()?.output, .running(latencyMs: 0))
    }

    func testTheSlotNumbersALoadNames() {
        XCTAssertEqual(PlaybackController.slots(in: ["slot 3: cannot open 'x.wav'", "slot 12: bad", "other"]), [3, 12])
    }
}

/// The transport's underrun counter stands still while paused (the stream runs dry between silent blocks).
final class AudibleUnderrunsTests: XCTestCase {
    func testUnderrunsWhilePausedAreLeftOutAndThoseWhilePlayingCount() {
        var u = AudibleUnderruns()
        XCTAssertEqual(u.update(total: 0, playing: true), 0)
        XCTAssertEqual(u.update(total: 2, playing: true), 2)
        XCTAssertEqual(u.update(total: 9, playing: false), 2, "seven while paused")
        XCTAssertEqual(u.update(total: 40, playing: false), 2)
        XCTAssertEqual(u.update(total: 41, playing: true), 3)
        XCTAssertEqual(u.update(total: 41, playing: true), 3)
    }
}

import Foundation
import Synchronization
import TemperaApp
import TemperaAudio
import TemperaCore
import TemperaPlayback
import TemperaTestSupport
import XCTest

/// `play --pads` without a sound server: a real engine on the null output, pumped at the pace of a device by a
/// thread of its own (what an output's thread does), the pads given as lines.
final class PadPlayerTests: XCTestCase {
    let dir = TestPaths.temporaryDirectory("pad-player")

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// A one-second loop with nothing in it and the kit's first two slots.
    func document() -> Document {
        var doc = Document.newDocument()
        doc.transport.loopStart = 0
        doc.transport.loopEnd = 1
        doc.transport.length = 1
        doc.transport.tempo = 1
        doc.tracks = [Track(name: "t1", markers: MarkerList([]))]
        return doc
    }

    /// Renders 256-frame blocks every 256/48 000 s until stopped, as a device asks for them.
    final class Device: Sendable {
        private let running = Atomic<Bool>(true)
        init(_ engine: AudioEngine) {
            nonisolated(unsafe) let engine = engine
            Thread.detachNewThread { [self] in
                let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 512)
                defer { buffer.deallocate() }
                let start = MonotonicClock.nanos()
                var blocks: UInt64 = 0
                while running.load(ordering: .relaxed) {
                    engine.pump(into: buffer, frames: 256)
                    blocks += 1
                    let due = start + blocks * 256 * 1_000_000_000 / 48_000
                    let now = MonotonicClock.nanos()
                    if due > now { usleep(useconds_t((due - now) / 1_000)) }
                }
            }
        }
        func stop() { running.store(false, ordering: .relaxed) }
    }

    func play(_ lines: [String], record: String?, interruptAfter: Double? = nil)
        throws -> (PadPlayer.Outcome, printed: [String], warned: [String]) {
        let engine = AudioEngine(output: .null, kitDirectory: TestPaths.kitDirectory)
        let controller = PlaybackController(player: engine)
        let doc = document()
        _ = controller.publish(PlaybackController.Version(generation: 0, revision: -1), baseDirectory: dir,
                               document: { doc })
        engine.start()
        let device = Device(engine)
        defer { device.stop() }
        engine.play(loops: 2)
        var printed: [String] = [], warned: [String] = []
        var player = PadPlayer(controller: controller, document: doc, song: false, click: false, record: record,
                               printLine: { printed.append($0) }, warn: { warned.append($0) })
        let begun = Date()
        if let interruptAfter { player.interrupted = { Date().timeIntervalSince(begun) > interruptAfter } }
        let feed = PadFeed()
        for (k, line) in lines.enumerated() { feed.add(line, number: k + 1, warn: { warned.append($0) }) }
        feed.close()
        let outcome = try player.run(feed: feed)
        return (outcome, printed, warned)
    }

    func testThePadsArePlayedRecordedWhereHeardAndSaved() throws {
        let out = dir + "/recorded.json"
        let (outcome, printed, warned) = try play(["0.25 1 1", "1.5 2 0.5"], record: out)
        XCTAssertEqual(outcome, .finished)
        XCTAssertEqual(warned, [])
        XCTAssertEqual(printed.count, 2)
        XCTAssertTrue(printed[0].hasPrefix("{\"slot\":1,\"velocity\":1,\"sent\":0.25,"), printed[0])
        XCTAssertTrue(printed[1].contains("\"pass\":1,"), printed[1])
        let saved = try DocumentFile.load(out)
        let hits = saved.tracks.flatMap { $0.markers.map { $0 } }.filter { $0.content != nil }
        XCTAssertEqual(hits.count, 2, "both pads became markers")
        // Heard where they were played: a block (5.3 ms) and the scheduler's wake-up either side.
        let times = hits.map(\.time).sorted()
        XCTAssertEqual(times[0], 0.25, accuracy: 0.02)
        XCTAssertEqual(times[1], 0.5, accuracy: 0.02, "the second pass's 1.5 s is 0.5 s into the loop")
    }

    /// Through a private JACK server, `play --pads --record` records the notes MIDI in plays too, beside the
    /// pads of its feed (here none): each printed with its note, each a marker of its slot in the saved take.
    func testMidiInIsRecordedWithThePads() throws {
        let server = try JackTestServer()
        server.use()
        defer {
            server.stop()
            try? FileManager.default.removeItem(atPath: server.dir)
        }
        var doc = document()
        doc.transport.loopEnd = 2
        doc.transport.length = 2
        doc.slots[1].midiInNote = 38
        let engine = AudioEngine(output: .jack, kitDirectory: TestPaths.kitDirectory)
        let controller = PlaybackController(player: engine)
        _ = controller.publish(PlaybackController.Version(generation: 0, revision: -1), baseDirectory: dir,
                               document: { doc })
        engine.start()
        let running = Date().addingTimeInterval(5)
        while Date() < running { if case .running = engine.status { break }; usleep(10_000) }
        let keys = try server.startClient(name: "keys", send: [(0, [0x99, 38, 127]), (24_000, [0x99, 38, 64])],
                                          onlySend: true, lead: 12_000)
        XCTAssertNotNil(keys.waitReady())
        engine.play(loops: 2)
        let out = dir + "/recorded.json"
        var printed: [String] = [], warned: [String] = []
        let player = PadPlayer(controller: controller, document: doc, song: false, click: false, record: out,
                               printLine: { printed.append($0) }, warn: { warned.append($0) })
        let feed = PadFeed()
        feed.close()
        XCTAssertEqual(try player.run(feed: feed), .finished)
        XCTAssertEqual(try keys.finish().sent.count, 2)
        // A private server without real-time scheduling may miss a period on a loaded machine: said, not a fault.
        XCTAssertEqual(warned.filter { !$0.hasSuffix("underruns") }, [])
        XCTAssertEqual(printed.count, 2, "\(printed)")
        XCTAssertTrue(printed.allSatisfy { $0.hasPrefix("{\"slot\":2,") && $0.contains("\"midi\":38") }, "\(printed)")
        let saved = try DocumentFile.load(out)
        let hits = saved.tracks.flatMap { $0.markers.map { $0 } }.filter { $0.content == .clip(2) }
        XCTAssertEqual(hits.map(\.amp).sorted(), [64.0 / 127, 1], "both notes became markers of slot 2")
    }

    func testBadLinesAreSaidPlayTheRestAndFailAtTheEnd() throws {
        XCTAssertThrowsError(try play(["0.1 1 1", "0.2 99 1"], record: nil)) { error in
            XCTAssertEqual(error as? PadPlayer.Failure,
                           PadPlayer.Failure(message: "1 bad line(s) on standard input were skipped"))
        }
    }

    func testAnInterruptPausesAndEndsTheRun() throws {
        let (outcome, printed, _) = try play(["0.1 1 1", "1.9 1 1"], record: nil, interruptAfter: 0.5)
        XCTAssertEqual(outcome, .interrupted)
        XCTAssertEqual(printed.count, 1, "the pad due after the interrupt never played")
    }
}

import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// Pads through the engine: a hit starts at the next block, sounds as a marker would, leaves the loop alone, and
/// the engine reports what each slot sounds and where the music is.
final class PadTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = TestPaths.temporaryDirectory("pads") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// A loop of a low block on slot 1 (track 1) and pads on slot 2 (a 1,000-frame block) and slot 3 (a tone).
    func document(markers: [(Double, Content?)] = [(0, .clip(1)), (0.25, .clip(1))]) throws -> Document {
        let a = try Fixture.wav(Fixture.block(frames: 300, level: 0.2), in: dir, name: "a.wav")
        let b = try Fixture.wav(Fixture.block(frames: 1_000, level: 0.5), in: dir, name: "b.wav")
        let c = try Fixture.wav(Fixture.sine(hz: 440, seconds: 0.05, amp: 0.3), in: dir, name: "c.wav")
        return Fixture.document(tracks: [markers], slots: [ClipSlot(file: a), ClipSlot(file: b), ClipSlot(file: c)],
                                span: 0.5, volume: 0.7)
    }

    func engine(_ doc: Document) -> AudioEngine {
        let e = AudioEngine(output: .null)
        XCTAssertEqual(e.load(document: doc, baseDirectory: dir), [])
        e.start()
        return e
    }

    func testAPadStartsAtTheFirstFrameOfTheNextBlockAndSoundsExactlyAsAMarkerOfItsVelocity() throws {
        let doc = try document(markers: [])
        let e = engine(doc)
        var out = e.pump(frames: 256)
        e.hitPad(slot: 2, velocity: 0.6)
        out += e.pump(frames: 1_200)
        XCTAssertEqual(Onsets.firstSound(out), 256)
        // The same sample as a marker of amplitude 0.6 on a unit-gain track at time 0.
        let marked = try document(markers: [(0, .clip(2))])
        var withMarker = marked
        withMarker.tracks[0].markers = MarkerList([Marker(id: 0, time: 0, amp: 0.6, content: .clip(2))])
        let reference = OfflineRenderer(document: withMarker, baseDirectory: dir, loops: 1, maxTail: 0).renderAll()
        assertSamplesEqual(Array(out[512..<(512 + 2_400)]), Array(reference[0..<2_400]))
    }

    func testPlayingPadsLeavesTheLoopUntouched() throws {
        let doc = try document()
        func run(loop: Bool, pads: Bool) -> [Float] {
            let e = engine(loop ? doc : try! document(markers: []))
            e.play()
            var out: [Float] = []
            for block in 0..<80 {
                if pads && block % 7 == 3 { e.hitPad(slot: block % 2 == 0 ? 2 : 3, velocity: 0.5) }
                out += e.pump(frames: 240)
            }
            return out
        }
        let both = run(loop: true, pads: true), loop = run(loop: true, pads: false), pads = run(loop: false, pads: true)
        XCTAssertGreaterThan(pads.map(abs).max()!, 0.1)
        // Below the master's soft clip the mix is a sum: the loop with pads, less the pads alone, is the loop.
        assertSamplesEqual(zip(both, pads).map { $0 - $1 }, loop, accuracy: 1e-6)
    }

    func testPausingStopsTheMusicButAPadRingsOn() throws {
        let doc = try document(markers: [])
        func run(pause: Bool) -> [Float] {
            let e = engine(doc)
            e.play()
            var out = e.pump(frames: 256)
            e.hitPad(slot: 2, velocity: 1)
            out += e.pump(frames: 256)
            if pause { e.pause() }
            out += e.pump(frames: 1_000)
            return out
        }
        assertSamplesEqual(run(pause: true), run(pause: false))
    }

    func testTheEngineReportsWhatEachSlotSounds() throws {
        let e = engine(try document(markers: []))
        XCTAssertEqual(e.slotSound(2), SlotSound(length: 0, remaining: 0))
        _ = e.pump(frames: 100)
        e.hitPad(slot: 2, velocity: 1)
        _ = e.pump(frames: 256)
        XCTAssertEqual(e.slotSound(2), SlotSound(length: 1_000, remaining: 744))
        XCTAssertEqual(e.slotSound(2).fraction, 0.744)
        XCTAssertEqual(e.slotSound(3), SlotSound(length: 0, remaining: 0))
        _ = e.pump(frames: 500)
        XCTAssertEqual(e.slotSound(2).remaining, 244)
        // A second hit: the voice with most left is reported.
        e.hitPad(slot: 2, velocity: 1)
        _ = e.pump(frames: 100)
        XCTAssertEqual(e.slotSound(2).remaining, 900)
        _ = e.pump(frames: 1_000)
        XCTAssertFalse(e.slotSound(2).sounding)
        // The schedule's voices count too: slot 1 plays at time 0 of the loop.
        var doc = try document(markers: [(0, .clip(1))])
        doc.transport.loopOn = true
        let f = engine(doc)
        f.play()
        _ = f.pump(frames: 100)
        XCTAssertEqual(f.slotSound(1), SlotSound(length: 300, remaining: 200))
    }

    func testThePlayheadClockPlacesAHitAtTheMusicHeard() throws {
        var doc = try document(markers: [])
        doc.transport.tempo = 2
        let e = engine(doc)
        _ = e.pump(frames: 480)
        let stopped = e.hitPad(slot: 2, velocity: 1)
        XCTAssertNil(stopped.heard)
        e.play()
        _ = pump(e, 48_000 + 12_000)   // 1.25 s at tempo 2: 2.5 s of music, pass 5 of a 0.5 s region
        let clock = e.playheadClock
        XCTAssertTrue(clock.playing)
        XCTAssertEqual(clock.music, 2.5, accuracy: 1e-12)
        XCTAssertEqual(clock.latency, 0)
        // A key arriving 10 ms after the stamp hears 20 ms more music (tempo 2).
        let hit = e.hitPad(slot: 2, velocity: 1, arrival: clock.nanos + 10_000_000)
        XCTAssertEqual(hit.heard!, 2.52, accuracy: 1e-9)
        XCTAssertEqual(hit.timeline!.pass, 5)
        XCTAssertEqual(hit.timeline!.time, 0.02, accuracy: 1e-9)
        // With a latency of 15 ms the listener is 30 ms of music behind what was rendered.
        var late = clock
        late.latency = 0.015
        XCTAssertEqual(late.heard(atNanos: clock.nanos), 2.47, accuracy: 1e-9)
        XCTAssertEqual(late.timeline(2.47).time, 0.47, accuracy: 1e-9)
        XCTAssertEqual(late.timeline(2.47).pass, 4)
        XCTAssertEqual(late.nanos(whenHeard: 2.5), clock.nanos + 15_000_000)
        // Just after the start the listener still hears what came before: a hit there is not clamped to the
        // start but belongs to the loop's end (pass -1), 30 ms of music before the next downbeat, as played.
        var fresh = clock
        fresh.music = 0.01
        fresh.playStart = 0
        fresh.latency = 0.02
        XCTAssertEqual(fresh.heard(atNanos: clock.nanos), -0.03, accuracy: 1e-12)
        XCTAssertEqual(fresh.timeline(-0.03).pass, -1)
        XCTAssertEqual(fresh.timeline(-0.03).time, 0.47, accuracy: 1e-12)
    }

    func testAHitHeardJustBeforeTheLoopStartsIsRecordedAtTheLoopsEndNotClampedToItsStart() throws {
        // A 0.5 s loop; the key arrives 12 ms after the transport started, with 15 ms of output latency: the
        // player heard 3 ms before the music's start. A loop recorder puts that hit 3 ms before the loop's end.
        var doc = try document(markers: [])
        doc.transport.loopOn = true
        let e = engine(doc)
        e.play()
        _ = pump(e, 576)   // 12 ms
        var hit = e.hitPad(slot: 2, velocity: 0.9, arrival: e.playheadClock.nanos)
        hit.clock.latency = 0.015
        XCTAssertEqual(hit.heard!, -0.003, accuracy: 1e-12)
        XCTAssertEqual(hit.timeline?.pass, -1)
        XCTAssertEqual(hit.timeline!.time, 0.497, accuracy: 1e-12)
        let session = Session(document: doc)
        try session.run(.recordTake([RecordedHit(time: hit.timeline!.time, slot: 2, velocity: hit.velocity)]))
        let marker = try XCTUnwrap(session.document.tracks.last?.markers.first)
        XCTAssertEqual(marker.time, 0.497, accuracy: 1e-12)
        XCTAssertEqual(marker.content, .clip(2))
    }

    func testAnEmptySlotOrSilentHitPlaysNothing() throws {
        let e = engine(try document(markers: []))
        e.hitPad(slot: 9, velocity: 1)
        e.hitPad(slot: 2, velocity: 0)
        e.hitPad(slot: 17, velocity: 1)
        XCTAssertNil(Onsets.firstSound(e.pump(frames: 512)))
        XCTAssertEqual(e.activeVoices, 0)
    }
}

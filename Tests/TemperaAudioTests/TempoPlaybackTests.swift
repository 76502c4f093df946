import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// Time that bends as heard: the render, the engine and the server put every onset of a ramp, a
/// section ramp and a track with its own cycle on the frame the core's schedule computes in closed form.
final class TempoPlaybackTests: XCTestCase {
    var dir = ""
    var click = ""
    var servers: [PulseTestServer] = []

    override func setUp() {
        dir = TestPaths.temporaryDirectory("tempo")
        click = try! Fixture.wav(Fixture.block(frames: 200, level: 0.5), in: dir, name: "click.wav")
    }

    override func tearDown() {
        for s in servers { s.stop() }
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Quarter notes (beat 0.5 s) over four bars, the map from 90 to 120 BPM over them.
    func rampDocument(_ shape: TempoMap.Shape = .linear) -> Document {
        var doc = Fixture.document(tracks: [(0..<16).map { (Double($0) * 0.5, Content.clip(1)) }],
                                   slots: [ClipSlot(file: click)], span: 8, volume: 0.9, amp: 0.7)
        doc.transport.tempoMap = TempoMap([TempoMap.Point(time: 0, tempo: 0.75, shape: shape),
                                           TempoMap.Point(time: 8, tempo: 1)])
        return doc
    }

    func testTheRenderPutsEveryQuarterOfALinearAndAnExpRampOnTheSchedulesFrameAt44100And48000() {
        for shape in [TempoMap.Shape.linear, .exp] {
            let doc = rampDocument(shape)
            for rate in [44_100.0, 48_000.0] {
                let out = OfflineRenderer(document: doc, baseDirectory: dir, sampleRate: rate, loops: 2, maxTail: 0)
                    .renderAll()
                let expected = Schedule(document: doc, sampleRate: rate).onsets(loops: 2).map { Int($0.frame) }
                XCTAssertEqual(Onsets.soundStarts(out), expected, "\(shape) at \(rate) Hz")
                XCTAssertEqual(out.count / 2, Int(Schedule(document: doc, sampleRate: rate).frame(pass: 2, time: 0)))
            }
        }
    }

    func testASectionRampOverThreeRepeatsRendersOnTheSongSchedulesFrames() {
        var doc = Fixture.document(tracks: [[(0, .clip(1)), (0.5, .clip(1)), (1, .clip(1)), (1.5, .clip(1))]],
                                   slots: [ClipSlot(file: click)], span: 2, volume: 0.9, amp: 0.7)
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 2, repeats: 3, tempo: 0.75),
                                   Song.Section(name: "B", start: 0, end: 2, repeats: 1)], on: true)
        doc.song.sections[0].tempoEnd = 1
        for rate in [44_100.0, 48_000.0] {
            let out = OfflineRenderer(document: doc, baseDirectory: dir, sampleRate: rate, loops: 1, maxTail: 0).renderAll()
            let expected = SongSchedule(document: doc, sampleRate: rate).onsets(songPass: 0).map { Int($0.frame) }
            XCTAssertEqual(Onsets.soundStarts(out), expected, "at \(rate) Hz")
        }
    }

    func testTracksWithTheirOwnCycleAndRatioRenderOnTheSchedulesFrames() {
        var doc = Fixture.document(tracks: [[(0, .clip(1)), (0.5, .clip(1))], [(0.1, .clip(1)), (0.4, .clip(1))]],
                                   slots: [ClipSlot(file: click)], span: 1, volume: 0.9, amp: 0.7)
        doc.tracks[0].cycle = Track.Cycle(start: 0, end: 0.75)
        doc.tracks[1].ratioText = "sqrt(2)"
        doc.tracks[1].ratio = 2.0.squareRoot()
        let out = OfflineRenderer(document: doc, baseDirectory: dir, sampleRate: 48_000, loops: 3, maxTail: 0).renderAll()
        let expected = Schedule(document: doc, sampleRate: 48_000).onsets(loops: 3).map { Int($0.frame) }
        XCTAssertEqual(Onsets.soundStarts(out), expected)
        XCTAssertTrue(expected.contains(108_000), "the cycle's fourth start, 2.25 s in")
    }

    func testTheEngineOnTheNullOutputPlaysARampAsTheRenderDoesAndShowsTheTempoHeard() {
        let doc = rampDocument()
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        _ = pump(engine, 4_800)
        engine.play(loops: 1)
        let offline = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 1).renderAll()
        // Half-way through the play time: the tempo heard is the map's at the playhead, not the document's.
        let half = offline.count / 4
        var live = pump(engine, half)
        let at = engine.position
        let heard = try! XCTUnwrap(engine.heardTempo)
        XCTAssertEqual(heard, 0.75 + 0.25 / 8 * at, accuracy: 1e-9)
        XCTAssertGreaterThan(heard, 0.8)
        live += pump(engine, offline.count / 2 - half)
        assertSamplesEqual(live, offline)
    }

    func testWhileASectionAt90BPMPlaysTheTempoHeardIsTheSectionsNotTheDocuments() {
        var doc = Fixture.document(tracks: [[(0, .clip(1))]], slots: [ClipSlot(file: click)], span: 2)
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 2, repeats: 1),
                                   Song.Section(name: "B", start: 0, end: 2, repeats: 1, tempo: 0.75)], on: true)
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        _ = pump(engine, 48_000)
        XCTAssertEqual(engine.heardTempo, 1)
        _ = pump(engine, 96_000)
        XCTAssertEqual(engine.songPosition?.section, 1)
        XCTAssertEqual(engine.heardTempo, 0.75, "90 BPM heard; the document says 120")
    }

    func testAnEditWhileARampPlaysKeepsThePositionAndLandsNewMarkersOnTheFormula() {
        var doc = rampDocument()
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play(loops: 1)
        // 3 s of play time in (about 3.9 s of the timeline): add a marker ahead at 6.25.
        var out = pump(engine, 144_000)
        doc.tracks[0].markers.insert(Marker(id: 99, time: 6.25, amp: 0.7, content: .clip(1)))
        engine.update(document: doc)
        let total = Int(Schedule(document: doc, sampleRate: 48_000).frame(pass: 1, time: 0))
        out += pump(engine, total - 144_000)
        XCTAssertEqual(Onsets.soundStarts(out), Schedule(document: doc, sampleRate: 48_000).onsets(loops: 1).map { Int($0.frame) })
    }

    func testAPadHitHeardDuringARampLandsAtItsExactDocumentTimeThroughTheInverse() throws {
        let doc = rampDocument()
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        // 10 s of play time: the second pass (the first lasts ln(4/3)/k = 9.206 s).
        _ = pump(engine, 480_000)
        let hit = engine.hitPad(slot: 1, velocity: 1)
        let heard = try XCTUnwrap(hit.heardSong)
        let (pass, time) = try XCTUnwrap(hit.timeline)
        let k = 0.25 / 8, first = log(1 / 0.75) / k
        XCTAssertEqual(pass, 1)
        // P(0, t) = heard − first pass: t = τ0·(e^(k·s) − 1)/k.
        XCTAssertEqual(time, 0.75 * (exp(k * (heard - first)) - 1) / k, accuracy: 1e-9)
        XCTAssertNotNil(hit.loop)
        // The music heard (unwrapped) is the same inverse, one pass of 8 s on: not run on at the stamp's tempo.
        XCTAssertEqual(try XCTUnwrap(hit.heard), 8 + 0.75 * (exp(k * (heard - first)) - 1) / k, accuracy: 1e-9)
    }

    func testThePlayheadClockReadsTheMusicHeardDuringARampThroughTheInverseNotTheTempoOfItsStamp() throws {
        // Stamped 2 s of play into the linear ramp from 0.75 over 8 s (k = 1/32), 50 ms of latency, read 0.5 s on.
        let doc = rampDocument()
        let (clock, pieces) = Schedule.clock(of: doc.transport, start: 0, end: 8)
        let loop = LoopTiming(start: 0, clock: clock, pieces: pieces)
        let k = 0.25 / 8
        func music(_ s: Double) -> Double { 0.75 * (exp(k * s) - 1) / k }
        let stamp = PlayheadClock(nanos: 1_000_000_000, music: music(2), latency: 0.05, tempo: 0.75 + k * music(2),
                                  start: 0, span: 8, playStart: 0, playing: true, song: 2)
        let at: UInt64 = 1_500_000_000
        XCTAssertEqual(stamp.heardSong(atNanos: at), 2.45, accuracy: 1e-12)
        XCTAssertEqual(stamp.heard(atNanos: at, loop: loop), music(2.45), accuracy: 1e-12)
        // Run on at the stamp's tempo it would be off by about 0.4 ms of music: what the inverse is for.
        XCTAssertGreaterThan(abs(stamp.heard(atNanos: at) - music(2.45)), 3e-4)
        // Past the pass's end (ln(4/3)/k = 9.206 s of play) it is the second pass's, unwrapped.
        var later = stamp
        later.song = 10
        let first = log(4.0 / 3) / k
        XCTAssertEqual(later.heard(atNanos: at, loop: loop), 8 + music(10.45 - first), accuracy: 1e-9)
    }

    func testThePlayheadShownDuringARampIsTheInverseAtThePlayTimeHeard() throws {
        let doc = rampDocument()
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        // 50 ms of output latency, as a server would report it; 4 s of play rendered.
        engine.shared.pointee.latencyMicros.store(50_000, ordering: .relaxed)
        _ = pump(engine, 192_000)
        let k = 0.25 / 8
        let s = 192_000 / 48_000.0 - 0.05
        XCTAssertEqual(engine.position, 0.75 * (exp(k * s) - 1) / k, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(engine.heardTempo), 0.75 * exp(k * s), accuracy: 1e-9, "τ(t) = τ0·e^(k·s)")
        // In a song section ramping from 0.75 to 1 over its 2 s (k = 1/8), 1 s of play in.
        var song = rampDocument()
        song.transport.tempoMap = TempoMap()
        song.song = Song(sections: [Song.Section(name: "A", start: 0, end: 2, repeats: 1, tempo: 0.75)], on: true)
        song.song.sections[0].tempoEnd = 1
        engine.update(document: song)
        engine.rewind()
        _ = pump(engine, 48_000 + 2_400)
        XCTAssertEqual(engine.position, 0.75 * (exp(1.0 / 8 * 1) - 1) * 8, accuracy: 1e-9)
    }

    func testWhatTheServerPlayedAcrossARampIsTheRenderSampleForSample() throws {
        let server = try PulseTestServer()
        servers.append(server)
        // A ramp from x1.5 to x3 over 4 s of the timeline, twice: about 3.7 s of playing.
        var line: [(Double, Content?)] = []
        for i in 0..<16 { line.append((Double(i) * 0.25 + 0.01 * Double(i % 3), .clip(1))) }
        var doc = Fixture.document(tracks: [line],
                                   slots: [ClipSlot(file: click)], span: 4, volume: 0.9, amp: 0.7)
        doc.transport.tempoMap = TempoMap([TempoMap.Point(time: 0, tempo: 1.5, shape: .linear),
                                           TempoMap.Point(time: 4, tempo: 3)])
        let offline = OfflineRenderer(document: doc, baseDirectory: dir, loops: 2).renderAll()
        let expected = Schedule(document: doc, sampleRate: 48_000).onsets(loops: 2).map { Int($0.frame) }
        let heard = try server.recordPlayback(of: doc, baseDirectory: dir, loops: 2, in: dir)
        XCTAssertEqual(heard.underruns, 0)
        let played = try XCTUnwrap(heard.aligned(with: offline), "nothing was recorded, or too little")
        XCTAssertEqual(Onsets.soundStarts(played), expected)
        assertSamplesEqual(played, offline, accuracy: 1e-6)
    }
}

import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// The metronome: a click on every beat of the timeline, the accent on each bar's first beat, sample-exact
/// through the engine, and the count-in.
final class MetronomeTests: XCTestCase {
    var dir = ""
    var servers: [PulseTestServer] = []

    override func setUp() { dir = TestPaths.temporaryDirectory("metronome") }

    override func tearDown() {
        for s in servers { s.stop() }
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// A document with no sound of its own: only the metronome plays.
    static func silentDocument(beat: Double, meter: Int, tempo: Double, loop: (Double, Double), countIn: Int = 0,
                               click: Bool = true) -> Document {
        var doc = Fixture.document(tracks: [[(0, nil), (0.1, nil)]], slots: [], tempo: tempo, span: loop.1)
        doc.transport.loopStart = loop.0
        doc.transport.beat = beat
        doc.transport.meter = meter
        doc.transport.click = click
        doc.transport.clickLevel = 1
        doc.transport.countIn = countIn
        return doc
    }

    /// Which onsets are accents: the accent is the higher click (2 kHz against 1 kHz: 8 zero crossings in its
    /// first 2 ms, against 4).
    static func accents(_ stereo: [Float], at starts: [Int]) -> [Bool] {
        starts.map { crossings(stereo, at: $0) >= 7 }
    }

    /// The loudest left sample in the 5 ms after `start`.
    static func peak(_ stereo: [Float], at start: Int) -> Float {
        var peak: Float = 0
        for i in start..<min(stereo.count / 2, start + 240) { peak = max(peak, abs(stereo[2 * i])) }
        return peak
    }

    /// Zero crossings of the left channel in the 2 ms after `start`: 8 for the accent's 2 kHz, 4 for 1 kHz.
    static func crossings(_ stereo: [Float], at start: Int) -> Int {
        var n = 0
        for i in (start + 1)..<(start + 96) where (stereo[2 * i] < 0) != (stereo[2 * i - 2] < 0) { n += 1 }
        return n
    }

    func testTheClickSoundsAreTwoShortTonesTheSameEveryTime() {
        let a = ClickSound(sampleRate: 48_000), b = ClickSound(sampleRate: 48_000)
        XCTAssertEqual(a.accent.left, b.accent.left)
        XCTAssertEqual(a.accent.frames, 1_440)
        XCTAssertEqual(a.beat.frames, 1_440)
        XCTAssertEqual(a.accent.left[0], 1)
        XCTAssertEqual(a.beat.left[0], 0.6)
        XCTAssertEqual(a.accent.left[1_439], 0)
        XCTAssertEqual(a.accent.left[12], Float(cos(2 * Double.pi * 2_000 * 12 / 48_000) * exp(-12 / 48_000 / 0.006)))
    }

    func testAClickOnEveryBeatWithTheAccentOnTheBarOffline() throws {
        // 3/4 at beat 0.4 s, tempo x1.25 (a beat lasts 0.32 s = 15360 frames), two bars looped twice.
        let doc = Self.silentDocument(beat: 0.4, meter: 3, tempo: 1.25, loop: (0, 2.4))
        let out = OfflineRenderer(document: doc, baseDirectory: dir, loops: 2, maxTail: 0).renderAll()
        let starts = Onsets.soundStarts(out)
        let expected: [Int] = (0..<12).map { (i: Int) -> Int in Int((Double(i) * 0.4 / 1.25 * 48_000).rounded()) }
        XCTAssertEqual(starts, expected)
        XCTAssertEqual(Self.accents(out, at: starts), (0..<12).map { $0 % 3 == 0 })
        XCTAssertEqual(Self.crossings(out, at: starts[0]), 8)
        XCTAssertEqual(Self.crossings(out, at: starts[1]), 4)
        // Louder too: 1 against 0.6 before the envelope (the master's soft clip rounds the accent a little).
        XCTAssertGreaterThan(Self.peak(out, at: starts[0]), Self.peak(out, at: starts[1]) * 1.5)
    }

    func testBeatsCountFromTimeZeroWhenTheLoopStartsOffTheBeat() throws {
        // Loop [0.3, 2.3) with beat 0.5: beats 1, 2, 3, 4 (at 0.5, 1, 1.5, 2) in every pass, beat 4 the accent
        // of bar 2; a pass lasts 2 s.
        let doc = Self.silentDocument(beat: 0.5, meter: 4, tempo: 1, loop: (0.3, 2.3))
        let out = OfflineRenderer(document: doc, baseDirectory: dir, loops: 2, maxTail: 0).renderAll()
        let starts = Onsets.soundStarts(out)
        let inPass: [Double] = [0.2, 0.7, 1.2, 1.7]
        let expected: [Int] = [0.0, 2.0].flatMap { (passStart: Double) -> [Int] in
            inPass.map { (t: Double) -> Int in Int(((passStart + t) * 48_000).rounded()) }
        }
        XCTAssertEqual(starts, expected)
        XCTAssertEqual(Self.accents(out, at: starts), [false, false, false, true, false, false, false, true])
    }

    func testTheCountInPlaysBarsOfClickBeforeTheMusic() throws {
        let kick = try Fixture.wav(Fixture.block(frames: 100, level: 0.25), in: dir, name: "k.wav")
        var doc = Self.silentDocument(beat: 0.5, meter: 2, tempo: 2, loop: (0, 1), countIn: 2)
        doc.slots[0] = ClipSlot(file: kick)
        // A clip a quarter beat in, so its onset stands apart from the clicks.
        doc.tracks[0].markers = MarkerList([Marker(id: 0, time: 0.125, amp: 1, content: .clip(1))])
        let r = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0)
        // Two bars of two beats at 0.25 s each: 1 s.
        XCTAssertEqual(r.countInFrames, 48_000)
        let out = r.renderAll()
        XCTAssertEqual(out.count / 2, 48_000 + 24_000)
        let starts = Onsets.soundStarts(out)
        XCTAssertEqual(starts, [0, 12_000, 24_000, 36_000, 48_000, 51_000, 60_000])
        XCTAssertEqual(Self.accents(out, at: starts), [true, false, true, false, true, false, false])
    }

    func testInASongEachSectionClicksOnTheTimelinesBeatsAtItsOwnTempo() throws {
        // 2/4 at beat 0.5: section A [0, 1) at x1, then B [1, 2.5) at x2 (beats 2, 3, 4 of the timeline, a
        // quarter second apart), after a bar of count-in at A's tempo.
        var doc = Self.silentDocument(beat: 0.5, meter: 2, tempo: 1, loop: (0, 2.5), countIn: 1)
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 1), Song.Section(name: "B", start: 1, end: 2.5, tempo: 2)],
                        on: true)
        let r = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0)
        XCTAssertEqual(r.countInFrames, 48_000)
        let out = r.renderAll()
        XCTAssertEqual(out.count / 2, 48_000 + 84_000)
        let starts = Onsets.soundStarts(out)
        XCTAssertEqual(starts, [0, 24_000, 48_000, 72_000, 96_000, 108_000, 120_000])
        XCTAssertEqual(Self.accents(out, at: starts), [true, false, true, false, true, false, true])
    }

    func testTheClickIsNotATrackAndIsSilentWhenOff() throws {
        var doc = Self.silentDocument(beat: 0.25, meter: 4, tempo: 1, loop: (0, 1))
        doc.tracks[0].mute = true
        let on = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0).renderAll()
        XCTAssertEqual(Onsets.soundStarts(on), [0, 12_000, 24_000, 36_000])
        XCTAssertEqual(Schedule(document: doc, sampleRate: 48_000).events.count, 0, "the click is not in the schedule")
        doc.transport.click = false
        let off = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0).renderAll()
        XCTAssertTrue(off.allSatisfy { $0 == 0 })
    }

    func testTurningTheClickOnWhilePlayingStartsAtTheNextBeat() throws {
        var doc = Self.silentDocument(beat: 0.25, meter: 4, tempo: 1, loop: (0, 1), click: false)
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        var out = engine.pump(frames: 10_000)
        doc.transport.click = true
        engine.update(document: doc)
        out += engine.pump(frames: 38_000)
        XCTAssertEqual(Onsets.soundStarts(out), [12_000, 24_000, 36_000])
        out += engine.pump(frames: 12_000)
        XCTAssertEqual(Onsets.soundStarts(out).last, 48_000, "the next pass starts with its accent")
        XCTAssertEqual(Self.accents(out, at: [48_000]), [true])
    }

    /// The private PulseAudio server plays the metronome with its count-in; the recording has a click on every
    /// beat, the accent on each bar's first beat, frames exact, and equals the offline render.
    func testThePulseServerPlaysAClickOnEveryBeatWithTheAccentOnTheBar() throws {
        let server = try PulseTestServer()
        servers.append(server)
        // 5/4 at 100 BPM (beat 0.6 s at x1), a bar of count-in, then one bar looped twice: a beat lasts 28800
        // frames, 15 beats in all.
        var doc = Self.silentDocument(beat: 0.6, meter: 5, tempo: 1, loop: (0, 3), countIn: 1)
        doc.transport.volume = 0.9
        let offline = OfflineRenderer(document: doc, baseDirectory: dir, loops: 2, maxTail: 0.05).renderAll()
        let expected = (0..<15).map { $0 * 28_800 }
        let heard = try server.recordPlayback(of: doc, baseDirectory: dir, loops: 2, in: dir)
        XCTAssertEqual(heard.underruns, 0)
        let played = try XCTUnwrap(heard.aligned(with: offline), "nothing was recorded")
        let starts = Onsets.soundStarts(played)
        XCTAssertEqual(starts, expected)
        XCTAssertEqual(Self.accents(played, at: starts), (0..<15).map { $0 % 5 == 0 })
        XCTAssertEqual(starts.map { Self.crossings(played, at: $0) }, (0..<15).map { $0 % 5 == 0 ? 8 : 4 })
        XCTAssertEqual(starts.map { Self.peak(played, at: $0) > 0.6 }, (0..<15).map { $0 % 5 == 0 },
                       "the accent is the louder click")
        assertSamplesEqual(played, offline, accuracy: 1e-6)
    }
}

import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// The engine driven block by block on the null output: edits and tempo changes while playing.
final class LiveEditTests: XCTestCase {
    var dir = ""
    var click = ""

    override func setUp() {
        dir = TestPaths.temporaryDirectory("live")
        click = try! Fixture.wav(Fixture.block(frames: 200, level: 0.5), in: dir, name: "click.wav")
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func pulses(_ times: [Double]) -> [(Double, Content?)] { times.map { ($0, .clip(1)) } }

    func testPlayingOnTheNullOutputMatchesTheOfflineRender() throws {
        let doc = Fixture.document(tracks: [pulses([0, 0.1, 0.35, 0.6])], slots: [ClipSlot(file: click)], tempo: 1.25)
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        _ = pump(engine, 4_800)   // the master gain settles on the document's volume
        engine.play(loops: 2)
        let offline = OfflineRenderer(document: doc, baseDirectory: dir, loops: 2, maxTail: 1).renderAll()
        let live = pump(engine, offline.count / 2)
        assertSamplesEqual(live, offline)
        _ = pump(engine, 256)
        XCTAssertTrue(engine.isFinished)
    }

    func testAnEditIsHeardFromTheNextEventWithNoGapAndNothingDoubled() throws {
        let before = Fixture.document(tracks: [pulses([0, 0.2, 0.4, 0.6, 0.8])], slots: [ClipSlot(file: click)])
        let engine = AudioEngine(output: .null)
        engine.load(document: before, baseDirectory: dir)
        engine.start()
        engine.play()
        var out = pump(engine, 24_064)   // 0.5013 s: the onsets at 0, 0.2 and 0.4 have played
        // Move 0.4 to 0.3 and 0.6 to 0.45 (both before the playhead: already past), add 0.55 (after it).
        let after = Fixture.document(tracks: [pulses([0, 0.2, 0.3, 0.45, 0.55, 0.8])], slots: [ClipSlot(file: click)])
        engine.update(document: after)
        out += pump(engine, 48_000 + 24_000)
        XCTAssertEqual(Onsets.soundStarts(out), [0, 9_600, 19_200,                       // before the edit
                                                  26_400, 38_400,                         // the rest of the pass, edited
                                                  48_000, 57_600, 62_400, 69_600, 74_400, 86_400,  // the next pass
                                                  96_000])
    }

    func testATempoChangeWhilePlayingReanchorsAtTheMusicalPosition() throws {
        let times = [0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875]
        var doc = Fixture.document(tracks: [pulses(times)], slots: [ClipSlot(file: click)])
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        let change = 15_104   // 0.31467 s at tempo 1: three onsets played (0, 0.125, 0.25)
        var out = pump(engine, change)
        doc.transport.tempo = 1.5
        engine.update(document: doc)
        out += pump(engine, 48_000)
        let starts = Onsets.soundStarts(out)
        XCTAssertEqual(Array(starts.prefix(3)), [0, 6_000, 12_000])
        // From the change on, onsets sit at C + schedule frame at the new tempo, C chosen so the musical position
        // at the change (0.31467 s) stays where it was.
        let schedule = Schedule(document: doc, sampleRate: 48_000)
        let position = Double(change) / 48_000
        let c = Int64(change) - Int64((position / 1.5 * 48_000).rounded())
        var expected: [Int] = []
        for pass in 0..<2 {
            for t in times where pass > 0 || t > position {
                let f = Int(c + schedule.frame(pass: pass, time: t))
                if f < change + 48_000 { expected.append(f) }
            }
        }
        XCTAssertEqual(Array(starts.dropFirst(3)), expected)
        XCTAssertEqual(expected.first, change + Int(((0.375 - position) / 1.5 * 48_000).rounded()))
        XCTAssertEqual(engine.position, (Double(change + 48_000 - Int(c)) / 48_000 * 1.5).truncatingRemainder(dividingBy: 1),
                       accuracy: 1e-9)
    }

    func testAnOpenGateClosesWhereTheNewTempoPutsItsEnd() throws {
        let long = try Fixture.wav(Fixture.block(frames: 48_000, level: 0.5), in: dir, name: "long.wav")
        var doc = Fixture.document(tracks: [[(0, .clip(1)), (0.5, nil)]],
                                   slots: [ClipSlot(file: long, mode: .gate, release: 10)])
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        var out = pump(engine, 4_864)         // 0.10133 s into the gate
        doc.transport.tempo = 2
        engine.update(document: doc)
        out += pump(engine, 20_000)
        // The gate's end (0.5) is 0.39867 s of music away: 0.19933 s = 9 568 frames at tempo 2.
        let end = 4_864 + 9_568
        XCTAssertEqual(out[2 * (end - 1)], 0.5)
        XCTAssertLessThan(out[2 * (end + 10)], 0.5)
        XCTAssertEqual(out[2 * (end + 480)], 0)
    }

    func testPauseAndPlayResumeWhereTheMusicStopped() throws {
        let doc = Fixture.document(tracks: [pulses([0, 0.25, 0.5, 0.75])], slots: [ClipSlot(file: click)])
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        var out = pump(engine, 15_360)          // 0.32 s
        engine.pause()
        out += pump(engine, 10_240)             // paused: silence, the position stands still
        XCTAssertEqual(engine.position, 0.32, accuracy: 1e-9)
        engine.play()
        out += pump(engine, 30_000)
        // Resumed at frame 25 600: the onset at 0.5 s comes 0.18 s later, the one at 0.75 s 0.43 s later.
        XCTAssertEqual(Onsets.soundStarts(out), [0, 12_000, 25_600 + 8_640, 25_600 + 20_640])
    }

    func testWithTheLoopOffPlaybackStopsAtTheEndAndPlaysAgainFromTheStart() throws {
        var doc = Fixture.document(tracks: [pulses([0, 0.5])], slots: [ClipSlot(file: click)])
        doc.transport.loopOn = false
        doc.transport.length = 1
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        XCTAssertTrue(engine.isPlaying)
        var out = pump(engine, 49_920)
        XCTAssertFalse(engine.isPlaying, "stopped at the end")
        XCTAssertEqual(engine.position, 0, "and back at the start")
        engine.play()
        XCTAssertTrue(engine.isPlaying)
        out += pump(engine, 30_000)
        XCTAssertEqual(Onsets.soundStarts(out), [0, 24_000, 49_920, 49_920 + 24_000])
    }

    func testRewindGoesBackToTheLoopStart() throws {
        let doc = Fixture.document(tracks: [pulses([0, 0.3])], slots: [ClipSlot(file: click)])
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        var out = pump(engine, 20_480)
        engine.rewind()
        out += pump(engine, 20_480)
        XCTAssertEqual(Onsets.soundStarts(out), [0, 14_400, 20_480, 20_480 + 14_400])
    }

    func testASampleReplacedWhileItSoundsLivesUntilItsVoiceEnds() throws {
        let long = try Fixture.wav(Fixture.block(frames: 9_600, level: 0.5), in: dir, name: "long.wav")
        let other = try Fixture.wav(Fixture.block(frames: 100, level: 0.25), in: dir, name: "other.wav")
        var doc = Fixture.document(tracks: [pulses([0])], slots: [ClipSlot(file: long)], span: 1)
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        var out = pump(engine, 2_560)
        doc.slots[0] = ClipSlot(file: other)
        engine.update(document: doc)
        out += pump(engine, 2_560)
        XCTAssertEqual(engine.liveSnapshots, 2, "the voice still reads the first snapshot's sample")
        out += pump(engine, 5_120)
        XCTAssertEqual(out[2 * 9_000], 0.5, "the old sample played on, intact")
        XCTAssertEqual(engine.liveSnapshots, 1, "its voice over, the first snapshot was freed")
    }

    func testRetiredSnapshotsAreFreedOnceNothingReadsThem() throws {
        var doc = Fixture.document(tracks: [pulses([0, 0.5])], slots: [ClipSlot(file: click)])
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        for k in 0..<200 {
            doc.transport.volume = 0.5 + Double(k % 10) / 20
            engine.update(document: doc)
            _ = pump(engine, 256)
        }
        XCTAssertLessThanOrEqual(engine.liveSnapshots, 2)
    }
}

/// The engine compiles only the tracks an edit touched; what it publishes is the schedule, exactly.
final class EventCompilerTests: XCTestCase {
    func scheduleEvents(_ doc: Document) -> [MixEvent] {
        Schedule(document: doc, sampleRate: 48_000).events.map(MixEvent.init)
    }

    func testIncrementalCompilationEqualsTheWholeSchedule() {
        var doc = Document.demo()
        // Same-instant markers on one track and across tracks, a rest and an onset together, a `?`, a hold.
        doc.tracks[0].markers.insert(Marker(id: doc.makeMarkerID(), time: 0.75, amp: 0.5, content: .rest))
        doc.tracks[1].markers.insert(Marker(id: doc.makeMarkerID(), time: 0.75, amp: 0.5, content: .random))
        doc.tracks[2].markers.insert(Marker(id: doc.makeMarkerID(), time: 1.2, amp: 0.5, content: .hold))
        let compiler = EventCompiler()
        XCTAssertEqual(compiler.events(for: doc), scheduleEvents(doc))
        // One track edited, one muted, one soloed, a loop region moved, a track added and one removed.
        doc.tracks[3].markers.insert(Marker(id: doc.makeMarkerID(), time: 0.33, amp: 0.7, content: .clip(5)))
        XCTAssertEqual(compiler.events(for: doc), scheduleEvents(doc))
        doc.tracks[1].mute = true
        XCTAssertEqual(compiler.events(for: doc), scheduleEvents(doc))
        doc.tracks[2].solo = true
        XCTAssertEqual(compiler.events(for: doc), scheduleEvents(doc))
        doc.tracks[2].solo = false
        doc.transport.loopStart = 0.5
        doc.transport.loopEnd = 1.5
        XCTAssertEqual(compiler.events(for: doc), scheduleEvents(doc))
        doc.tracks.append(doc.tracks[0])
        XCTAssertEqual(compiler.events(for: doc), scheduleEvents(doc))
        doc.tracks.remove(at: 1)
        XCTAssertEqual(compiler.events(for: doc), scheduleEvents(doc))
        XCTAssertGreaterThan(compiler.events(for: doc).count, 10)
    }

    /// A cycle track's events as a fresh compiler makes them, per section of the playback.
    func cycleEvents(_ p: Playback) -> [[MixEvent]] {
        p.sections.map { s in
            (0..<s.cycleCount).map { p.cycles[s.cycleFirst + $0] }.flatMap { c in
                Array(UnsafeBufferPointer(start: c.pointer, count: c.count))
            }
        }
    }

    func testTheSongsCycleTracksAreRecompiledOnlyWhenTheirMarkersChange() {
        var doc = Fixture.document(tracks: [[(0.1, .clip(1)), (1.2, .clip(1)), (2.5, .clip(1))],
                                            [(0.2, .clip(1)), (1.4, .clip(1)), (2.1, .clip(1))],
                                            (0..<3_000).map { (Double($0) / 1_000, .clip(1)) }],
                                   slots: [ClipSlot(file: "x.wav")], span: 3)
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 1, repeats: 2),
                                   Song.Section(name: "B", start: 1, end: 3, repeats: 1),
                                   Song.Section(name: "C", start: 0, end: 1, repeats: 1)], on: true)
        // Track 2 cycles over [1, 2.5) whatever the section; track 3 plays at sqrt(2) over each section's region
        // (a marker every millisecond: its storage chunks of 512 markers do not reach from one region to the other).
        doc.tracks[1].cycle = Track.Cycle(start: 1, end: 2.5)
        doc.tracks[2].ratio = 2.0.squareRoot()
        let compiler = EventCompiler()
        let first = compiler.playback(for: doc)
        XCTAssertEqual(first.sections.map(\.cycleCount), [2, 2, 2])
        XCTAssertEqual(first.cycles.count, 4, "track 2's cycle in each region (compiled once), track 3 over each region")
        XCTAssertTrue(first.cycles[0] === first.cycles[2])
        XCTAssertEqual(cycleEvents(first), cycleEvents(EventCompiler().playback(for: doc)))

        // An edit to track 1 keeps every cycle track's compiled events, the very same memory.
        doc.tracks[0].markers.insert(Marker(id: 50, time: 0.5, amp: 1, content: .clip(1)))
        let second = compiler.playback(for: doc)
        XCTAssertTrue(zip(first.cycles, second.cycles).allSatisfy { $0 === $1 })

        // An edit to track 3 inside region B recompiles track 3 there only; one to track 2's cycle recompiles it.
        doc.tracks[2].markers.insert(Marker(id: 5_000, time: 1.9005, amp: 1, content: .clip(1)))
        let third = compiler.playback(for: doc)
        XCTAssertEqual(zip(second.cycles, third.cycles).map { $0 === $1 }, [true, true, true, false])
        XCTAssertEqual(cycleEvents(third), cycleEvents(EventCompiler().playback(for: doc)))
        doc.tracks[1].markers.insert(Marker(id: 52, time: 2.4, amp: 1, content: .clip(1)))
        let fourth = compiler.playback(for: doc)
        XCTAssertEqual(zip(third.cycles, fourth.cycles).map { $0 === $1 }, [false, true, false, true])
        XCTAssertEqual(cycleEvents(fourth), cycleEvents(EventCompiler().playback(for: doc)))

        // A new ratio, and a muted track: compiled afresh, and gone.
        doc.tracks[2].ratio = 1.5
        doc.tracks[1].mute = true
        let fifth = compiler.playback(for: doc)
        XCTAssertEqual(fifth.sections.map(\.cycleCount), [1, 1, 1])
        XCTAssertFalse(fifth.cycles.contains { $0 === fourth.cycles[1] })
        XCTAssertEqual(fifth.cycles.map(\.ratio), [1.5, 1.5])
        XCTAssertEqual(cycleEvents(fifth), cycleEvents(EventCompiler().playback(for: doc)))
    }
}

import XCTest
@testable import TemperaCore

/// A document as a MIDI file and a MIDI file as a document, event by event.
final class MidiExportTests: XCTestCase {
    /// Slot 1 the kit's kick (one-shot), slot 2 a gate on MIDI note 69, slot 3 an unknown sound.
    func document(tempo: Double = 1, markers: [(Double, Double, Content?)], span: Double = 2) -> Document {
        var slots = Array(repeating: ClipSlot(), count: 16)
        slots[0] = ClipSlot(name: "kick", file: "kit/kick.wav")
        slots[1] = ClipSlot(name: "a", note: 69, mode: .gate)
        slots[2] = ClipSlot(name: "violin", file: "violin.wav")
        let track = Track(name: "line", markers: MarkerList(markers.enumerated().map { i, m in
            Marker(id: MarkerID(i), time: m.0, amp: m.1, content: m.2)
        }))
        return Document(tracks: [track], slots: slots,
                        transport: Transport(tempo: tempo, loopStart: 0, loopEnd: span, loopOn: true, length: span))
    }

    /// The note events of exported track `n` (from 1; 0 is the tempo track).
    func notes(_ f: MidiFile, track n: Int) -> [MidiEvent] {
        f.tracks[n].filter {
            if case .meta = $0.message { return false }
            return true
        }
    }

    func testTheTempoTrackSaysTheBPMAndTheMeterAndEachTrackIsNamed() {
        let (f, _) = MidiExport.file(document(tempo: 1.25, markers: [(0, 1, .clip(1))]),
                                     options: .init(soundSeconds: [0.3]))
        XCTAssertEqual(f.format, 1)
        XCTAssertEqual(f.division, 960)
        XCTAssertEqual(f.tracks.count, 2)
        // 150 BPM: 400,000 µs a quarter.
        XCTAssertEqual(Array(f.tracks[0].prefix(3)), [.trackName("tempo"), .timeSignature(numerator: 4),
                                                      .tempo(tick: 0, microsecondsPerQuarter: 400_000)])
        XCTAssertEqual(f.tracks[1].first, .trackName("line"))
    }

    func testTheDocumentsBeatAndMeterGiveTheTempoAndTimeSignature() {
        var doc = document(markers: [(0.6, 1, .clip(1))])
        doc.transport.beat = 0.6
        doc.transport.meter = 7
        let (f, _) = MidiExport.file(doc, options: .init(soundSeconds: [0.1]))
        XCTAssertEqual(Array(f.tracks[0].prefix(3)), [.trackName("tempo"), .timeSignature(numerator: 7),
                                                      .tempo(tick: 0, microsecondsPerQuarter: 600_000)])
        XCTAssertEqual(notes(f, track: 1).first?.tick, 960, "one beat of 0.6 s")
    }

    func testImportTakesTheBeatFromTheFirstTempoAndTheMeterInQuarters() throws {
        let f = MidiFile(format: 0, division: 96, tracks: [[
            .timeSignature(numerator: 6, denominatorPower: 3), .tempo(tick: 0, microsecondsPerQuarter: 600_000),
            MidiEvent(tick: 0, .noteOn(channel: 9, note: 36, velocity: 100)),
        ]])
        let (doc, _) = try MidiImport.document(from: f)
        XCTAssertEqual(doc.transport.beat, 0.6)
        XCTAssertEqual(doc.transport.meter, 3, "6/8 is three quarters a bar")
    }

    func testOnsetsSitAtTheRoundedTickOfTheirPlaybackTimeEveryLoop() {
        let r2 = 2.0.squareRoot() / 4
        let doc = document(tempo: 1.25, markers: [(0, 1, .clip(1)), (r2, 0.5, .clip(1)), (1.3, 0, .clip(1))])
        let (f, _) = MidiExport.file(doc, options: .init(loops: 3, soundSeconds: [0.01]))
        let ons = notes(f, track: 1).compactMap { e -> (Int, UInt8, UInt8)? in
            if case .noteOn(let c, _, let v) = e.message { return (e.tick, c, v) }
            return nil
        }
        let bpm = 60 * 1.25 / 0.5
        var expected: [(Int, UInt8, UInt8)] = []
        for k in 0..<3 {
            for (t, v) in [(0.0, UInt8(127)), (r2, 64), (1.3, 1)] {
                let T = (Double(k) * 2 + t) / 1.25
                expected.append((Int((T * 960 * bpm / 60).rounded()), 9, v))
            }
        }
        XCTAssertEqual(ons.map(\.0), expected.map(\.0))
        XCTAssertEqual(ons.map(\.0)[1], 679, "sqrt(2)/4 s is 0.7071 beats of 0.5 s: 678.8 ticks")
        XCTAssertEqual(ons.map(\.1), expected.map(\.1), "drum sounds on channel 10")
        XCTAssertEqual(ons.map(\.2), expected.map(\.2), "velocity max(1, round(amp*127))")
    }

    func testMutedAndUnsoloedTracksAreWrittenWithTheirOwnCycleAsWhenHeard() {
        // A 2 s loop at 120 BPM (1,920 ticks a second); track 2 cycles over [0, 0.75): a note every 0.75 s.
        var doc = document(markers: [(0, 1, .clip(1)), (1, 1, .clip(1))])
        doc.tracks.append(Track(name: "cycle", markers: MarkerList([Marker(id: 9, time: 0, amp: 1, content: .clip(1))])))
        doc.tracks[1].cycle = Track.Cycle(start: 0, end: 0.75)
        func ons(_ doc: Document, track n: Int) -> [Int] {
            let (f, _) = MidiExport.file(doc, options: .init(loops: 2, soundSeconds: [0.01]))
            return notes(f, track: n).compactMap { e in
                if case .noteOn = e.message { return e.tick }
                return nil
            }
        }
        let heard = [0, 1440, 2880, 4320, 5760, 7200]
        XCTAssertEqual(ons(doc, track: 2), heard)
        XCTAssertEqual(ons(doc, track: 1), [0, 1920, 3840, 5760])
        var muted = doc
        muted.tracks[0].mute = true
        muted.tracks[1].mute = true
        XCTAssertEqual(ons(muted, track: 1), [0, 1920, 3840, 5760], "a muted track is written")
        XCTAssertEqual(ons(muted, track: 2), heard, "a muted track with its own cycle is written as it would sound")
        var soloed = doc
        soloed.tracks[0].solo = true
        XCTAssertEqual(ons(soloed, track: 2), heard, "a track silenced by another's solo too")
        var ratio = muted
        ratio.tracks[1].cycle = nil
        ratio.tracks[1].ratio = 2
        XCTAssertEqual(ons(ratio, track: 2), [0, 1920, 3840, 5760],
                       "at ratio 2 over the 2 s loop: its region's marker every second")
        var song = muted
        song.song = Song(sections: [Song.Section(name: "A", start: 0, end: 2, repeats: 1)], on: true)
        let (f, _) = MidiExport.file(song, options: .init(loops: 1, soundSeconds: [0.01]), song: true)
        XCTAssertEqual(notes(f, track: 2).compactMap { e -> Int? in
            if case .noteOn = e.message { return e.tick }
            return nil
        }, [0, 1440, 2880], "in a song section too")
    }

    func testAOneShotEndsAfterItsSoundAndAGateAtTheNextMarkerThatIsNotAHold() {
        let doc = document(markers: [(0, 1, .clip(1)), (0.5, 1, .clip(2)), (0.75, 1, .hold), (1, 1, nil),
                                     (1.5, 1, .clip(2))])
        let (f, _) = MidiExport.file(doc, options: .init(soundSeconds: [0.25]))
        XCTAssertEqual(notes(f, track: 1), [
            MidiEvent(tick: 0, .noteOn(channel: 9, note: 36, velocity: 127)),
            MidiEvent(tick: 480, .noteOff(channel: 9, note: 36, velocity: 64)),
            MidiEvent(tick: 960, .noteOn(channel: 0, note: 69, velocity: 127)),
            MidiEvent(tick: 1920, .noteOff(channel: 0, note: 69, velocity: 64)),
            MidiEvent(tick: 2880, .noteOn(channel: 0, note: 69, velocity: 127)),
            // The last gate closes at the region's end.
            MidiEvent(tick: 3840, .noteOff(channel: 0, note: 69, velocity: 64)),
        ])
    }

    func testARestCutsAOneShotAndAKeyStruckAgainEndsTheNoteBefore() {
        let doc = document(markers: [(0, 1, .clip(1)), (0.25, 1, .rest), (1, 1, .clip(1)), (1.125, 1, .clip(1))])
        let (f, _) = MidiExport.file(doc, options: .init(soundSeconds: [0.5]))
        XCTAssertEqual(notes(f, track: 1), [
            MidiEvent(tick: 0, .noteOn(channel: 9, note: 36, velocity: 127)),
            MidiEvent(tick: 480, .noteOff(channel: 9, note: 36, velocity: 64)),
            MidiEvent(tick: 1920, .noteOn(channel: 9, note: 36, velocity: 127)),
            MidiEvent(tick: 2160, .noteOff(channel: 9, note: 36, velocity: 64)),
            MidiEvent(tick: 2160, .noteOn(channel: 9, note: 36, velocity: 127)),
            MidiEvent(tick: 3120, .noteOff(channel: 9, note: 36, velocity: 64)),
        ])
    }

    func testASlotWhoseNameIsNoDrumIsNote60OnChannel1WithAWarning() {
        let doc = document(markers: [(0, 1, .clip(3))])
        let (f, warnings) = MidiExport.file(doc, options: .init(soundSeconds: [nil, nil, 0.1]))
        XCTAssertEqual(notes(f, track: 1).first, MidiEvent(tick: 0, .noteOn(channel: 0, note: 60, velocity: 127)))
        XCTAssertEqual(warnings, ["slot 3 (violin): no General MIDI drum has that name; written as note 60 on channel 1"])
    }

    func testImportPutsEachChannelAndNoteOnATrackAtTheTempoMapsSeconds() throws {
        let f = MidiFile(format: 1, division: 480, tracks: [
            [.tempo(tick: 0, microsecondsPerQuarter: 500_000), .tempo(tick: 480, microsecondsPerQuarter: 750_000),
             .tempo(tick: 960, microsecondsPerQuarter: 400_000)],
            [.trackName("drums"),
             MidiEvent(tick: 0, .noteOn(channel: 9, note: 36, velocity: 127)),
             MidiEvent(tick: 240, .noteOn(channel: 9, note: 42, velocity: 64)),
             MidiEvent(tick: 720, .noteOn(channel: 9, note: 36, velocity: 100)),
             MidiEvent(tick: 1200, .noteOn(channel: 9, note: 54, velocity: 1)),
             MidiEvent(tick: 1440, .meta(type: 0x2F, data: []))],
            [.trackName("bass"),
             MidiEvent(tick: 240, .noteOn(channel: 1, note: 40, velocity: 90)),
             MidiEvent(tick: 480, .noteOff(channel: 1, note: 40, velocity: 0)),
             MidiEvent(tick: 960, .noteOn(channel: 1, note: 40, velocity: 90)),
             MidiEvent(tick: 1200, .noteOn(channel: 1, note: 40, velocity: 0))],
        ])
        let (doc, warnings) = try MidiImport.document(from: f)
        XCTAssertEqual(warnings, [])
        XCTAssertEqual(doc.tracks.map(\.name), ["bass E2", "kick", "closed-hat", "tambourine"])
        func line(_ i: Int) -> [Double] { doc.tracks[i].markers.map(\.time) }
        // 120 BPM to tick 480 (0.5 s), 80 BPM to tick 960 (1.25 s), then 150 BPM.
        XCTAssertEqual(line(0), [0.25, 0.5, 1.25, 1.45])
        XCTAssertEqual(doc.tracks[0].markers.map(\.content), [.clip(1), .rest, .clip(1), .rest])
        XCTAssertEqual(line(1), [0, 0.875])
        XCTAssertEqual(doc.tracks[1].markers.map(\.amp), [1, 100.0 / 127])
        XCTAssertEqual(line(2), [0.25])
        XCTAssertEqual(line(3), [1.45])
        var bass = ClipSlot(name: "bass E2", note: 40, mode: .gate)
        bass.soundFont = "default"
        XCTAssertEqual(doc.slots[0], bass, "played by the General MIDI font, program 0")
        XCTAssertEqual(doc.slots[1], Document.defaultKit[0])
        XCTAssertEqual(doc.slots[2], Document.defaultKit[2])
        XCTAssertEqual(doc.slots[3].name, "tambourine")
        XCTAssertEqual(doc.slots[3].note, 54)
        XCTAssertEqual(doc.slots[3].soundFont, "default")
        XCTAssertEqual(doc.slots[3].bank, 128, "General MIDI drums")
        XCTAssertEqual(doc.transport.loopEnd, 1.65, "to the last End of Track")
        XCTAssertEqual(doc.transport.tempo, 1)
    }

    func testImportCarriesAChannelsProgramAndBankToItsSlots() throws {
        let f = MidiFile(format: 0, division: 96, tracks: [[
            MidiEvent(tick: 0, .channel(status: 0xB2, data: [0, 8])), MidiEvent(tick: 0, .programChange(channel: 2, program: 33)),
            MidiEvent(tick: 0, .noteOn(channel: 2, note: 45, velocity: 100)),
        ]])
        let (doc, _) = try MidiImport.document(from: f)
        XCTAssertEqual([doc.slots[0].program, doc.slots[0].bank], [33, 8])
    }

    func testSoundFontSlotsExportWithTheirProgramOnAChannelOfTheirOwn() {
        var doc = document(markers: [(0, 1, .clip(4)), (0.5, 1, .clip(5)), (1, 1, .clip(6)), (1.5, 1, .clip(2))])
        doc.slots[3] = ClipSlot(name: "bass", note: 40)
        doc.slots[3].soundFont = "default"
        doc.slots[3].program = 33
        doc.slots[4] = ClipSlot(name: "kick", note: 35)
        doc.slots[4].soundFont = "default"
        doc.slots[4].bank = 128
        doc.slots[5] = ClipSlot(name: "strings", note: 60)
        doc.slots[5].soundFont = "my.sf2"
        doc.slots[5].program = 48
        doc.slots[5].bank = 1
        let (f, _) = MidiExport.file(doc, options: .init(soundSeconds: Array(repeating: 0.1, count: 16)))
        XCTAssertEqual(Array(f.tracks[1].dropFirst().prefix(4)), [
            MidiEvent(tick: 0, .programChange(channel: 1, program: 33)),
            MidiEvent(tick: 0, .channel(status: 0xB2, data: [0, 1])),
            MidiEvent(tick: 0, .channel(status: 0xB2, data: [32, 0])),
            MidiEvent(tick: 0, .programChange(channel: 2, program: 48)),
        ])
        let ons = f.tracks[1].compactMap { e -> [Int]? in
            if case .noteOn(let c, let n, _) = e.message { return [Int(c), Int(n)] }
            return nil
        }
        XCTAssertEqual(ons, [[1, 40], [9, 35], [2, 60], [0, 69]])
    }

    func testImportRefusesFormat2AndAFileWithoutNotes() {
        XCTAssertThrowsError(try MidiImport.document(from: MidiFile(format: 2, division: 96, tracks: [[]])))
        XCTAssertThrowsError(try MidiImport.document(from: MidiFile(format: 1, division: 96, tracks: [[.trackName("x")]]))) {
            XCTAssertEqual(($0 as? MidiFileError)?.message, "the file holds no notes")
        }
    }

    func testMoreThan16SoundsLeaveTheRestWithoutAClip() throws {
        let f = MidiFile(format: 0, division: 96, tracks: [(0..<18).map {
            MidiEvent(tick: $0, .noteOn(channel: 9, note: UInt8(40 + $0), velocity: 100))
        }])
        let (doc, warnings) = try MidiImport.document(from: f)
        XCTAssertEqual(doc.tracks.count, 18)
        XCTAssertEqual(doc.tracks[17].markers.first?.content, nil)
        XCTAssertEqual(warnings, ["18 sounds, only 16 slots: 2 notes of 2 sounds are markers without a clip"])
    }
}

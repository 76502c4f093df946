import XCTest
@testable import TemperaCore

/// The Standard MIDI File reader and writer, byte for byte.
final class MidiFileTests: XCTestCase {
    /// `MThd` for format `format`, `count` tracks, `division` ticks per quarter.
    func header(format: UInt8 = 1, count: UInt8 = 1, division: (UInt8, UInt8) = (0x03, 0xC0)) -> [UInt8] {
        [0x4D, 0x54, 0x68, 0x64, 0, 0, 0, 6, 0, format, 0, count, division.0, division.1]
    }

    func chunk(_ body: [UInt8]) -> [UInt8] {
        let n = body.count
        return [0x4D, 0x54, 0x72, 0x6B, UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + body
    }

    func parseError(_ bytes: [UInt8]) -> String? {
        do {
            _ = try MidiFile.parse(bytes)
            return nil
        } catch let e as MidiFileError {
            return e.message
        } catch {
            return "\(error)"
        }
    }

    func testVariableLengthQuantitiesAreTheStandardsExamples() {
        let cases: [(Int, [UInt8])] = [(0, [0x00]), (0x40, [0x40]), (0x7F, [0x7F]), (0x80, [0x81, 0x00]),
                                       (0x2000, [0xC0, 0x00]), (0x3FFF, [0xFF, 0x7F]), (0x4000, [0x81, 0x80, 0x00]),
                                       (0x1F_FFFF, [0xFF, 0xFF, 0x7F]), (0x20_0000, [0x81, 0x80, 0x80, 0x00]),
                                       (0x0FFF_FFFF, [0xFF, 0xFF, 0xFF, 0x7F])]
        for (value, bytes) in cases {
            var out: [UInt8] = []
            MidiFile.appendQuantity(value, to: &out)
            XCTAssertEqual(out, bytes, "\(value)")
            var r = MidiFile.Reader(bytes: bytes, position: 0, end: bytes.count)
            XCTAssertEqual(try r.quantity("q"), value)
        }
    }

    func testRunningStatusNoteOnsAndVelocityZeroAreRead() throws {
        // Two note ons with one status byte, a note on of velocity 0 (an off), a program change, end of track.
        let body: [UInt8] = [0x00, 0x99, 36, 100, 0x60, 38, 90, 0x60, 36, 0, 0x00, 0xC0, 5, 0x00, 0xFF, 0x2F, 0x00]
        let f = try MidiFile.parse(header(format: 0) + chunk(body))
        XCTAssertEqual(f.format, 0)
        XCTAssertEqual(f.division, 960)
        XCTAssertEqual(f.tracks.count, 1)
        XCTAssertEqual(f.tracks[0], [
            MidiEvent(tick: 0, .noteOn(channel: 9, note: 36, velocity: 100)),
            MidiEvent(tick: 96, .noteOn(channel: 9, note: 38, velocity: 90)),
            MidiEvent(tick: 192, .noteOn(channel: 9, note: 36, velocity: 0)),
            MidiEvent(tick: 192, .programChange(channel: 0, program: 5)),
            MidiEvent(tick: 192, .meta(type: 0x2F, data: [])),
        ])
    }

    func testTheWriterUsesRunningStatusAndEndsEachTrackOnce() {
        let f = MidiFile(format: 1, division: 960, tracks: [[
            .trackName("a"),
            MidiEvent(tick: 0, .noteOn(channel: 9, note: 36, velocity: 100)),
            MidiEvent(tick: 480, .noteOff(channel: 9, note: 36, velocity: 64)),
            MidiEvent(tick: 480, .noteOn(channel: 9, note: 38, velocity: 1)),
            MidiEvent(tick: 1000, .noteOn(channel: 9, note: 38, velocity: 2)),
        ]])
        XCTAssertEqual(f.bytes(), header(count: 1) + chunk([
            0x00, 0xFF, 0x03, 0x01, 0x61,
            0x00, 0x99, 36, 100,
            0x83, 0x60, 0x89, 36, 64,
            0x00, 0x99, 38, 1,
            0x84, 0x08, 38, 2,
            0x00, 0xFF, 0x2F, 0x00,
        ]))
    }

    func testWhatIsWrittenReadsBackTheSame() throws {
        let f = MidiFile(format: 1, division: 480, tracks: [
            [.trackName("tempo"), .timeSignature(numerator: 7, denominatorPower: 3),
             .tempo(tick: 0, microsecondsPerQuarter: 600_000), .tempo(tick: 1920, microsecondsPerQuarter: 400_000),
             MidiEvent(tick: 5000, .meta(type: 0x2F, data: []))],
            [.trackName("drums ü"), MidiEvent(tick: 3, .sysex(status: 0xF0, data: [0x7E, 0x7F, 0x09, 0x01, 0xF7])),
             MidiEvent(tick: 3, .channel(status: 0xB9, data: [7, 100])), MidiEvent(tick: 4, .channel(status: 0xD9, data: [3])),
             MidiEvent(tick: 200_000_000, .noteOn(channel: 9, note: 42, velocity: 127)),
             MidiEvent(tick: 200_000_000, .meta(type: 0x2F, data: []))],
        ])
        XCTAssertEqual(try MidiFile.parse(f.bytes()), f)
    }

    func testAGapLongerThanADeltaHoldsIsBridgedAndReadsBackAtItsTick() throws {
        let far = 3 * 0x0FFF_FFFF + 5
        let f = MidiFile(format: 0, division: 960, tracks: [[
            MidiEvent(tick: 0, .noteOn(channel: 0, note: 60, velocity: 9)),
            MidiEvent(tick: far, .noteOn(channel: 0, note: 61, velocity: 9)),
        ]])
        let back = try MidiFile.parse(f.bytes())
        let notes = back.tracks[0].filter { if case .noteOn = $0.message { return true } else { return false } }
        XCTAssertEqual(notes, f.tracks[0])
        XCTAssertEqual(back.tracks[0].last?.tick, far)
    }

    func testSMPTEDivisionIsRefusedInOneLine() {
        // -25 frames per second, 40 ticks per frame.
        XCTAssertEqual(parseError(header(division: (0xE7, 0x28)) + chunk([0x00, 0xFF, 0x2F, 0x00])),
                       "SMPTE time division (frames per second) is not supported: only ticks per quarter note")
    }

    func testTruncatedAndCorruptFilesAreRefusedInOneLine() {
        let good = header(format: 0) + chunk([0x00, 0x90, 60, 100, 0x10, 0x80, 60, 0, 0x00, 0xFF, 0x2F, 0x00])
        XCTAssertNoThrow(try MidiFile.parse(good))
        XCTAssertEqual(parseError([]), "not a Standard MIDI File (it does not start with MThd)")
        XCTAssertEqual(parseError(Array("RIFF....WAVE".utf8)), "not a Standard MIDI File (it does not start with MThd)")
        XCTAssertEqual(parseError(Array(good[0..<10])), "the file is truncated inside its MThd header")
        XCTAssertEqual(parseError(Array(good[0..<14])), "the file is truncated: 0 of 1 tracks found (byte 14)")
        XCTAssertEqual(parseError(Array(good[0..<25])),
                       "track 1 is truncated: its chunk at byte 14 says 12 bytes, 3 remain")
        // A chunk whose length is honest but whose last event is cut in half.
        XCTAssertEqual(parseError(header(format: 0) + chunk([0x00, 0x90, 60])), "truncated at byte 25 inside a note on")
        XCTAssertEqual(parseError(header(format: 0) + chunk([0x00, 60, 100])),
                       "a data byte 0x3C at byte 23 of track 1 with no status before it")
        XCTAssertEqual(parseError(header(format: 0) + chunk([0x00, 0x90, 60, 0x90, 0x00])),
                       "a status byte 0x90 at byte 25 where a data byte of a note on was expected")
        XCTAssertEqual(parseError(header(format: 0) + chunk([0x81, 0x80, 0x80, 0x80, 0x00])),
                       "a variable-length quantity at byte 22 runs past four bytes")
        XCTAssertEqual(parseError(header(format: 0) + chunk([0x00, 0xFF, 0x01, 0x10, 0x41])),
                       "a meta event at byte 26 says 16 bytes, 1 remain in its track")
        XCTAssertEqual(parseError(header(format: 0) + chunk([0x00, 0xF2, 0x01, 0x02])),
                       "status byte 0xF2 at byte 23 of track 1 has no place in a file")
        XCTAssertEqual(parseError(header(format: 0, count: 2) + chunk([]) + chunk([])),
                       "a format 0 file holds one track, this one says 2")
        XCTAssertEqual(parseError(header(division: (0, 0)) + chunk([])), "the time division is 0 ticks per quarter note")
    }

    func testEveryPrefixAndEveryByteFlipOfAFileIsReadOrRefusedNeverATrap() {
        let f = MidiFile(format: 1, division: 960, tracks: [
            [.trackName("tempo"), .tempo(tick: 0, microsecondsPerQuarter: 500_000)],
            [MidiEvent(tick: 0, .noteOn(channel: 9, note: 36, velocity: 100)),
             MidiEvent(tick: 700, .noteOff(channel: 9, note: 36, velocity: 0)),
             MidiEvent(tick: 800, .sysex(status: 0xF0, data: [1, 2, 0xF7]))],
        ])
        let bytes = f.bytes()
        for n in 0..<bytes.count { _ = try? MidiFile.parse(Array(bytes[0..<n])) }
        for i in bytes.indices {
            for v: UInt8 in [0x00, 0x7F, 0x80, 0xFF] {
                var b = bytes
                b[i] = v
                _ = try? MidiFile.parse(b)
            }
        }
    }

    func testUnknownChunksAreSkipped() throws {
        let alien: [UInt8] = [0x58, 0x46, 0x49, 0x48, 0, 0, 0, 2, 0xAA, 0xBB]
        let f = try MidiFile.parse(header(format: 0) + alien + chunk([0x00, 0x99, 36, 1]))
        XCTAssertEqual(f.tracks, [[MidiEvent(tick: 0, .noteOn(channel: 9, note: 36, velocity: 1))]])
    }

    func testTheTempoMapGivesExactSecondsAcrossThreeTempoChanges() {
        // 120 BPM for 2 beats, 90 BPM for 3, 150 BPM for 1, then 60.
        let map = MidiTempoMap(division: 480, tempos: [(0, 500_000), (960, 666_667), (2400, 400_000), (2880, 1_000_000)])
        XCTAssertEqual(map.seconds(atTick: 0), 0)
        XCTAssertEqual(map.seconds(atTick: 240), 0.25)
        XCTAssertEqual(map.seconds(atTick: 960), 1)
        let a: Double = 960 * 500_000, b: Double = 1440 * 666_667, c: Double = 480 * 400_000, d: Double = 121 * 1_000_000
        XCTAssertEqual(map.seconds(atTick: 2400), (a + b) / 480e6)
        XCTAssertEqual(map.seconds(atTick: 2880), (a + b + c) / 480e6)
        XCTAssertEqual(map.seconds(atTick: 3001), (a + b + c + d) / 480e6)
    }

    func testTheTempoMapStartsAt120BPMAndALaterTempoAtOneTickWins() {
        let f = MidiFile(format: 1, division: 96, tracks: [
            [.tempo(tick: 96, microsecondsPerQuarter: 250_000), .tempo(tick: 96, microsecondsPerQuarter: 1_000_000)],
        ])
        let map = MidiTempoMap(file: f)
        XCTAssertEqual(map.seconds(atTick: 48), 0.25)
        XCTAssertEqual(map.seconds(atTick: 96 + 48), 1)
    }

    func testGeneralMIDIDrumNamesFromKitNamesSynonymsAndLongerNames() {
        let table: [(String, Int)] = [("kick", 36), ("snare", 38), ("rim", 37), ("clap", 39), ("closed-hat", 42),
                                      ("open-hat", 46), ("low-tom", 45), ("mid-tom", 47), ("high-tom", 50),
                                      ("crash", 49), ("ride", 51), ("cowbell", 56), ("shaker", 70), ("clave", 75),
                                      ("woodblock", 76), ("conga", 63)]
        for (name, note) in table {
            XCTAssertEqual(GeneralMIDI.drumNote(forName: name), note, name)
            XCTAssertEqual(GeneralMIDI.drumName(note: note), name)
        }
        XCTAssertEqual(GeneralMIDI.drumNote(forName: "kit/Open Hat.wav"), 46)
        XCTAssertEqual(GeneralMIDI.drumNote(forName: "Hat Closed"), 42)
        XCTAssertEqual(GeneralMIDI.drumNote(forName: "Snare Jazz"), 38)
        XCTAssertEqual(GeneralMIDI.drumNote(forName: "Tom Hi"), 50)
        XCTAssertEqual(GeneralMIDI.drumNote(forName: "Floor Tom"), 41)
        XCTAssertEqual(GeneralMIDI.drumNote(forName: "BD"), 36)
        XCTAssertNil(GeneralMIDI.drumNote(forName: "violin"))
        XCTAssertEqual(GeneralMIDI.noteName(69), "A4")
        XCTAssertEqual(GeneralMIDI.noteName(0), "C-1")
        XCTAssertEqual(GeneralMIDI.noteName(61), "C#4")
    }
}

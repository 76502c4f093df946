import XCTest
@testable import TemperaCore

/// The song: sections of the timeline, each played R times at its own tempo, chained into a piece.
/// Pass k of section j plays a marker at t at `T = Σ_{i<j} D_i + (k·(B_j − A_j) + (t − A_j))/τ_j`, pass m of a
/// looping song adds `m·Σ D_i`, and `frame = round(T · rate)`.
final class SongTests: XCTestCase {
    /// One track: clip 1 at 0, clip 10 at sqrt(2)/4, clip 2 at 2.5, clip 3 at 3; sections [0,2) x2 at x1,
    /// [2,3.5) x3 at x1.25, [0,2) x1 at x0.8; the song on and looping.
    func threeSectionDocument() -> Document {
        let items: [(Double, Int)] = [(0, 1), (2.0.squareRoot() / 4, 10), (2.5, 2), (3, 3)]
        let track = Track(name: "t", markers: MarkerList(items.enumerated().map {
            Marker(id: MarkerID($0.offset), time: $0.element.0, amp: 0.8, content: .clip($0.element.1))
        }))
        var doc = Document(tracks: [track], transport: Transport(length: 4), seed: 7)
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 2, repeats: 2, tempo: 1),
                                   Song.Section(name: "B", start: 2, end: 3.5, repeats: 3, tempo: 1.25),
                                   Song.Section(name: "A", start: 0, end: 2, repeats: 1, tempo: 0.8)],
                        on: true, loop: true)
        return doc
    }

    func onsets(_ doc: Document, rate: Double, passes: Int) -> [SongSchedule.Onset] {
        let schedule = SongSchedule(document: doc, sampleRate: rate)
        return (0..<passes).flatMap { schedule.onsets(songPass: $0) }
    }

    func testThreeSectionsWithRepeatsAndTemposLandOnTheFormulasFramesAt44100And48000OverTwoSongPasses() {
        let doc = threeSectionDocument()
        let timing = SongTiming(song: doc.song, tempo: 1)
        XCTAssertEqual(timing.sections.map(\.offset), [0, 4, 7.6])
        XCTAssertEqual(timing.sections.map(\.duration), [4, 3.6, 2.5])
        XCTAssertEqual(timing.total, 10.1)

        let at44 = onsets(doc, rate: 44_100, passes: 2)
        let at48 = onsets(doc, rate: 48_000, passes: 2)
        XCTAssertEqual(at44.map(\.time), at48.map(\.time))
        XCTAssertEqual(at44.map(\.time), [
            0, 0.3535533905932738, 2, 2.353553390593274,
            4.4, 4.8, 5.6, 6, 6.8, 7.2,
            7.6, 8.041941738241592,
            10.1, 10.453553390593273, 12.1, 12.453553390593274,
            14.5, 14.9, 15.7, 16.1, 16.9, 17.3,
            17.7, 18.14194173824159,
        ])
        XCTAssertEqual(at44.map(\.frame), [
            0, 15_592, 88_200, 103_792,
            194_040, 211_680, 246_960, 264_600, 299_880, 317_520,
            335_160, 354_650,
            445_410, 461_002, 533_610, 549_202,
            639_450, 657_090, 692_370, 710_010, 745_290, 762_930,
            780_570, 800_060,
        ])
        XCTAssertEqual(at48.map(\.frame), [
            0, 16_971, 96_000, 112_971,
            211_200, 230_400, 268_800, 288_000, 326_400, 345_600,
            364_800, 386_013,
            484_800, 501_771, 580_800, 597_771,
            696_000, 715_200, 753_600, 772_800, 811_200, 830_400,
            849_600, 870_813,
        ])
        XCTAssertEqual(at44.map(\.section), [1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3])
        XCTAssertEqual(at44.map(\.pass), [0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 0, 0])
        XCTAssertEqual(at44.map(\.loop), Array(repeating: 0, count: 12) + Array(repeating: 1, count: 12))
        XCTAssertEqual(at44.map(\.clip), [1, 10, 1, 10, 2, 3, 2, 3, 2, 3, 1, 10, 1, 10, 1, 10, 2, 3, 2, 3, 2, 3, 1, 10])
    }

    func testEveryFrameIsComputedFromTheSumsNotAccumulated() {
        // Ten thousand passes of the song: the last onset is where the formula puts it, not where adding up
        // ten thousand durations would drift to.
        let doc = threeSectionDocument()
        let schedule = SongSchedule(document: doc, sampleRate: 48_000)
        let last = schedule.onsets(songPass: 9_999).last!
        XCTAssertEqual(last.time, 9_999 * 10.1 + 7.6 + (2.0.squareRoot() / 4) / 0.8)
        XCTAssertEqual(last.frame, Int64((last.time * 48_000).rounded()))
        XCTAssertEqual(last.frame, 4_847_901_213)
    }

    func testAOneSectionSongAtTheDocumentTempoPlaysTheLoopsFrames() {
        var doc = threeSectionDocument()
        doc.transport.tempo = 0.75
        doc.transport.loopStart = 0.25
        doc.transport.loopEnd = 3.25
        doc.song = Song(sections: [Song.Section(name: "L", start: 0.25, end: 3.25, repeats: 7)], on: true)
        let loop = Schedule(document: doc, sampleRate: 44_100).onsets(loops: 7)
        let song = onsets(doc, rate: 44_100, passes: 1)
        XCTAssertEqual(song.map(\.frame), loop.map(\.frame))
        XCTAssertEqual(song.map(\.time), loop.map(\.time))
        XCTAssertEqual(song.map(\.pass), loop.map(\.loop))
    }

    func testSectionsSharingARegionShareItsEvents() {
        let schedule = SongSchedule(document: threeSectionDocument(), sampleRate: 48_000)
        XCTAssertEqual(schedule.regionEvents.count, 2)
        XCTAssertEqual(schedule.sectionRegion, [0, 1, 0])
    }

    // MARK: - Commands

    func testSectionCommandsReadAndWriteTheirTextualForm() throws {
        let lines = [
            "section add", "section add verse", "section add 0 2", "section add 0.5 sqrt(2) x3", "section add x4",
            "section add chorus 2 3.5 x2 tempo=1.25", "section add \"2\"", "section add \"x3\" tempo=0.8",
            "section 2 repeats 4", "section 1 tempo 0.8", "section 3 region 1/3 2", "section 1 name \"the bridge\"",
            "section 4 move 1", "section 2 delete", "section 3 duplicate", "song on", "song off", "song loop on", "song loop off",
        ]
        for line in lines {
            let command = try XCTUnwrap(CommandParser.parse(line), line)
            XCTAssertEqual(try CommandParser.parse(command.text), command, line)
        }
        XCTAssertEqual(try CommandParser.parse("section add chorus 2 3.5 x 2 tempo=5/4"),
                       .sectionAdd(name: "chorus", start: 2, end: 3.5, repeats: 2, tempo: 1.25))
        XCTAssertEqual(try CommandParser.parse("section add \"2\""),
                       .sectionAdd(name: "2", start: nil, end: nil, repeats: nil, tempo: nil))
        XCTAssertEqual(try CommandParser.parse("section 2 repeats x3"), .section(2, .repeats(3)))
    }

    func testBadSectionInputIsRefusedInOneLine() {
        let bad: [(String, String)] = [
            ("section add 2 2", "column 15: the region must end after it starts (2)"),
            ("section add 3 2", "column 15: the region must end after it starts (3)"),
            ("section add 0 2 x0", "column 17: repeats must be a whole number from 1 to 1000000, not 0"),
            ("section 1 repeats 0", "column 19: repeats must be a whole number from 1 to 1000000, not 0"),
            ("section 0 delete", "column 9: section must be a whole number from 1 to 10000, not 0"),
            ("section 1 tempo 0", "column 17: tempo must be from 0.05 to 20, not 0"),
            ("section 1 region 1", "column 20: missing B (section N region A B)"),
            ("section 1 explode", "column 11: unknown section setting 'explode' (repeats, tempo, bpm, meter, region, name, move, delete, duplicate, tracks, play)"),
            ("section 1 dlete", "column 11: unknown section setting 'dlete' (repeats, tempo, bpm, meter, region, name, move, delete, duplicate, tracks, play) (did you mean 'delete'?)"),
            ("section ad", "column 9: unknown section command 'ad' (did you mean 'add'?)"),
            ("song maybe", "column 6: expected on or off, not 'maybe' (song on|off | song loop on|off)"),
        ]
        for (line, message) in bad {
            XCTAssertThrowsError(try CommandParser.parse(line), line) { error in
                XCTAssertEqual((error as? CommandError)?.description, message, line)
            }
        }
    }

    func testSessionRefusesWhatDependsOnTheSong() throws {
        let s = Session(document: threeSectionDocument())
        try s.run(.section(3, .delete))
        try s.run(.section(2, .delete))
        try s.run(.section(1, .delete))
        XCTAssertTrue(s.document.song.sections.isEmpty)
        XCTAssertFalse(s.document.song.plays, "an empty song plays the loop")
        let before = s.document
        let steps = s.history.undoSteps.count
        for (line, message) in [("section 1 delete", "the song has no section: use 'section add'"),
                                ("song on", "the song has no section: use 'section add'")] {
            XCTAssertThrowsError(try s.run(line: line), line) { XCTAssertEqual(($0 as? CommandError)?.message, message) }
        }
        try s.run(line: "section add 0 1")
        for (line, message) in [("section 2 repeats 3", "no section 2 (the song has 1 section)"),
                                ("section 1 move 3", "cannot move section 1 to 3 (the song has 1 sections)")] {
            XCTAssertThrowsError(try s.run(line: line), line) { XCTAssertEqual(($0 as? CommandError)?.message, message) }
        }
        try s.run(.undo(1))
        XCTAssertEqual(s.document, before)
        XCTAssertEqual(s.history.undoSteps.count, steps, "a refused command records no step")
    }

    func testEachSectionCommandIsOneUndoStep() throws {
        let s = Session(document: Document.newDocument())
        let empty = s.document
        try s.run(line: "loop 0.5 1.5")
        let afterLoop = s.document
        let script = ["section add", "section add chorus 0 2 x4 tempo=1.5", "section 1 repeats 3", "section 1 tempo 0.5",
                      "section 2 region 1 2", "section 2 name refrain", "section 2 move 1", "song on", "song loop on",
                      "section 1 delete", "section 1 duplicate"]
        var states: [Document] = [afterLoop]
        for line in script {
            try s.run(line: line)
            states.append(s.document)
        }
        XCTAssertEqual(s.document.song.sections, Array(repeating: Song.Section(name: "A", start: 0.5, end: 1.5, repeats: 3,
                                                                               tempo: 0.5), count: 2))
        XCTAssertTrue(s.document.song.on)
        XCTAssertTrue(s.document.song.loop)
        XCTAssertEqual(states[2].song.sections[1], Song.Section(name: "chorus", start: 0, end: 2, repeats: 4, tempo: 1.5))
        XCTAssertEqual(states[7].song.sections.map(\.name), ["refrain", "A"])
        for k in stride(from: script.count - 1, through: 0, by: -1) {
            try s.run(.undo(1))
            XCTAssertEqual(s.document, states[k], "undo of \(script[k])")
        }
        try s.run(.undo(1))
        XCTAssertEqual(s.document, empty)
        try s.run(.redo(script.count + 1))
        XCTAssertEqual(s.document, states.last)
    }

    func testSectionAddTakesTheLoopRegionAndFollowsTheDocumentTempo() throws {
        let s = Session(document: Document.newDocument())
        try s.run(line: "loop 1/4 7/4")
        try s.run(line: "section add")
        XCTAssertEqual(s.document.song.sections, [Song.Section(name: "A", start: 0.25, end: 1.75)])
        try s.run(line: "tempo 1.5")
        XCTAssertEqual(SongTiming(song: s.document.song, tempo: s.document.transport.tempo).sections[0].tempo, 1.5)
    }

    // MARK: - The file

    func testTheSongIsSavedAndLoadedExactly() throws {
        let doc = threeSectionDocument()
        let text = DocumentFile.encode(doc)
        XCTAssertTrue(text.contains("""
              "song": {"on": true, "loop": true, "sections": [
                {"name": "A", "start": 0, "end": 2, "repeats": 2, "tempo": 1},
                {"name": "B", "start": 2, "end": 3.5, "repeats": 3, "tempo": 1.25},
                {"name": "A", "start": 0, "end": 2, "repeats": 1, "tempo": 0.8}
              ]},
            """), text)
        XCTAssertEqual(try DocumentFile.decode(text).song, doc.song)
        XCTAssertEqual(try DocumentFile.decode(text), doc)
    }

    func testAFileWithoutASongLoadsWithAnEmptySongAndSavesWithoutOne() throws {
        let doc = Document.newDocument()
        let text = DocumentFile.encode(doc)
        XCTAssertFalse(text.contains("\"song\""))
        XCTAssertEqual(try DocumentFile.decode(text).song, Song())
        XCTAssertEqual(try DocumentFile.decode("{\"tempera\": 1}").song, Song())
    }

    func testABadSongInAFileIsOneLineAndLoadsNothing() {
        let bad = [
            #"{"tempera": 1, "song": {"sections": [{"name": "A", "start": 2, "end": 1}]}}"#,
            #"{"tempera": 1, "song": {"sections": [{"name": "A", "start": 0, "end": 1, "repeats": 0}]}}"#,
            #"{"tempera": 1, "song": {"sections": [{"name": "A", "start": 0, "end": 1, "tempo": 0}]}}"#,
            #"{"tempera": 1, "song": {"on": "yes"}}"#,
        ]
        for text in bad {
            XCTAssertThrowsError(try DocumentFile.decode(text), text) { error in
                XCTAssertFalse((error as? CommandError)?.description.contains("\n") ?? true)
            }
        }
    }
}

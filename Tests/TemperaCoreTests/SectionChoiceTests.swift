import XCTest
@testable import TemperaCore

/// Sections choose what plays: `section N tracks LIST|all` names the tracks that sound, `section N play K=G`
/// makes track K play group G repeated from the section's start. Each changes exactly the section named, in
/// the onsets `tempera events --song` prints (the song's schedule), in the player's compiler and the MIDI file.
final class SectionChoiceTests: XCTestCase {
    /// Three tracks over a 2 s region: track 1 quarters at 0, 0.5, 1, 1.5 (clip 1), track 2 at 0.5 and 1.5
    /// (clip 2), track 3 at 1 (clip 3); group 1 is two clip-9 notes a quarter apart over 0.5 s; three sections
    /// of that region, the second twice.
    func session() throws -> Session {
        let s = Fixture.session([[0, 0.5, 1, 1.5], [0.5, 1.5], [1]],
                                contents: [[.clip(1), .clip(1), .clip(1), .clip(1)], [.clip(2), .clip(2)], [.clip(3)]])
        try s.run(line: "length 4")
        try s.run(line: "loop 0 2")
        s.currentTrack = 0
        try s.run(line: "marker add 3 clip=9")
        try s.run(line: "marker add 3.25 clip=9")
        s.selection = [0: Set(s.document.tracks[0].markers.filter { $0.time >= 3 }.map(\.id))]
        try s.run(line: "group store 1")
        for _ in 0..<3 { try s.run(line: "section add") }
        try s.run(line: "section 2 repeats 2")
        return s
    }

    /// Per section: (pass, track, time after the section's start, clip).
    func bySection(_ d: Document) -> [Int: [[Double]]] {
        let schedule = SongSchedule(document: d, sampleRate: 48_000)
        var out: [Int: [[Double]]] = [:]
        for o in schedule.onsets(songPass: 0) {
            let s = schedule.timing.sections[o.section - 1]
            out[o.section, default: []].append([Double(o.pass), Double(o.track),
                                                ((o.time - s.offset) * 1e9).rounded() / 1e9, Double(o.clip)])
        }
        return out
    }

    func testSectionTracksChangesExactlyTheSectionNamed() throws {
        let s = try session()
        let before = bySection(s.document)
        XCTAssertEqual(try s.run(line: "section 2 tracks 1,3"), "section 2 (B): tracks 1,3")
        let after = bySection(s.document)
        XCTAssertEqual(after[1], before[1])
        XCTAssertEqual(after[3], before[3])
        XCTAssertEqual(after[2], before[2]!.filter { $0[1] != 2 }, "track 2 is silent in section 2 only")
        XCTAssertEqual(after[2]!.count, 10)
        try s.run(line: "section 2 tracks none")
        XCTAssertNil(bySection(s.document)[2])
        try s.run(line: "section 2 tracks all")
        XCTAssertEqual(bySection(s.document), before)
        try s.run(line: "undo")
        XCTAssertNil(bySection(s.document)[2], "each is one step")
        XCTAssertThrowsError(try s.run(line: "section 2 tracks 4")) {
            XCTAssertEqual(($0 as? CommandError)?.message, "no track 4 (the document has 3)")
        }
    }

    func testSectionPlayChangesExactlyTheSectionNamed() throws {
        let s = try session()
        let before = bySection(s.document)
        XCTAssertEqual(try s.run(line: "section 3 play 2=1"), "section 3 (C): track 2 plays group 1")
        let after = bySection(s.document)
        XCTAssertEqual(after[1], before[1])
        XCTAssertEqual(after[2], before[2])
        // Track 2 plays group 1 four times over the 2 s region, from the section's start; the others as before.
        XCTAssertEqual(after[3]!.filter { $0[1] == 2 }.map { $0[2] }, [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75])
        XCTAssertEqual(Set(after[3]!.filter { $0[1] == 2 }.map { $0[3] }), [9])
        XCTAssertEqual(after[3]!.filter { $0[1] != 2 }, before[3]!.filter { $0[1] != 2 })
        // A track left out stays silent whatever it plays; 0 gives the track its own markers back.
        try s.run(line: "section 3 tracks 1,3")
        XCTAssertEqual(bySection(s.document)[3]!.filter { $0[1] == 2 }, [])
        try s.run(line: "section 3 tracks all")
        try s.run(line: "section 3 play 2=0")
        XCTAssertEqual(bySection(s.document), before)
        XCTAssertThrowsError(try s.run(line: "section 1 play 2=4")) {
            XCTAssertEqual(($0 as? CommandError)?.message, "group 4 is empty: store a selection with 'group store 4'")
        }
    }

    func testACycleTrackObeysTheGridAndTheLoopIsUnchanged() throws {
        let s = try session()
        s.currentTrack = 2
        try s.run(line: "track 3 cycle 1 1.5")
        let loop = Schedule(document: s.document, sampleRate: 48_000).events
        XCTAssertTrue(bySection(s.document)[1]!.contains { $0[1] == 3 })
        try s.run(line: "section 1 tracks 1-2")
        XCTAssertFalse(bySection(s.document)[1]!.contains { $0[1] == 3 }, "its own cycle is silent where the grid says so")
        XCTAssertTrue(bySection(s.document)[3]!.contains { $0[1] == 3 })
        try s.run(line: "section 2 play 1=1")
        XCTAssertEqual(Schedule(document: s.document, sampleRate: 48_000).events, loop, "the loop plays as before")
    }

    func testFilesKeepTheChoiceAndTheMidiFilePlaysIt() throws {
        let s = try session()
        try s.run(line: "section 2 tracks 1,3")
        try s.run(line: "section 3 play 2=1")
        let text = DocumentFile.encode(s.document)
        XCTAssertTrue(text.contains(#""repeats": 2, "tracks": [1, 3]}"#), text)
        XCTAssertTrue(text.contains(#""repeats": 1, "play": [[2, 1]]}"#), text)
        XCTAssertEqual(try DocumentFile.decode(text).song, s.document.song)
        XCTAssertEqual(try CommandParser.parse("section 2 tracks 1 3-4")?.text, "section 2 tracks 1,3,4")
        XCTAssertEqual(try CommandParser.parse("section 1 play 2=3 1=0")?.text, "section 1 play 2=3 1=0")
        // MIDI: track 2's notes are its two per pass in section 1, none in section 2 (x2), eight in section 3.
        let midi = MidiExport.file(s.document, song: true).file
        let ons = midi.tracks[2].filter { if case .noteOn = $0.message { return true } else { return false } }
        XCTAssertEqual(ons.count, 2 + 0 + 8)
    }
}

import XCTest
@testable import TemperaCore

/// Linked instances of groups: one truth in the groups bank, placed by where, on which track and how many
/// times; the compilers play them; `unlink` makes plain markers; files keep them.
final class GroupInstanceTests: XCTestCase {
    /// Track 1 holds a two-marker figure at 3 s (the group's source) and an empty marker at 4 s, tracks 2 and 3
    /// are empty; the loop is 8 s.
    func session() throws -> Session {
        let s = Fixture.session([[3, 3.25, 4], [], []], contents: [[.clip(1), .clip(2), nil], [], []])
        try s.run(line: "length 8")
        try s.run(line: "loop 0 8")
        s.selection[0] = Set(s.document.tracks[0].markers.prefix(2).map(\.id))
        try s.run(line: "group store 1")
        XCTAssertEqual(s.document.groups[1].span, 1, "to the next marker")
        return s
    }

    /// (track, time, clip) of every onset the loop plays, from the schedule.
    func onsets(_ s: Session) -> [[Double]] {
        Schedule(document: s.document, sampleRate: 48_000).events.map { [Double($0.track), $0.time, Double($0.clip)] }
    }

    func testAGroupEditedOnceChangesEveryInstancesEvents() throws {
        let s = try session()
        XCTAssertEqual(try s.run(line: "place group 1 at=0 track=2 times=2"), "placed group 1 x2 on track 2, linked: 0–2 s")
        try s.run(line: "place group 1 at=2.5 track=3")
        XCTAssertEqual(s.document.song.instances, [GroupInstance(group: 1, start: 0, track: 1, times: 2),
                                                   GroupInstance(group: 1, start: 2.5, track: 2)])
        XCTAssertEqual(s.document.tracks[1].markers.count, 0, "an instance stores no marker")
        XCTAssertEqual(onsets(s), [[1, 0, 1], [1, 0.25, 2], [1, 1, 1], [1, 1.25, 2], [2, 2.5, 1], [2, 2.75, 2],
                                   [0, 3, 1], [0, 3.25, 2]])
        // The group edited once (its second note now clip 5, a quarter later): every instance plays the edit.
        try s.run(line: "marker add 3.5 clip=5")
        s.selection[0] = Set([s.document.tracks[0].markers[0].id, s.document.tracks[0].markers.first { $0.time == 3.5 }!.id])
        try s.run(line: "group store 1")
        XCTAssertEqual(onsets(s).filter { $0[0] > 0 }, [[1, 0, 1], [1, 0.5, 5], [1, 1, 1], [1, 1.5, 5], [2, 2.5, 1], [2, 3, 5]])
        // Undo gives the old group back, and with it every instance's old events.
        try s.run(line: "undo")
        XCTAssertEqual(onsets(s).filter { $0[0] > 0 }, [[1, 0, 1], [1, 0.25, 2], [1, 1, 1], [1, 1.25, 2], [2, 2.5, 1], [2, 2.75, 2]])
    }

    func testPlacingIsOneStepAndUnlinkMakesPlainMarkers() throws {
        let s = try session()
        try s.run(line: "place group 1 at=0 track=2 times=2")
        try s.run(line: "undo")
        XCTAssertEqual(s.document.song.instances, [])
        try s.run(line: "redo")
        s.currentTrack = 1
        s.cursor = 1.5
        XCTAssertEqual(try s.run(line: "unlink"), "unlinked 1 instance: 4 markers, now plain")
        XCTAssertEqual(s.document.song.instances, [])
        XCTAssertEqual(s.document.tracks[1].markers.map(\.time), [0, 0.25, 1, 1.25])
        XCTAssertEqual(s.document.tracks[1].markers.map(\.content), [.clip(1), .clip(2), .clip(1), .clip(2)])
        // Plain now: an edit of the group no longer reaches them.
        try s.run(line: "undo")
        XCTAssertEqual(s.document.song.instances.count, 1, "unlink is one step")
        XCTAssertEqual(s.document.tracks[1].markers.count, 0)
        s.cursor = 3
        XCTAssertThrowsError(try s.run(line: "unlink")) {
            XCTAssertEqual(($0 as? CommandError)?.message,
                           "no linked instance under the cursor on this track ('unlink all' unlinks every one)")
        }
        XCTAssertThrowsError(try s.run(line: "place group 2")) {
            XCTAssertEqual(($0 as? CommandError)?.message, "group 2 is empty: store a selection with 'group store 2'")
        }
    }

    func testAnInstanceMovesAndGoesWholeEachOneStep() throws {
        let s = try session()
        try s.run(line: "place group 1 at=0 track=2 times=2")
        s.currentTrack = 1
        s.cursor = 0.5
        XCTAssertEqual(try s.run(line: "instance shift 1.5"), "moved 1 linked instance by 1.5 s")
        XCTAssertEqual(s.document.song.instances, [GroupInstance(group: 1, start: 1.5, track: 1, times: 2)])
        XCTAssertEqual(onsets(s).filter { $0[0] == 1 }.map { $0[1] }, [1.5, 1.75, 2.5, 2.75], "every marker moved with it")
        XCTAssertEqual(s.cursor, 2, "the cursor stays on the block")
        XCTAssertThrowsError(try s.run(line: "instance shift -5")) {
            XCTAssertEqual(($0 as? CommandError)?.message, "instance shift would start an instance at -3.5 s, before 0")
        }
        XCTAssertEqual(try s.run(line: "instance delete"), "deleted 1 linked instance (the group stays in the bank)")
        XCTAssertEqual(s.document.song.instances, [])
        XCTAssertFalse(s.document.groups[1].isEmpty)
        try s.run(line: "undo")
        try s.run(line: "undo")
        XCTAssertEqual(s.document.song.instances, [GroupInstance(group: 1, start: 0, track: 1, times: 2)], "one step each")
        XCTAssertEqual(try CommandParser.parse("instance shift 3/8")?.text, "instance shift 0.375")
    }

    func testFilesKeepInstancesAndAVersionOneFileStillOpens() throws {
        let s = try session()
        try s.run(line: "place group 1 at=0.5 track=2 times=3")
        let text = DocumentFile.encode(s.document)
        XCTAssertTrue(text.contains("\"tempera\": 2,"), text)
        XCTAssertTrue(text.contains("\"instances\": [\n    [1, 0.5, 2, 3]\n  ]"), text)
        let back = try DocumentFile.decode(text)
        XCTAssertEqual(back.song.instances, s.document.song.instances)
        XCTAssertEqual(back.groups, s.document.groups)
        let old = try DocumentFile.decode(#"{"tempera": 1, "tracks": [{"name": "a", "markers": [{"t": 0.5, "clip": 2}]}]}"#)
        XCTAssertEqual(old.song.instances, [])
        XCTAssertThrowsError(try DocumentFile.decode(text.replacingOccurrences(of: "[1, 0.5, 2, 3]", with: "[17, 0.5, 2, 3]")))
    }

    func testTheMidiFileAndTheSongPlayInstancesToo() throws {
        let s = try session()
        try s.run(line: "place group 1 at=0 track=2")
        try s.run(line: "section add A 0 2 x2")
        let song = SongSchedule(document: s.document, sampleRate: 48_000)
        XCTAssertEqual(song.regionEvents[0].filter { $0.track == 1 }.map(\.time), [0, 0.25])
        let midi = MidiExport.file(s.document).file
        XCTAssertEqual(midi.tracks.count, 4, "the tempo track and three tracks")
        let ons = midi.tracks[2].filter { if case .noteOn = $0.message { return true } else { return false } }
        XCTAssertEqual(ons.map(\.tick), [0, 480], "the instance's two notes on track 2, half a beat apart")
    }
}

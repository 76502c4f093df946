import XCTest
@testable import TemperaCore

/// `group edit N` opens a group as the timeline and `group done` stores it back: every instance plays the edit,
/// each is one undo step, and a file saved in between holds the arrangement with the edit in it.
final class GroupEditTests: XCTestCase {
    /// Group 1 is the figure at 3 s on track 1 (clips 1 and 2 a quarter apart, span 1 s), placed twice end to end
    /// on track 2 from 0 and once on track 3 at 4 s.
    func session() throws -> Session {
        let s = Fixture.session([[3, 3.25, 4], [], []], contents: [[.clip(1), .clip(2), nil], [], []])
        try s.run(line: "length 8")
        try s.run(line: "loop 0 8")
        s.selection[0] = Set(s.document.tracks[0].markers.prefix(2).map(\.id))
        try s.run(line: "group store 1")
        try s.run(line: "place group 1 at=0 track=2 times=2")
        try s.run(line: "place group 1 at=4 track=3")
        return s
    }

    func onsets(_ d: Document) -> [[Double]] {
        Schedule(document: d, sampleRate: 48_000).events.filter { $0.kind == .onset }
            .map { [Double($0.track), $0.time, Double($0.clip)] }
    }

    func testEditingAGroupAsTheTimelineChangesEveryInstance() throws {
        let s = try session()
        let before = s.document
        XCTAssertEqual(try s.run(line: "group edit 1"),
                       "editing group 1 as the timeline (2 markers over 1 s): 'group done' or Esc returns")
        XCTAssertEqual(s.editingGroup, 1)
        XCTAssertEqual(s.document.tracks[1].markers.map(\.time), [0, 0.25], "shown on its first instance's track")
        XCTAssertEqual(s.document.tracks[0].markers.count, 0)
        XCTAssertEqual(s.document.transport.loopEnd, 1, "its span is the loop")
        XCTAssertEqual(onsets(s.document), [[1, 0, 1], [1, 0.25, 2]], "the loop plays the group alone")
        // Edited with the ordinary commands: the second note goes, one lands at 0.5 s as clip 5.
        s.currentTrack = 1
        try s.run(line: "marker add 0.5 clip=5")
        s.selection = [1: [s.document.tracks[1].markers[1].id]]
        try s.run(line: "delete")
        let text = DocumentFile.encode(s.document)
        XCTAssertEqual(try s.run(line: "group done"), "group 1: 2 markers over 1 s, heard in 2 instances")
        XCTAssertNil(s.editingGroup)
        XCTAssertEqual(s.document.tracks, before.tracks, "the timeline is back as it was")
        XCTAssertEqual(s.document.transport, before.transport)
        XCTAssertEqual(onsets(s.document).filter { $0[0] > 0 },
                       [[1, 0, 1], [1, 0.5, 5], [1, 1, 1], [1, 1.5, 5], [2, 4, 1], [2, 4.5, 5]], "every instance plays the edit")
        // A file saved while the group was open holds the same arrangement.
        XCTAssertEqual(onsets(try DocumentFile.decode(text)), onsets(s.document))
        // Done is one step: undo reopens the group as edited; undoing the rest gives the group as it was.
        try s.run(line: "undo")
        XCTAssertEqual(s.editingGroup, 1)
        XCTAssertEqual(s.document.tracks[1].markers.map(\.time), [0, 0.5])
        try s.run(line: "undo")
        try s.run(line: "undo")
        try s.run(line: "undo")
        XCTAssertNil(s.editingGroup, "the edit itself was one step")
        XCTAssertEqual(s.document, before)
    }

    func testWhileOpenTheSongPlaysTheEditInEveryInstance() throws {
        let s = try session()
        try s.run(line: "section add A 0 8")
        try s.run(line: "song on")
        try s.run(line: "group edit 1")
        s.currentTrack = 1
        try s.run(line: "marker add 0.75 clip=7")
        let song = SongSchedule(document: s.document, sampleRate: 48_000).onsets(songPass: 0)
        XCTAssertEqual(song.filter { $0.track == 3 }.map(\.time), [4, 4.25, 4.75], "the instance on track 3 plays the edit")
        XCTAssertEqual(song.filter { $0.track == 1 }.map(\.time), [3, 3.25], "the timeline's own markers, not the group's")
    }

    func testOpeningTwiceOrClosingNothingIsRefused() throws {
        let s = try session()
        XCTAssertThrowsError(try s.run(line: "group done")) {
            XCTAssertEqual(($0 as? CommandError)?.message, "no group is open: 'group edit N' opens one")
        }
        try s.run(line: "group edit 1")
        XCTAssertThrowsError(try s.run(line: "group edit 2")) {
            XCTAssertEqual(($0 as? CommandError)?.message, "group 1 is open: 'group done' returns to the timeline first")
        }
        s.currentTrack = 0
        try s.run(line: "marker add 0.5")
        XCTAssertThrowsError(try s.run(line: "group done")) {
            XCTAssertEqual(($0 as? CommandError)?.message,
                           "group 1 starts on track 2: move the markers on track 1 down or delete them")
        }
    }

    func testTheOrdinaryCommandsActOnTheInstanceUnderTheCursorWhole() throws {
        let s = try session()
        s.selection = [:]
        s.currentTrack = 2
        s.cursor = 4.5
        XCTAssertEqual(try s.run(line: "duplicate"), "duplicated 1 linked instance, linked to the same group")
        XCTAssertEqual(s.document.song.instances.filter { $0.track == 2 }.map(\.start), [4, 5])
        XCTAssertEqual(try s.run(line: "shift 0.5"), "moved 1 linked instance by 0.5 s")
        XCTAssertEqual(s.document.song.instances.filter { $0.track == 2 }.map(\.start), [4.5, 5])
        XCTAssertEqual(try s.run(line: "copy"), "copied the instance of group 1: 2 markers")
        s.cursor = 4.75
        XCTAssertEqual(try s.run(line: "delete"), "deleted 1 linked instance (the group stays in the bank)")
        XCTAssertEqual(s.document.song.instances.filter { $0.track == 2 }.map(\.start), [5])
        for _ in 0..<3 { try s.run(line: "undo") }
        XCTAssertEqual(s.document.song.instances.filter { $0.track == 2 }.map(\.start), [4], "one step each")
        // With markers selected the commands act on them, as before.
        s.currentTrack = 0
        s.cursor = 3
        s.selection = [0: [s.document.tracks[0].markers[0].id]]
        try s.run(line: "delete")
        XCTAssertEqual(s.document.tracks[0].markers.map(\.time), [3.25, 4])
    }
}

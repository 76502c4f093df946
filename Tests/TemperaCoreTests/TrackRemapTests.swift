import XCTest
@testable import TemperaCore

/// Instances and sections' choices name tracks by index: deleting, moving, duplicating or inserting a track
/// moves them with their tracks in the same undo step, so each keeps playing on the track it was placed on.
final class TrackRemapTests: XCTestCase {
    /// Four tracks: track 1 holds a two-marker figure at 3 s (group 1), tracks 2 and 4 one marker each; group 1
    /// placed on track 3 at 0 and on track 4 at 1; section 1 sounds tracks 1, 3 and 4, track 4 playing group 1.
    func session() throws -> Session {
        let s = Fixture.session([[3, 3.25], [2], [], [5]], contents: [[.clip(1), .clip(2)], [.clip(3)], [], [.clip(4)]])
        try s.run(line: "length 8")
        try s.run(line: "loop 0 8")
        s.selection[0] = Set(s.document.tracks[0].markers.map(\.id))
        try s.run(line: "group store 1")
        try s.run(line: "place group 1 at=0 track=3")
        try s.run(line: "place group 1 at=1 track=4")
        try s.run(line: "section add")
        try s.run(line: "section 1 tracks 1,3,4")
        try s.run(line: "section 1 play 4=1")
        return s
    }

    /// Where each instance stands: (start, track from 0).
    func placed(_ s: Session) -> [[Double]] { s.document.song.instances.map { [$0.start, Double($0.track)] } }

    /// (track name, time, clip) of every onset the song plays, so a renumbered track compares equal.
    func heard(_ s: Session) -> [String] {
        let d = s.document
        return SongSchedule(document: d, sampleRate: 48_000).onsets(songPass: 0)
            .map { "\(d.tracks[$0.track - 1].name) \(DocumentFile.number($0.time)) clip \($0.clip)" }.sorted()
    }

    func testDeletingATrackMovesTheInstancesAndChoicesBelowItUp() throws {
        let s = try session()
        let before = heard(s)
        let song = s.document.song
        try s.run(line: "track 2 delete")
        XCTAssertEqual(placed(s), [[0, 1], [1, 2]])
        XCTAssertEqual(s.document.song.sections[0].tracks, [0, 1, 2])
        XCTAssertEqual(s.document.song.sections[0].plays, [2: 1])
        XCTAssertEqual(heard(s), before.filter { !$0.hasPrefix("t2 ") }, "the rest plays as before")
        try s.run(line: "undo")
        XCTAssertEqual(s.document.song, song, "one step")
    }

    func testAnInstanceOnADeletedTrackGoesWithIt() throws {
        let s = try session()
        try s.run(line: "track 3 delete")
        XCTAssertEqual(placed(s), [[1, 2]])
        XCTAssertEqual(s.document.song.sections[0].tracks, [0, 2])
        XCTAssertEqual(s.document.song.sections[0].plays, [2: 1])
        try s.run(line: "track 3 delete")
        XCTAssertEqual(placed(s), [])
        XCTAssertEqual(s.document.song.sections[0].tracks, [0])
        XCTAssertEqual(s.document.song.sections[0].plays, [:])
    }

    func testMovingATrackMovesWhatNamesEveryTrack() throws {
        let s = try session()
        let before = heard(s)
        try s.run(line: "track 4 move 1")
        XCTAssertEqual(placed(s), [[0, 3], [1, 0]])
        XCTAssertEqual(s.document.song.sections[0].tracks, [0, 1, 3])
        XCTAssertEqual(s.document.song.sections[0].plays, [0: 1])
        XCTAssertEqual(heard(s), before)
        try s.run(line: "undo")
        XCTAssertEqual(placed(s), [[0, 2], [1, 3]])
    }

    func testDuplicatingATrackMovesWhatIsBelowAndTheCopySoundsWithTheOriginal() throws {
        let s = try session()
        try s.run(line: "track 2 name two")
        try s.run(line: "section 1 tracks 1,2,4")
        try s.run(line: "track 2 duplicate")
        XCTAssertEqual(placed(s), [[0, 3], [1, 4]])
        XCTAssertEqual(s.document.song.sections[0].tracks, [0, 1, 2, 4])
        XCTAssertEqual(s.document.song.sections[0].plays, [4: 1])
        XCTAssertEqual(heard(s).filter { $0.hasPrefix("two ") }.count, 2, "the copy sounds where its original does")
        try s.run(line: "undo")
        XCTAssertEqual(placed(s), [[0, 2], [1, 3]])
        XCTAssertEqual(s.document.song.sections[0].tracks, [0, 1, 3])
    }

    func testImportedTracksMoveTheChoicesBelowThemDown() throws {
        let s = try session()
        s.currentTrack = 0
        let other = Fixture.document([[0.5]], contents: [[.clip(1)]])
        _ = try s.add(other, name: "import")
        XCTAssertEqual(placed(s), [[0, 3], [1, 4]])
        XCTAssertEqual(s.document.song.sections[0].tracks, [0, 3, 4])
        XCTAssertEqual(s.document.song.sections[0].plays, [4: 1])
    }
}

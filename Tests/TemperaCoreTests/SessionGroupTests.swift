import XCTest
@testable import TemperaCore

/// The groups bank: store (copy) and stamp / draw group (paste).
final class SessionGroupTests: XCTestCase {
    func testStoreKeepsOffsetsTrackOffsetsAndASpanToTheNextMarker() throws {
        let s = Fixture.session([[0, 0.5, 1, 1.5, 2], [0.75, 3]],
                                contents: [[.clip(1), .clip(2), .clip(3), nil, nil], [.clip(4), nil]])
        let ids0 = s.document.tracks[0].markers.map(\.id), ids1 = s.document.tracks[1].markers.map(\.id)
        s.selection = [0: [ids0[1], ids0[2]], 1: [ids1[0]]]
        XCTAssertEqual(try s.run(.groupStore(2)), "group 2: 3 markers")
        let g = s.document.groups[2]
        XCTAssertEqual(g.elements, [GroupElement(offset: 0, trackOffset: 0, amp: 0.8, content: .clip(2)),
                                    GroupElement(offset: 0.25, trackOffset: 1, amp: 0.8, content: .clip(4)),
                                    GroupElement(offset: 0.5, trackOffset: 0, amp: 0.8, content: .clip(3))])
        XCTAssertEqual(g.span, 1.0)
    }

    func testStoreSpanRepeatsTheLastIntervalWhenNothingFollows() throws {
        let s = Fixture.session([[0, 0.25, 0.5]], selectTracks: [0])
        // The selection reaches past the loop region, so the region is not what it was taken from.
        try s.run(.loopRange(0, 0.5))
        try s.run(.groupStore(1))
        XCTAssertEqual(s.document.groups[1].span, 0.75)
    }

    func testStampPlacesCopiesOneSpanApartAtTheCursor() throws {
        let s = Fixture.session([[0, 0.25, 0.5], []], contents: [[.clip(1), .clip(2), nil], []])
        let ids = s.document.tracks[0].markers.map(\.id)
        s.selection[0] = [ids[0], ids[1]]
        try s.run(.groupStore(3))
        s.currentTrack = 1
        s.cursor = 1
        XCTAssertEqual(try s.run(.groupStamp(3, times: 2)), "stamped group 3 x2: 4 markers")
        assertTimes(s.times(1), [1, 1.25, 1.5, 1.75])
        XCTAssertEqual(s.contents(1), [.clip(1), .clip(2), .clip(1), .clip(2)])
        XCTAssertEqual(s.selectionCount, 4)
        XCTAssertEqual(s.cursor, 2)
        try s.run(.drawGroup(3))
        assertTimes(s.times(1), [1, 1.25, 1.5, 1.75, 2, 2.25])
        try s.run(.undo(2))
        assertTimes(s.times(1), [])
    }

    func testStampKeepsTrackOffsetsAndAddsTheTracksItNeeds() throws {
        let s = Fixture.session([[0], [0.1], []])
        s.selection = [0: Set(s.document.tracks[0].markers.map(\.id)), 1: Set(s.document.tracks[1].markers.map(\.id))]
        try s.run(.groupStore(1))
        s.currentTrack = 1
        s.cursor = 2
        try s.run(.groupStamp(1, times: 1))
        assertTimes(s.times(1), [0.1, 2])
        assertTimes(s.times(2), [2.1])
        // From the last track, the group's second track is a new one.
        s.currentTrack = 2
        s.cursor = 0.5
        XCTAssertEqual(try s.run(.groupStamp(1, times: 1)), "stamped group 1: 2 markers; added track 4")
        assertTimes(s.times(2), [0.5, 2.1])
        assertTimes(s.times(3), [0.6])
        XCTAssertEqual(s.document.tracks.map(\.name).last, "track 4")
        try s.undo()
        XCTAssertEqual(s.document.tracks.count, 3)
    }

    func testAThreeTrackGroupFromTrackThreeAndPastTheEndPlacesEverythingAndSaysWhatGrew() throws {
        // A bar of kick, snare and hat (tracks 1-3) stored; the document lasts 2 s and has three tracks.
        var doc = Fixture.document([[0, 1], [0.5, 1.5], [0, 0.5, 1, 1.5]])
        doc.transport.length = 2
        doc.transport.loopStart = 0
        doc.transport.loopEnd = 2
        let s = Session(document: doc)
        s.selection = Dictionary(uniqueKeysWithValues: (0..<3).map { t in (t, Set(s.document.tracks[t].markers.map(\.id))) })
        try s.run(.groupStore(1))
        XCTAssertEqual(s.document.groups[1].span, 2)
        s.currentTrack = 2
        s.cursor = 2
        XCTAssertEqual(try s.run(.groupStamp(1, times: 2)),
                       "stamped group 1 x2: 16 markers; added tracks 4-5; the document now lasts 6 s")
        XCTAssertEqual(s.document.tracks.count, 5)
        assertTimes(s.times(2), [0, 0.5, 1, 1.5, 2, 3, 4, 5])
        assertTimes(s.times(3), [2.5, 3.5, 4.5, 5.5])
        assertTimes(s.times(4), [2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5])
        XCTAssertEqual(s.document.transport.length, 6)
        XCTAssertEqual(s.document.transport.loopEnd, 2, "the loop stays")
        try s.undo()
        XCTAssertTrue(s.document.tracks == doc.tracks && s.document.transport == doc.transport, "one undo takes it all back")
    }

    func testGroupCommandsRefuseBadInput() {
        let s = Fixture.session([[0, 1]])
        XCTAssertThrowsError(try s.run(.groupStore(1)))   // nothing selected
        XCTAssertThrowsError(try s.run(.groupStore(17)))
        XCTAssertThrowsError(try s.run(.groupStamp(4, times: 1))) { e in
            XCTAssertEqual((e as? CommandError)?.message, "group 4 is empty: store a selection with 'group store 4'")
        }
        XCTAssertThrowsError(try s.run(.groupStamp(0, times: 1)))
        XCTAssertFalse(s.canUndo)
    }
}

/// Select-all with a preset's grid, and what `group store` keeps of it; `length` and the loop.
final class GridAndLengthTests: XCTestCase {
    func testGroupStoreOfASelectAllKeepsTheClipsOnTheirGrid() throws {
        // Two tracks of a bar-long grid of eighths, three clips on each: `select all tracks=all` (Ctrl-a)
        // takes the 16 markers, `group store` the 6 clips, at their places in the bar.
        let grid = (0..<8).map { Double($0) / 4 }
        let s = Fixture.session([grid, grid], contents: [[.clip(1), nil, nil, nil, .clip(1), nil, .clip(1), nil],
                                                         [nil, nil, .clip(2), nil, nil, nil, .clip(2), .clip(2)]])
        try s.run(line: "select all tracks=all")
        XCTAssertEqual(s.selectionCount, 16)
        XCTAssertEqual(try s.run(.groupStore(1)), "group 1: 6 markers (10 empty markers left out)")
        let g = s.document.groups[1]
        XCTAssertEqual(g.span, 2)
        XCTAssertEqual(g.elements.map(\.offset), [0, 0.5, 1, 1.5, 1.5, 1.75])
        XCTAssertEqual(g.elements.map(\.trackOffset), [0, 1, 0, 0, 1, 1])
        // A selection of empty markers only is stored as it is.
        try s.run(line: "select range 0.2 0.8")
        XCTAssertEqual(try s.run(.groupStore(2)), "group 2: 3 markers")
    }

    func testLengthSaysWhenTheLoopFollowsItAndLeavesALoopTheUserSetAlone() throws {
        let s = Fixture.session([[0]])
        s.document.transport.length = 2
        s.document.transport.loopStart = 0
        s.document.transport.loopEnd = 2
        XCTAssertEqual(try s.run(line: "length 14"),
                       "length 14 s: the loop was the whole timeline and follows it, now 0-14 s (loop A B sets another)")
        XCTAssertEqual(s.document.transport.loopEnd, 14)
        try s.run(line: "loop 0 2")
        XCTAssertNil(try s.run(line: "length 16"))
        XCTAssertEqual(s.document.transport.loopEnd, 2)
        XCTAssertEqual(s.document.transport.length, 16)
    }
}

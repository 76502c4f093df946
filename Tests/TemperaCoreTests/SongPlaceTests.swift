import XCTest
@testable import TemperaCore

/// Song time back to the timeline (`SongTiming.place`): where a pad hit heard at song time T is recorded, inside
/// the region that was sounding then.
final class SongPlaceTests: XCTestCase {
    /// A [0,2) x2 at x1 (4 s), B [4,5) x3 at x2 (1.5 s), C [2,4) x1 at x0.5 (4 s): 9.5 s a pass of the song. Every
    /// number is exact in binary, so every place below is exact.
    let timing = SongTiming(song: Song(sections: [Song.Section(name: "A", start: 0, end: 2, repeats: 2, tempo: 1),
                                                  Song.Section(name: "B", start: 4, end: 5, repeats: 3, tempo: 2),
                                                  Song.Section(name: "C", start: 2, end: 4, repeats: 1, tempo: 0.5)]),
                            tempo: 1)

    func place(_ t: Double, looping: Bool = true) -> SongTiming.Place? { timing.place(at: t, looping: looping) }

    func testAHitInTheSecondSectionsSecondRepeatLandsAtItsTimeInsideTheRegion() {
        // B starts at 4 s; its pass 1 at 4.5 s; 0.125 s later at x2 is 0.25 s into the region [4,5).
        XCTAssertEqual(place(4.625), SongTiming.Place(songPass: 0, section: 1, pass: 1, time: 4.25))
        // The other way round, the song time of that place is the hit's.
        XCTAssertEqual(SongTiming.time(songPass: 0, total: timing.total, offset: timing.sections[1].offset, pass: 1,
                                       time: 0.25, span: 1, tempo: 2), 4.625)
    }

    func testAHitOnASectionBoundaryBelongsToTheSectionStartingThere() {
        XCTAssertEqual(place(4), SongTiming.Place(songPass: 0, section: 1, pass: 0, time: 4))
        XCTAssertEqual(place(5.5), SongTiming.Place(songPass: 0, section: 2, pass: 0, time: 2))
        // Just before it, the end of the section before.
        XCTAssertEqual(place(3.875), SongTiming.Place(songPass: 0, section: 0, pass: 1, time: 1.875))
        // A pass boundary inside a section: the next pass.
        XCTAssertEqual(place(2), SongTiming.Place(songPass: 0, section: 0, pass: 1, time: 0))
        XCTAssertEqual(place(5), SongTiming.Place(songPass: 0, section: 1, pass: 2, time: 4))
    }

    func testTheSongsEndStartsItsNextPassWhenItLoopsAndIsNowhereWhenItDoesNot() {
        XCTAssertEqual(place(9.25), SongTiming.Place(songPass: 0, section: 2, pass: 0, time: 3.875))
        XCTAssertEqual(place(9.5), SongTiming.Place(songPass: 1, section: 0, pass: 0, time: 0))
        // Song pass 1, section B's second repeat: the same region time as in pass 0 (overdub across song passes).
        XCTAssertEqual(place(14.125), SongTiming.Place(songPass: 1, section: 1, pass: 1, time: 4.25))
        XCTAssertEqual(place(9.5 * 3 + 5.5), SongTiming.Place(songPass: 3, section: 2, pass: 0, time: 2))
        XCTAssertEqual(place(9.25, looping: false), SongTiming.Place(songPass: 0, section: 2, pass: 0, time: 3.875))
        XCTAssertNil(place(9.5, looping: false))
        XCTAssertNil(place(20, looping: false))
    }

    func testJustBeforeTheStartIsTheSongsEndAndASongWithoutLengthPlacesNothing() {
        // Half a second before the start: song pass -1, 0.5 s before C's end at x0.5, 0.25 s of its region.
        XCTAssertEqual(place(-0.5), SongTiming.Place(songPass: -1, section: 2, pass: 0, time: 3.75))
        XCTAssertEqual(place(-0.5, looping: false), SongTiming.Place(songPass: -1, section: 2, pass: 0, time: 3.75))
        XCTAssertEqual(place(0), SongTiming.Place(songPass: 0, section: 0, pass: 0, time: 0))
        XCTAssertNil(place(.nan))
        XCTAssertNil(SongTiming(song: Song(), tempo: 1).place(at: 1, looping: true))
    }

    func testEveryPlaceIsTheSongTimeOfItsOwnPlaceAtTheFormula() {
        // Uneven instants over two passes of the song: place, then back through the song's formula.
        for i in 0..<400 {
            let t = Double(i) * 0.0477 + 0.003
            guard let p = place(t) else { return XCTFail("no place for \(t)") }
            let s = timing.sections[p.section]
            XCTAssertGreaterThanOrEqual(p.time, s.start)
            XCTAssertLessThan(p.time, s.start + s.span)
            XCTAssertLessThan(p.pass, s.repeats)
            let back = SongTiming.time(songPass: p.songPass, total: timing.total, offset: s.offset, pass: p.pass,
                                       time: p.time - s.start, span: s.span, tempo: s.tempo)
            XCTAssertEqual(back, t, accuracy: 1e-12, "t = \(t)")
        }
    }
}

import XCTest
@testable import TemperaCore

/// `spread`: a code divides the loop into equal steps, as a drum machine divides a bar, with exact times.
final class SessionSpreadTests: XCTestCase {
    /// A new document's kick, snare and hat tracks: 16 free markers on the sixteenths of a 2 s bar.
    private func newSession() -> Session { Session(document: .newDocument()) }

    private func clips(_ s: Session, _ track: Int) -> [Double: Content] {
        var out: [Double: Content] = [:]
        for m in s.document.tracks[track].markers { if let c = m.content { out[m.time] = c } }
        return out
    }

    func testOneFourPutsClipOneOnTheFourBeatsOfTheBar() throws {
        let s = newSession()
        try s.run(.spread(PatternParser.parse("1x4")))
        XCTAssertEqual(clips(s, 0), [0: .clip(1), 0.5: .clip(1), 1: .clip(1), 1.5: .clip(1)])
        XCTAssertEqual(s.document.tracks[0].markers.count, 16, "onto the markers there, none added")
        XCTAssertEqual(s.history.undoSteps.count, 1)
    }

    func testDotTwoDotTwoIsTheBackbeatAndLeavesTheOtherStepsAsTheyWere() throws {
        let s = newSession()
        s.currentTrack = 1
        try s.run(.fill(PatternParser.parse("6")))
        try s.run(.spread(PatternParser.parse(".2.2")))
        XCTAssertEqual(clips(s, 1), [0: .clip(6), 0.5: .clip(2), 1.5: .clip(2)])
    }

    func testEighthsAndQuintupletsLandOnExactTimesAddingMarkersWhereNoneWere() throws {
        let s = newSession()
        s.currentTrack = 2
        try s.run(.spread(PatternParser.parse("3x8")))
        XCTAssertEqual(clips(s, 2).keys.sorted(), [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75])
        s.currentTrack = 3
        let message = try s.run(.spread(PatternParser.parse("16x5")))
        XCTAssertEqual(message, "spread 5; 4 new markers")
        let fifths: [Double] = [0, 2.0 / 5, 4.0 / 5, 6.0 / 5, 8.0 / 5]
        XCTAssertEqual(clips(s, 3).keys.sorted(), fifths)
        XCTAssertEqual(s.document.tracks[3].markers.count, 20)
        try s.run(.undo(1))
        XCTAssertEqual(s.document.tracks[3].markers.count, 16, "one undo step takes back the new markers too")
    }

    func testTheStepsFollowTheLoopRegionNotTimeZero() throws {
        let s = newSession()
        try s.run(.loopRange(0.5, 1.5))
        try s.run(.spread(PatternParser.parse("1 . 1 .")))
        XCTAssertEqual(clips(s, 0), [0.5: .clip(1), 1: .clip(1)])
    }

    func testACodeOfDotsPlacesNothingAndSaysSo() throws {
        let s = newSession()
        XCTAssertThrowsError(try s.run(.spread(PatternParser.parse("....")))) { error in
            XCTAssertEqual("\(error)", "the code places nothing ('.' leaves a step as it is)")
        }
        XCTAssertEqual(s.history.undoSteps.count, 0)
    }

    func testSpreadIsInTheLanguageAndReadsBack() throws {
        let command = try XCTUnwrap(CommandParser.parse("spread .2.2"))
        XCTAssertEqual(command, .spread(try PatternParser.parse(".2.2")))
        XCTAssertEqual(command.text, "spread .2.2")
        XCTAssertEqual(try CommandParser.parse(command.text), command)
    }
}

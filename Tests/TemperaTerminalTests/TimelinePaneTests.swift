import XCTest
@testable import TemperaTerminal
import TemperaCore

final class TimelinePaneTests: XCTestCase {
    // At 80x24 with five tracks, track 1's bar row is 4 and its label row 5; track 2's rows are 6 and 7.
    // Screen column 12 is time 0 at 10 ms a column.

    func testFullAmplitudeDrawsAFullBlockAndHalfAmplitudeALowerHalf() {
        let session = Session(document: fiveTracks([(0.1, 1, .clip(1)), (0.2, 0.5, .clip(2)), (0.3, 0.0, nil)]))
        let canvas = render(session, tenMillisecondView())
        XCTAssertEqual(canvas[22, 4].char, "█")
        XCTAssertEqual(canvas[32, 4].char, "▄")
        XCTAssertEqual(canvas[42, 4].char, "▁", "a silent marker keeps the lowest bar")
    }

    func testTallerTracksStackEighthBlocksUpToTheAmplitude() {
        // Two tracks at 80x24: five rows each, four of bars: amp 0.4375 is 14 of 32 eighths.
        let session = Session(document: document([[(0.1, 0.4375, .clip(1))], []]))
        let canvas = render(session, tenMillisecondView())
        let column = (4...8).map { canvas[22, $0].char }
        XCTAssertEqual(column, [" ", " ", "▆", "█", "1"])
    }

    func testLabelsNameClipsByTheirKeysThenHoldRestRandomAndEmpty() {
        let items: [(Double, Double, Content?)] = [(0.00, 1, .clip(1)), (0.01, 1, .clip(9)), (0.02, 1, .clip(10)),
                                                   (0.03, 1, .clip(16)), (0.04, 1, .hold), (0.05, 1, .rest),
                                                   (0.06, 1, .random), (0.07, 1, nil)]
        let session = Session(document: fiveTracks(items))
        session.cursor = 1
        let canvas = render(session, tenMillisecondView())
        XCTAssertEqual(String(canvas.line(5).dropFirst(12).prefix(8)), "190^+-?·")
        XCTAssertEqual(canvas[12, 5].role, .clipLabel)
        XCTAssertEqual(canvas[16, 5].role, .holdLabel)
        XCTAssertEqual(canvas[17, 5].role, .restLabel)
        XCTAssertEqual(canvas[19, 5].role, .markerEmpty)
        XCTAssertEqual(canvas[19, 4].role, .markerEmpty, "a marker without a clip is drawn apart")
        XCTAssertEqual(canvas[12, 4].role, .marker)
    }

    func testSelectedMarkerIsDrawnInTheSelectedRole() {
        let doc = fiveTracks([(0.1, 1, .clip(1)), (0.2, 1, .clip(1))])
        let session = Session(document: doc)
        session.selection[0] = [doc.tracks[0].markers[1].id]
        let canvas = render(session, tenMillisecondView())
        XCTAssertEqual(canvas[22, 4].role, .marker)
        XCTAssertEqual(canvas[32, 4].role, .markerSelected)
        XCTAssertEqual(canvas[32, 5].role, .markerSelected)
        XCTAssertEqual(canvas.line(5).prefix(12), "│ 1 sel    │")
    }

    func testPlayheadColumnRunsThroughEveryTrackAndIsMarkedOnTheRuler() {
        let session = Session(document: fiveTracks([(0.1, 1, .clip(1))]))
        session.cursor = 0.5
        var view = tenMillisecondView()
        view.transport.position = 0.25
        let canvas = render(session, view)
        XCTAssertEqual(canvas[37, 3], Cell("▼", .playhead))
        for y in 4..<14 { XCTAssertEqual(canvas[37, y], Cell("│", .playhead), "row \(y)") }
    }

    func testCursorColumnOnCurrentTrackAndItsGuideAcrossTheOthers() {
        let session = Session(document: fiveTracks([(0.1, 1, .clip(1))]))
        session.cursor = 0.5
        session.currentTrack = 1
        let canvas = render(session, tenMillisecondView())
        XCTAssertEqual(canvas[62, 3], Cell("▽", .cursor))
        XCTAssertEqual(canvas[62, 4], Cell("┊", .guide))
        XCTAssertEqual(canvas[62, 6], Cell("┃", .cursor))
        XCTAssertEqual(canvas[62, 7], Cell("┃", .cursor))
        XCTAssertEqual(canvas[62, 13], Cell("┊", .guide))
        XCTAssertTrue(canvas.line(2).contains("cursor 0.500 s"))
    }

    func testNearestMarkerOnEveryOtherTrackIsMarkedAsAGuideHit() {
        let session = Session(document: document([[(0.1, 1, .clip(1)), (0.45, 1, .clip(1))],
                                                  [(0.3, 1, .clip(2)), (0.52, 1, .clip(2)), (0.9, 1, .clip(2))],
                                                  [], [], []]))
        session.cursor = 0.5
        let canvas = render(session, tenMillisecondView())
        XCTAssertEqual(canvas[57, 4].role, .marker, "the current track shows the cursor, not a guide hit")
        XCTAssertEqual(canvas[64, 6].role, .guideHit)
        XCTAssertEqual(canvas[64, 7].role, .guideHit)
        XCTAssertEqual(canvas[42, 6].role, .marker)
    }

    func testThreeMillisecondPairAtFineZoomOccupiesTwoColumns() {
        let session = Session(document: fiveTracks([(1.0, 1, .clip(1)), (1.003, 0.5, .clip(2))]))
        session.cursor = 0
        let view = ViewState(viewport: Viewport(start: 0.999, secondsPerColumn: 0.0005))
        let canvas = render(session, view)
        // 1.0 is 2 columns in, 1.003 is 8.
        XCTAssertEqual(canvas[14, 4].char, "█")
        XCTAssertEqual(canvas[20, 4].char, "▄")
        XCTAssertEqual(canvas[14, 5].char, "1")
        XCTAssertEqual(canvas[20, 5].char, "2")
        XCTAssertTrue(canvas.line(2).contains("cursor 0.0000 s"), "fine zoom shows a fourth decimal")
        XCTAssertTrue(canvas.line(2).contains("0.5 ms/col"))
    }

    func testMarkersSharingAColumnShowTheirCountAndTheLoudestHeight() {
        let session = Session(document: fiveTracks([(0.100, 0.25, .clip(1)), (0.103, 1, .clip(2)),
                                                    (0.106, 0.5, nil), (0.2, 1, nil)]))
        session.cursor = 1
        let canvas = render(session, tenMillisecondView())
        XCTAssertEqual(canvas[22, 4], Cell("█", .marker))
        XCTAssertEqual(canvas[22, 5], Cell("³", .dim))
        let many = (0..<12).map { (0.3 + Double($0) * 0.0005, 1.0, Content?.some(.clip(1))) }
        let crowded = render(Session(document: fiveTracks(many)), tenMillisecondView())
        XCTAssertEqual(crowded[42, 5].char, "⁺")
    }

    func testOnlyMarkersInsideTheVisibleRangeAreDrawn() {
        let session = Session(document: fiveTracks([(0.05, 1, .clip(1)), (0.5, 1, .clip(2)), (2.0, 1, .clip(3))]))
        session.cursor = 0.5
        let view = ViewState(viewport: Viewport(start: 0.1, secondsPerColumn: 0.01))
        let canvas = render(session, view)
        let labels = canvas.line(5).dropFirst(12).prefix(67)
        XCTAssertEqual(labels.filter { $0 != " " && $0 != "┃" }, "2")
        XCTAssertEqual(canvas[52, 5].char, "2")
    }

    func testRulerShowsTimeTicksAndTheLoopRegion() {
        var doc = fiveTracks([])
        doc.transport.loopStart = 0.25
        doc.transport.loopEnd = 0.5
        doc.transport.length = 1
        let session = Session(document: doc)
        session.cursor = 5
        var view = tenMillisecondView()
        view.rulerSeconds = true
        let canvas = render(session, view)
        XCTAssertEqual(String(canvas.line(3).dropFirst(12).prefix(14)), "▼0.0──────┼0.1")
        XCTAssertEqual(canvas[12, 3], Cell("▼", .playhead), "the playhead at 0 covers the first tick")
        XCTAssertEqual(canvas[22, 3], Cell("┼", .ruler))
        XCTAssertEqual(canvas[23, 3].char, "0")
        XCTAssertEqual(canvas[38, 3], Cell("━", .loopRegion))
        XCTAssertEqual(canvas[61, 3], Cell("━", .loopRegion))
        XCTAssertEqual(canvas[62, 3].char, "┼")
        XCTAssertEqual(canvas[63, 3], Cell("0", .ruler))
        XCTAssertEqual(canvas[64, 3].char, ".")
        XCTAssertEqual(canvas[65, 3].char, "5")
    }

    func testRulerPastTheDocumentLengthIsBlankExceptTicks() {
        var doc = fiveTracks([])
        doc.transport.length = 0.2
        let session = Session(document: doc)
        session.cursor = 5
        var view = tenMillisecondView()
        view.rulerSeconds = true
        let canvas = render(session, view)
        XCTAssertEqual(canvas[31, 3].char, "━")
        XCTAssertEqual(canvas[32, 3].char, "┼")
        XCTAssertEqual(canvas[37, 3].char, " ")
    }

    func testTickSpacingLeavesRoomForLabels() {
        XCTAssertEqual(TimelinePane.tickStep(secondsPerColumn: 0.01), 0.1)
        XCTAssertEqual(TimelinePane.tickStep(secondsPerColumn: 0.03), 0.5)
        XCTAssertEqual(TimelinePane.tickStep(secondsPerColumn: 0.02), 0.2)
        XCTAssertEqual(TimelinePane.tickStep(secondsPerColumn: 0.0002), 0.002)
        XCTAssertEqual(TimelinePane.decimals(forStep: 0.25), 2)
        XCTAssertEqual(TimelinePane.decimals(forStep: 0.5), 1)
        XCTAssertEqual(TimelinePane.decimals(forStep: 2), 0)
    }

    func testCurrentTrackNameIsMarkedAndHighlighted() {
        let session = Session(document: fiveTracks([]))
        session.currentTrack = 2
        let canvas = render(session, tenMillisecondView())
        XCTAssertEqual(canvas.line(8).prefix(12), "│▸3 t3     │")
        XCTAssertEqual(canvas.role(of: "▸3 t3", inRow: 8), .trackNameCurrent)
        XCTAssertEqual(canvas.role(of: "1 t1", inRow: 4), .trackName)
    }

    func testMutedAndSoloTracksSaySo() {
        var doc = fiveTracks([])
        doc.tracks[1].mute = true
        doc.tracks[2].solo = true
        let canvas = render(Session(document: doc), tenMillisecondView())
        XCTAssertEqual(canvas.line(7).prefix(12), "│ M        │")
        XCTAssertEqual(canvas.line(9).prefix(12), "│ S        │")
    }
}

final class DemoTimelineTests: XCTestCase {
    func testDemoDrawsEveryMarkerOfItsKickLine() {
        let view = ViewState(viewport: Viewport(start: 0, secondsPerColumn: 2.0 / 64))
        let canvas = render(Session(document: .demo()), view)
        // Kick at 0, 0.5 (no clip), 0.75, 1, 1.5 (no clip), 1.625.
        XCTAssertEqual(String(canvas.line(5).dropFirst(12).prefix(53)).filter { $0 != " " }, "1·11·1")
    }
}

final class ColumnSummaryTests: XCTestCase {
    /// 10,000 markers 0.1 ms apart: a hundred in each 10 ms column.
    func denseTrack() -> MarkerList {
        var markers: [Marker] = []
        for i in 0..<10_000 {
            let time: Double = Double(i) * 0.0001 + 0.00005
            let content: Content? = i % 2 == 0 ? .clip(1) : nil
            markers.append(Marker(id: MarkerID(i), time: time, amp: 0.5, content: content))
        }
        return MarkerList(markers)
    }

    func testZoomedOutColumnsCountEveryMarkerExactly() {
        var s = TimelinePane.ColumnSummary(width: 100)
        TimelinePane.summarize(denseTrack(), selection: [], viewport: Viewport(start: 0, secondsPerColumn: 0.01),
                               into: &s)
        XCTAssertEqual(s.count, Array(repeating: 100, count: 100))
        XCTAssertEqual(s.first[55], 5_500)
        XCTAssertEqual(s.hasContent, Array(repeating: true, count: 100))
        XCTAssertEqual(s.amp[54], 0.5)
    }

    func testOneSelectedMarkerInACrowdedColumnIsFoundByItsId() {
        var s = TimelinePane.ColumnSummary(width: 100)
        TimelinePane.summarize(denseTrack(), selection: [5_555], viewport: Viewport(start: 0, secondsPerColumn: 0.01),
                               into: &s)
        XCTAssertEqual(s.selected.indices.filter { s.selected[$0] }, [55])
    }

    func testSelectingEverythingHighlightsEveryCrowdedColumn() {
        var s = TimelinePane.ColumnSummary(width: 100)
        TimelinePane.summarize(denseTrack(), selection: Set((0..<10_000).map { MarkerID($0) }),
                               viewport: Viewport(start: 0, secondsPerColumn: 0.01), into: &s)
        XCTAssertEqual(s.selected, Array(repeating: true, count: 100))
    }

    func testCountsAreExactWhetherColumnsAreSparseOrCrowded() {
        let markers = denseTrack()
        var sparse = TimelinePane.ColumnSummary(width: 100)
        var crowded = TimelinePane.ColumnSummary(width: 100)
        // The finest zoom, 0.2 ms a column: two markers a column, read one by one.
        TimelinePane.summarize(markers, selection: [], viewport: Viewport(start: 0.5, secondsPerColumn: 0.0002),
                               into: &sparse)
        XCTAssertEqual(sparse.count, Array(repeating: 2, count: 100))
        // Zoomed out to hold the same time in one column among many.
        TimelinePane.summarize(markers, selection: [], viewport: Viewport(start: 0.5, secondsPerColumn: 0.02),
                               into: &crowded)
        XCTAssertEqual(crowded.count[0], 200)
        XCTAssertEqual(crowded.count.reduce(0, +), 5_000)
    }

    func testCrowdedColumnDrawsItsLoudestSampleAndAManyGlyph() {
        var doc = document([[], [], [], [], []])
        doc.tracks[0].markers = denseTrack()
        let canvas = render(Session(document: doc), ViewState(viewport: Viewport(start: 0, secondsPerColumn: 0.01)))
        XCTAssertEqual(canvas[12 + 54, 4], Cell("▄", .marker))
        XCTAssertEqual(canvas[12 + 54, 5], Cell("⁺", .dim))
    }
}

final class AsciiTimelineTests: XCTestCase {
    func testAsciiHeightsAndCrowdsDoNotLookLikeClipLabels() {
        let session = Session(document: fiveTracks([(0.1, 1, .clip(1)), (0.2, 0.5, .clip(2)), (0.2005, 0.25, nil),
                                                    (0.3, 0.25, .rest)]))
        session.cursor = 1
        var view = tenMillisecondView()
        view.ascii = true
        let canvas = render(session, view)
        XCTAssertEqual(canvas[22, 4].char, "#")
        XCTAssertEqual(canvas[32, 4].char, ":")
        XCTAssertEqual(canvas[42, 4].char, ".")
        XCTAssertEqual(canvas[22, 5].char, "1")
        XCTAssertEqual(canvas[32, 5], Cell("*", .dim))
        XCTAssertEqual(canvas[42, 5].char, "-")
    }

    func testDocumentWithoutTracksStillDraws() {
        let canvas = render(Session(document: Document(tracks: [])))
        XCTAssertTrue(canvas.line(23).hasSuffix("no tracks "))
        XCTAssertTrue(canvas.line(14).hasPrefix("├─ tools ─"))
    }
}

import XCTest
@testable import TemperaTerminal
import TemperaCore

final class HitTestTests: XCTestCase {
    func hit(_ x: Int, _ y: Int, _ session: Session = Session(document: .demo()), _ view: ViewState = ViewState(),
             size: (Int, Int) = (80, 24)) -> Hit {
        EditorView.hitTest(x: x, y: y, session: session, view: view, size: size)
    }

    func testClickOnTheTimelineNamesTrackTimeAndAmplitude() {
        let view = tenMillisecondView()
        // Track 2's bar row (6) at column 12 + 25: 0.25 s, top of the track.
        XCTAssertEqual(hit(37, 6, Session(document: .demo()), view), .timeline(track: 1, time: 0.25, amp: 1))
        // The label row counts as the bottom bar row.
        XCTAssertEqual(hit(12, 13, Session(document: .demo()), view), .timeline(track: 4, time: 0, amp: 1))
    }

    func testAmplitudeFollowsTheRowInATallTrack() {
        let session = Session(document: document([[], []]))
        let view = tenMillisecondView()
        // Five rows: four bar rows from y 4 (amp 1) down to y 7 (amp 0.25), labels on y 8.
        XCTAssertEqual(hit(22, 4, session, view), .timeline(track: 0, time: 0.1, amp: 1))
        XCTAssertEqual(hit(22, 6, session, view), .timeline(track: 0, time: 0.1, amp: 0.5))
        XCTAssertEqual(hit(22, 8, session, view), .timeline(track: 0, time: 0.1, amp: 0.25))
        XCTAssertEqual(hit(22, 9, session, view), .timeline(track: 1, time: 0.1, amp: 1))
    }

    func testClickOnAScrolledTrackNamesTheRightTrack() {
        let doc = document(Array(repeating: [], count: 9))
        let session = Session(document: doc)
        session.currentTrack = 8
        XCTAssertEqual(hit(3, 4, session), .trackName(4))
        XCTAssertEqual(hit(30, 12, session, tenMillisecondView()), .timeline(track: 8, time: 0.18, amp: 1))
    }

    func testClickOnTheRulerNamesATime() {
        XCTAssertEqual(hit(62, 3, Session(document: .demo()), tenMillisecondView()), .ruler(time: 0.5))
    }

    func testClickOnToolsModesAndPattern() {
        var view = ViewState()
        view.keyHints = ToolPanelTests.keys
        // "modify s shift  S scale  v subdivide" on row 20.
        XCTAssertEqual(hit(9, 20, Session(document: .demo()), view), .tool(.shift))
        XCTAssertEqual(hit(15, 20, Session(document: .demo()), view), .tool(.shift))
        XCTAssertEqual(hit(16, 20, Session(document: .demo()), view), .none)
        XCTAssertEqual(hit(18, 20, Session(document: .demo()), view), .tool(.scale))
        XCTAssertEqual(hit(12, 15, Session(document: .demo()), view), .clipMode)
        XCTAssertEqual(hit(20, 15, Session(document: .demo()), view), .snap)
        XCTAssertEqual(hit(40, 15, Session(document: .demo()), view), .subdivision)
        XCTAssertEqual(hit(30, 17, Session(document: .demo()), view), .patternArea)
        XCTAssertEqual(hit(10, 17, Session(document: .demo()), view), .tool(.fill))
    }

    func testClickOnTabsSlotsAndHoldRestRandom() {
        XCTAssertEqual(hit(48, 14), .tab(.clips))
        XCTAssertEqual(hit(58, 14), .tab(.groups))
        XCTAssertEqual(hit(64, 14), .tab(.designer))
        XCTAssertEqual(hit(70, 14), .tab(.song))
        XCTAssertEqual(hit(75, 14), .tab(.pads))
        XCTAssertEqual(hit(48, 15), .slot(1))
        XCTAssertEqual(hit(60, 16), .slot(8))
        XCTAssertEqual(hit(70, 18), .slot(16))
        XCTAssertEqual(hit(48, 21), .clipContent(.hold))
        XCTAssertEqual(hit(56, 21), .clipContent(.rest))
        XCTAssertEqual(hit(65, 21), .clipContent(.random))
    }

    func testClickOnGroupSlots() {
        var view = ViewState()
        view.tab = .groups
        XCTAssertEqual(hit(48, 16, Session(document: .demo()), view), .group(2))
        XCTAssertEqual(hit(70, 15, Session(document: .demo()), view), .group(13))
    }

    func testClickInTheDesignerTabIsRelativeToItsArea() {
        var view = ViewState()
        view.tab = .designer
        XCTAssertEqual(hit(50, 17, Session(document: .demo()), view), .designer(x: 3, y: 2))
    }

    func testClickOnTransportControls() {
        XCTAssertEqual(hit(2, 1), .rewind)
        XCTAssertEqual(hit(6, 1), .play)
        XCTAssertEqual(hit(18, 1), .loop)
        XCTAssertEqual(hit(30, 1), .tempo(1))
        XCTAssertEqual(hit(55, 1), .volume(0.8))
    }

    func testTempoAndVolumeSlidersMapTheClickedColumn() {
        // "120 bpm ×1.00 " ends at 42; the slider spans 43...49 (odd, so its middle is x1), "vol 80% ",
        // then its slider 60...66.
        XCTAssertEqual(hit(43, 1), .tempo(0.5))
        XCTAssertEqual(hit(46, 1), .tempo(1))
        XCTAssertEqual(hit(49, 1), .tempo(2))
        XCTAssertEqual(hit(60, 1), .volume(0))
        XCTAssertEqual(hit(66, 1), .volume(1))
        XCTAssertEqual(hit(63, 1), .volume(0.5))
    }

    func testBordersAndBlankCellsHitNothing() {
        XCTAssertEqual(hit(0, 5), .none)
        XCTAssertEqual(hit(79, 1), .none)
        XCTAssertEqual(hit(44, 22), .none)
        XCTAssertEqual(hit(5, 23), .statusLine)
    }

    func testTooSmallScreenHitsNothing() {
        XCTAssertEqual(hit(10, 7, size: (60, 15)), .none)
    }
}

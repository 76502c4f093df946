import Foundation
import TemperaTestSupport
import XCTest
import TemperaCore
@testable import TemperaTerminal

/// The designer driven through the shipped key map, the dispatcher and the mouse, as a user works it.
final class DesignerTabKeysTests: XCTestCase {
    private var dir = ""

    override func setUp() {
        dir = TestPaths.temporaryDirectory("designer-keys")
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    private func make() -> Dispatcher {
        let d = Dispatcher(session: Session(document: .newDocument()), width: 80, height: 24,
                           paths: ConfigPaths(config: dir + "/config", state: dir + "/state"), clock: { 0 })
        d.fitView()
        return d
    }

    func testEveryDesignerActionHasItsOwnHelpLineAndTheShippedMapLoads() throws {
        // The catalog lists every designer action; one without a help line would show its bare name.
        for a in DesignerTab.actions { XCTAssertNotNil(Action.designerHelp[a], a) }
        XCTAssertEqual(Action.describe("designer.slider.up.coarse"), "designer: slider right by 0.1")
        XCTAssertEqual(KeyMap.standard.hints["designer.beat.toggle"], "Enter")
    }

    func testRowKeysBeatToggleAndEuclidThroughTheKeyMap() {
        let d = make()
        keys(d, "F4")
        XCTAssertEqual(d.view.tab, .designer)
        XCTAssertEqual(d.view.designer.focus, .slider)
        keys(d, "down")   // slider -> top
        XCTAssertEqual(d.view.designer.focus, .top)
        keys(d, "right right enter")
        XCTAssertEqual(d.session.document.designer.top.beats, [0, 1, 2, 3, 4, 6])
        XCTAssertEqual(d.view.message, "top beat 2 chosen")
        keys(d, "down")   // top -> bottom
        keys(d, "+ + + e enter")
        XCTAssertEqual(d.session.document.designer.bottom.division, 8)
        XCTAssertEqual(d.session.document.designer.bottom.beats, [0, 2, 3, 5, 6])
        keys(d, "r")
        XCTAssertEqual(d.session.document.designer.bottom.beats, [1, 2, 4, 5, 7])
        XCTAssertEqual(d.view.message, "bottom rotated left: 8 pulses, beats 1,2,4,5,7")
        keys(d, "y")
        XCTAssertEqual(d.view.message, "bottom rotated right: 8 pulses, beats 0,2,3,5,6")
        keys(d, "u u")
        XCTAssertEqual(d.session.document.designer.bottom.beats, [0, 2, 3, 5, 6])
    }

    func testEuclidAsksForKSoE7Of12IsOneKeyAndADigit() throws {
        let d = make()
        try d.runLine("temper span=2 top=12:0,3,6,9 bottom=16:all s=0")
        keys(d, "F4 down")   // slider -> top
        keys(d, "e")
        XCTAssertEqual(d.view.commandLine, "temper span=2 top=12:euclid(4) bottom=16:all s=0")
        XCTAssertEqual(d.view.message, "euclid: type k, then Enter")
        keys(d, "7 enter")
        XCTAssertNil(d.view.commandLine)
        XCTAssertEqual(d.session.document.designer.top.beats, try Euclid.beats(k: 7, n: 12))
        XCTAssertEqual(d.session.document.designer.bottom.beats, Array(0..<16))
        // The bottom row the same way.
        keys(d, "down e")
        XCTAssertEqual(d.view.commandLine, "temper span=2 top=12:\(d.session.document.designer.top.beats.map(String.init).joined(separator: ",")) bottom=16:euclid(16) s=0")
        keys(d, "esc")
    }

    func testTheMapPairsEachTopBeatWithItsNearestBottomBeat() throws {
        // The Bembé bell, seven strokes of twelve, tempered toward sixteenths.
        let d = make()
        try d.runLine("temper span=2 top=12:0,2,4,5,7,9,11 bottom=16:all s=0")
        keys(d, "F4 down down down")   // slider -> top -> bottom -> map
        XCTAssertEqual(d.view.designer.focus, .map)
        keys(d, "n")
        let pairs = try XCTUnwrap(d.session.document.designer.map).map { [$0.top, $0.bottom] }
        // 2/12 = 2.67/16 -> 3; 4/12 = 5.33/16 -> 5; 5/12 = 6.67 -> 7; 7/12 = 9.33 -> 9; 9/12 = 12; 11/12 = 14.67 -> 15.
        XCTAssertEqual(pairs, [[0, 0], [2, 3], [4, 5], [5, 7], [7, 9], [9, 12], [11, 15]])
        XCTAssertEqual(d.view.message, "map: each top beat to its nearest bottom beat (0-0,2-3,4-5,5-7,7-9,9-12,11-15)")
        // At s = 1 the bell plays on those sixteenths.
        keys(d, "1")
        XCTAssertEqual(d.session.document.designer.result().map(\.time), [0, 3, 5, 7, 9, 12, 15].map { Double($0) / 8 })
        keys(d, "u u")
        XCTAssertNil(d.session.document.designer.map)
    }

    func testTheRowsHintsNameBothRotateDirections() {
        let d = make()
        keys(d, "F4 down")
        let hints = DesignerTab.hints(state: d.view.designer, view: d.view)
        XCTAssertTrue(hints.contains("r rotate-left"), hints)
        XCTAssertTrue(hints.contains("y rotate-right"), hints)
        XCTAssertTrue(hints.contains("e euclid"), hints)
        keys(d, "down down")
        XCTAssertTrue(DesignerTab.hints(state: d.view.designer, view: d.view).contains("n nearest"))
    }

    func testZeroAndOneJumpBetweenTheTwoRhythmsToCompareByEar() {
        let d = make()
        keys(d, "F4 1")
        XCTAssertEqual(d.session.document.designer.slider, 1)
        keys(d, "0")
        XCTAssertEqual(d.session.document.designer.slider, 0)
        keys(d, "5")
        XCTAssertEqual(d.session.document.designer.slider, 0.5)
    }

    func testClickingTheDesignersSliderSetsIt() {
        let d = make()
        keys(d, "F4")
        let area = EditorView.layout(session: d.session, view: d.view, width: 80, height: 24).tabs
        let g = DesignerTab.Geometry(width: area.width, height: area.height)
        d.handle(MouseEvent(.press, x: area.x + g.sliderColumn(1), y: area.y + g.slider))
        d.handle(MouseEvent(.release, x: area.x + g.sliderColumn(1), y: area.y + g.slider))
        XCTAssertEqual(d.session.document.designer.slider, 1)
    }

    func testTheEngineHearsTheAuditionOnlyWhileTheDesignerIsShown() throws {
        let d = make()
        let s = d.session
        s.chosenClip = .clip(3)
        XCTAssertEqual(DesignerTab.playbackDocument(session: s, view: d.view), s.document)
        XCTAssertNil(DesignerTab.auditionKey(session: s, view: d.view))
        keys(d, "F4")
        let heard = DesignerTab.playbackDocument(session: s, view: d.view)
        // Five-seven over 2 s at s = 0.5 on the first track's loop region [0, 2).
        let expected = s.document.designer.result().map(\.time)
        XCTAssertEqual(heard.tracks[0].markers.count, expected.count)
        for (a, e) in zip(heard.tracks[0].markers.map(\.time), expected) { XCTAssertEqual(a, e, accuracy: 1e-12) }
        XCTAssertEqual(DesignerTab.auditionKey(session: s, view: d.view), DesignerTab.AuditionKey(track: 0, clip: .clip(3)))
        keys(d, "A")
        XCTAssertNil(DesignerTab.auditionKey(session: s, view: d.view))
        XCTAssertEqual(DesignerTab.playbackDocument(session: s, view: d.view), s.document)
    }
}

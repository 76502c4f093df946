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
        keys(d, "+ + + e")
        XCTAssertEqual(d.session.document.designer.bottom.division, 8)
        XCTAssertEqual(d.session.document.designer.bottom.beats, [0, 2, 3, 5, 6])
        keys(d, "r")
        XCTAssertEqual(d.session.document.designer.bottom.beats, [1, 2, 4, 5, 7])
        keys(d, "u")
        XCTAssertEqual(d.session.document.designer.bottom.beats, [0, 2, 3, 5, 6])
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

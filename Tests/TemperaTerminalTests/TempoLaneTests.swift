import XCTest
@testable import TemperaTerminal
import TemperaCore

/// Time that bends in the editor (DESIGN §18): the tempo lane and its keys, the tempo heard in the transport, the
/// Song tab's ramps and coarse tempo keys.
final class TempoLaneTests: XCTestCase {
    func dispatcher(_ doc: Document = .demo()) -> Dispatcher {
        Dispatcher(session: Session(document: doc), width: 120, height: 40, clock: { 0 })
    }

    func keys(_ d: Dispatcher, _ names: String...) { for n in names { d.handle(Key(name: n)!) } }

    func testTheTransportShowsTheTempoHeardAtThePlayheadNotTheDocuments() {
        var view = ViewState()
        view.transport.isPlaying = true
        view.transport.heardTempo = 0.75
        let canvas = render(Session(document: .demo()), view, width: 120, height: 40)
        XCTAssertTrue(canvas.line(1).contains("  90 bpm ×0.75 "), canvas.line(1))
        view.transport.heardTempo = nil
        XCTAssertTrue(render(Session(document: .demo()), view, width: 120, height: 40).line(1).contains(" 120 bpm ×1.00 "))
    }

    func testTheLaneKeysAddPointsChangeTheirTempoAsOneStepAndDeleteThem() throws {
        let d = dispatcher()
        XCTAssertNil(d.layout.tempoLane, "no map, no lane")
        keys(d, "M-t")
        XCTAssertTrue(d.view.tempoLane)
        XCTAssertNotNil(d.layout.tempoLane)
        keys(d, "a")
        XCTAssertEqual(d.view.message, "tempo point at 0.000 s: 120 BPM")
        keys(d, "end", "a")
        let end = d.session.document.transport.length
        for _ in 0..<30 { keys(d, "S-up") }
        XCTAssertEqual(d.session.document.transport.tempoMap.points,
                       [TempoMap.Point(time: 0, tempo: 1, shape: .linear), TempoMap.Point(time: end, tempo: 1.25, shape: .linear)])
        keys(d, "left", "right")
        XCTAssertEqual(d.session.history.undoSteps.count, 3, "two points and one held key")
        keys(d, "u")
        XCTAssertEqual(d.session.document.transport.tempoMap.points.map(\.tempo), [1, 1])
        keys(d, "delete")
        XCTAssertEqual(d.session.document.transport.tempoMap.points.map(\.time), [0])
        // Back to the tracks: the amplitude keys are the markers' again.
        keys(d, "M-t")
        XCTAssertFalse(d.view.tempoLane)
        XCTAssertNotNil(d.layout.tempoLane, "the map still has a point: the lane stays shown")
        let canvas = render(d.session, d.view, width: 120, height: 40)
        XCTAssertTrue(canvas.line(4).contains(" tempo"), canvas.line(4))
    }

    func testTheSongTabShowsARampAndItsCoarseKeysStepFiveBPM() throws {
        let d = dispatcher()
        keys(d, "F5", "a")
        for _ in 0..<6 { keys(d, ",") }
        XCTAssertEqual(d.session.document.song.sections[0].tempo, d.session.document.transport.tempo(forBPM: 90))
        XCTAssertEqual(d.session.history.undoSteps.count, 7)
        try d.session.run(CommandParser.parse("section 1 bpm 90..120")!)
        let canvas = render(d.session, d.view, width: 120, height: 40)
        XCTAssertTrue(canvas.text.contains("90→120"), canvas.text)
        keys(d, ".")
        XCTAssertEqual(d.session.document.song.sections[0].tempo, d.session.document.transport.tempo(forBPM: 95))
        XCTAssertEqual(d.session.document.song.sections[0].tempoEnd, d.session.document.transport.tempo(forBPM: 125))
    }
}

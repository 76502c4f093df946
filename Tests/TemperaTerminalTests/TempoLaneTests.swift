import XCTest
@testable import TemperaTerminal
import TemperaCore

/// Time that bends in the editor: the tempo lane and its keys, the tempo heard in the transport, the
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

    /// The demo with a tempo point at 2 s (120 BPM, linear to the next) and one at 4 s, the grid off.
    func laneDispatcher() throws -> Dispatcher {
        let d = dispatcher()
        try d.session.run(CommandParser.parse("grid off")!)
        try d.session.run(CommandParser.parse("tempo at 2 1 shape=linear")!)
        try d.session.run(CommandParser.parse("tempo at 4 1.25")!)
        return d
    }

    func testTheShiftToolsArrowsMoveThePointAtTheCursorAsOneUndoStepAndEscCancels() throws {
        let d = try laneDispatcher()
        keys(d, "M-t")
        d.session.cursor = 2
        let steps = d.session.history.undoSteps.count
        let column = d.view.viewport.secondsPerColumn
        keys(d, "m", "right", "right", "S-right", "enter")
        let moved = 2 + 2 * column + column / 8
        XCTAssertEqual(d.session.document.transport.tempoMap.points,
                       [TempoMap.Point(time: moved, tempo: 1, shape: .linear), TempoMap.Point(time: 4, tempo: 1.25)])
        XCTAssertEqual(d.session.cursor, moved, "the cursor goes with the point: it stays the selected one")
        XCTAssertEqual(d.session.history.undoSteps.count, steps + 1)
        XCTAssertEqual(d.session.undoName, "move tempo point")
        keys(d, "u")
        XCTAssertEqual(d.session.document.transport.tempoMap.points.map(\.time), [2, 4])
        // Esc puts it back; with no point at the cursor the arrows say so and move nothing.
        d.session.cursor = 4
        keys(d, "left", "left", "esc")
        XCTAssertEqual(d.session.document.transport.tempoMap.points.map(\.time), [2, 4])
        XCTAssertEqual(d.session.history.undoSteps.count, steps)
        d.session.cursor = 3
        keys(d, "left")
        XCTAssertEqual(d.view.message, "no tempo point at the cursor to shift (a adds one)")
    }

    func testTheMouseOnTheLanePicksAPointAndDragsItInTimeAndTempoAsOneUndoStep() throws {
        let d = try laneDispatcher()
        XCTAssertFalse(d.view.tempoLane)
        let lane = try XCTUnwrap(d.layout.tempoLane)
        let vp = d.view.viewport
        let x = lane.x + Int(vp.column(of: 2))
        let steps = d.session.history.undoSteps.count
        // A press on the point picks it (the lane becomes current, the cursor goes to it).
        d.handle(MouseEvent(.press, x: x, y: lane.y + 1))
        XCTAssertTrue(d.view.tempoLane)
        XCTAssertEqual(d.session.cursor, 2)
        XCTAssertEqual(d.view.message, "tempo point at 2.000 s: 120 BPM")
        // Four columns right and two rows up: later, and 10 BPM faster; released, one undo step.
        d.handle(MouseEvent(.drag, x: x + 2, y: lane.y + 1))
        d.handle(MouseEvent(.drag, x: x + 4, y: lane.y - 1))
        d.handle(MouseEvent(.release, x: x + 4, y: lane.y - 1))
        let to = 2 + vp.time(atColumn: Double(x + 4 - lane.x)) - vp.time(atColumn: Double(x - lane.x))
        let p = try XCTUnwrap(d.session.document.transport.tempoMap.points.first)
        XCTAssertEqual(p.time, to, accuracy: 1e-12)
        XCTAssertEqual(60 * p.tempo / d.session.document.transport.beat, 130, accuracy: 1e-9)
        XCTAssertEqual(p.shape, .linear, "the point keeps its shape")
        XCTAssertEqual(d.session.document.transport.tempoMap.points.count, 2)
        XCTAssertEqual(d.session.history.undoSteps.count, steps + 1)
        keys(d, "u")
        XCTAssertEqual(d.session.document.transport.tempoMap.points,
                       [TempoMap.Point(time: 2, tempo: 1, shape: .linear), TempoMap.Point(time: 4, tempo: 1.25)])
        // A press away from every point moves the cursor there and drags nothing.
        d.handle(MouseEvent(.press, x: x + 10, y: lane.y))
        d.handle(MouseEvent(.drag, x: x + 14, y: lane.y))
        d.handle(MouseEvent(.release, x: x + 14, y: lane.y))
        XCTAssertEqual(d.session.document.transport.tempoMap.points.map(\.time), [2, 4])
        XCTAssertEqual(d.session.cursor, vp.time(atColumn: Double(x + 10 - lane.x)), accuracy: 1e-12)
    }

    func testNextAndPreviousGoFromPointToPointOnTheLaneAndTheAmplitudeKeysChangeTheTempoThere() throws {
        let d = try laneDispatcher()
        keys(d, "M-t")
        d.session.cursor = 0
        let next = "C-right", prev = "C-left"
        keys(d, next)
        XCTAssertEqual(d.session.cursor, 2)
        keys(d, next)
        XCTAssertEqual(d.session.cursor, 4)
        keys(d, "S-down", "S-down")
        XCTAssertEqual(60 * d.session.document.transport.tempoMap.points[1].tempo / d.session.document.transport.beat,
                       148, accuracy: 1e-9)
        keys(d, prev, "delete")
        XCTAssertEqual(d.session.document.transport.tempoMap.points.map(\.time), [4])
    }
}

import XCTest
@testable import TemperaCore

/// The undo history holds at most `maxBytes` of steps: past it the oldest are dropped, the user is told once in
/// one line, and what is left undoes and redoes exactly as before.
final class HistoryBoundTests: XCTestCase {
    func testTheOldestStepsAreDroppedPastTheBoundAndTheUserIsToldOnce() throws {
        let s = Session(document: .newDocument())
        s.history = History(maxBytes: 64 << 10)
        try s.run(line: "select all tracks=all")
        let start = s.document
        var messages: [String] = []
        for _ in 0..<200 {
            if let m = try s.run(line: "shift 1/1024") { messages.append(m) }
        }
        let dropped = s.history.dropped
        XCTAssertGreaterThan(dropped, 0)
        XCTAssertEqual(messages.count, 1, "\(messages)")
        XCTAssertTrue(messages[0].hasPrefix("undo keeps the latest 64 KiB of steps: the oldest are dropped from now on ("),
                      messages[0])
        XCTAssertLessThanOrEqual(s.history.bytes, 64 << 10)
        XCTAssertEqual(s.history.undoSteps.count + dropped, 200)
        XCTAssertEqual(s.history.bytes, s.history.undoSteps.reduce(0) { $0 + $1.bytes })
        // Everything held undoes: the markers stand where the dropped shifts left them.
        let held = s.history.undoSteps.count
        try s.run(.undo(held))
        XCTAssertFalse(s.canUndo)
        let expected = start.tracks[0].markers.map { $0.time + Double(dropped) / 1024 }
        XCTAssertEqual(s.document.tracks[0].markers.map(\.time), expected)
        // Undone steps still count; redoing them all comes back to where it was.
        XCTAssertEqual(s.history.bytes, s.history.redoSteps.reduce(0) { $0 + $1.bytes })
        try s.run(.redo(held))
        XCTAssertEqual(s.document.tracks[0].markers.map(\.time), start.tracks[0].markers.map { $0.time + 200.0 / 1024 })
        // A new step after undoing drops the redo steps' bytes.
        try s.run(.undo(3))
        try s.run(line: "shift 1/1024")
        XCTAssertEqual(s.history.bytes, s.history.undoSteps.reduce(0) { $0 + $1.bytes })
        XCTAssertTrue(s.history.redoSteps.isEmpty)
    }

    func testAStepCostsAboutWhatItsMarkersTake() throws {
        let s = Session(document: .newDocument())
        try s.run(line: "select all tracks=all")
        try s.run(line: "subdivide 100")
        try s.run(line: "select all tracks=all")
        try s.run(line: "shift 1/1024")
        let step = try XCTUnwrap(s.history.undoSteps.last)
        let markers = step.storedMarkers
        XCTAssertEqual(markers, 2 * s.document.tracks.reduce(0) { $0 + $1.markers.count })
        XCTAssertGreaterThanOrEqual(step.bytes, markers * MemoryLayout<Marker>.stride)
        XCTAssertLessThan(step.bytes, markers * MemoryLayout<Marker>.stride + 4096)
    }

    /// A marker added is the smallest step: the marker held in place, no list a track, and counted at what the step
    /// takes; undo takes it away and redo puts it back under its id.
    func testAnAddedMarkerIsASmallStepCountedAtWhatItTakes() throws {
        let s = Session(document: Document(tracks: [Track(name: "a")]))
        try s.run(line: "marker add 1.5 amp=0.25")
        let step = try XCTUnwrap(s.history.undoSteps.last)
        XCTAssertLessThanOrEqual(MemoryLayout<History.Step>.stride, 96, "a step's own size")
        XCTAssertEqual(step.storedMarkers, 1)
        XCTAssertEqual(step.bytes, MemoryLayout<History.Step>.stride, "nothing held out of line")
        let added = try XCTUnwrap(s.document.tracks[0].markers.first)
        XCTAssertEqual(step.markers.map(\.after), [[added]])
        try s.run(.undo(1))
        XCTAssertTrue(s.document.tracks[0].markers.isEmpty)
        try s.run(.redo(1))
        XCTAssertEqual(Array(s.document.tracks[0].markers), [added])
        // A removed marker is held the same way; a changed one keeps its before and after in lists, counted.
        try s.run(line: "select all")
        try s.run(line: "amp 0.5")
        let changed = try XCTUnwrap(s.history.undoSteps.last)
        let lists = History.arrayBytes(1, of: History.TrackChange.self) + 2 * History.arrayBytes(1, of: Marker.self)
        XCTAssertGreaterThanOrEqual(changed.bytes, MemoryLayout<History.Step>.stride + lists)
        XCTAssertLessThanOrEqual(changed.bytes, MemoryLayout<History.Step>.stride + 2 * lists)
        try s.run(line: "delete")
        let removed = try XCTUnwrap(s.history.undoSteps.last)
        XCTAssertEqual(removed.bytes, MemoryLayout<History.Step>.stride)
        XCTAssertEqual(removed.markers.map(\.before.count), [1])
        try s.run(.undo(3))
        XCTAssertEqual(Array(s.document.tracks[0].markers), [])
        try s.run(.redo(3))
        XCTAssertEqual(s.document.tracks[0].markers.count, 0)
        try s.run(.undo(1))
        XCTAssertEqual(s.document.tracks[0].markers.map(\.amp), [0.5])
    }

    /// A full history drops its oldest step as each new one comes, and the bound holds step after step.
    func testAFullHistoryDropsOneOldStepAStep() throws {
        let s = Session(document: Document(tracks: [Track(name: "a")]))
        let bound = 100 * MemoryLayout<History.Step>.stride
        s.history = History(maxBytes: bound)
        for i in 0..<5_000 {
            try s.run(.markerAdd(time: Double(i) / 100, amp: nil))
            XCTAssertLessThanOrEqual(s.history.bytes, bound)
        }
        XCTAssertEqual(s.history.undoSteps.count, 100)
        XCTAssertEqual(s.history.dropped, 4_900)
        try s.run(.undo(100))
        XCTAssertEqual(s.document.tracks[0].markers.count, 4_900)
        XCTAssertEqual(s.document.tracks[0].markers.last?.time, 48.99)
    }

    func testTheNewestStepStaysEvenWhenItAloneIsPastTheBound() throws {
        let s = Session(document: .newDocument())
        s.history = History(maxBytes: 100)
        try s.run(line: "select all tracks=all")
        try s.run(line: "shift 1/1024")
        XCTAssertEqual(try s.run(line: "shift 1/1024"),
                       "undo keeps the latest 100 bytes of steps: the oldest are dropped from now on (1 so far)")
        XCTAssertEqual(s.history.undoSteps.count, 1)
        XCTAssertNil(try s.run(line: "shift 1/1024"))
        XCTAssertTrue(s.canUndo)
    }

    func testAnotherStackOfStepsIsTrimmedToTheSameBound() throws {
        let s = Session(document: .newDocument())
        try s.run(line: "select all tracks=all")
        for _ in 0..<10 { try s.run(line: "shift 1/1024") }
        var steps = s.history.undoSteps
        let sizes = steps.map(\.bytes)
        let total = sizes.reduce(0, +)
        // A step's lists are counted as allocated, and the allocator may hand one list a little more room than
        // another: the bound is the newest three steps' cost, whatever each costs.
        let bound = sizes.suffix(3).reduce(0, +)
        XCTAssertEqual(History.trim(&steps, total: total, to: bound), total - bound, "steps cost \(sizes)")
        XCTAssertEqual(steps.count, 3)
        XCTAssertEqual(steps.map(\.bytes), Array(sizes.suffix(3)))
        var one = s.history.undoSteps
        XCTAssertEqual(History.trim(&one, total: total, to: bound - 1), total - sizes.suffix(2).reduce(0, +))
        XCTAssertEqual(one.count, 2, "a byte under the newest three leaves two")
    }
}

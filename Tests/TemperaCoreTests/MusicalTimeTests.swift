import XCTest
@testable import TemperaCore

/// Beat, meter, bpm, grid, click and count-in: exact values, the file, undo.
final class MusicalTimeTests: XCTestCase {
    func testBPMIsSixtyTimesTempoOverBeat() throws {
        let s = Session(document: Document.newDocument())
        XCTAssertEqual(s.document.transport.bpm, 120)
        XCTAssertEqual(try s.run(line: "bpm 90"), "90 BPM (tempo x0.75)")
        XCTAssertEqual(s.document.transport.tempo, 0.75)
        XCTAssertEqual(s.document.transport.bpm, 90)
        try s.run(line: "beat 0.6")
        // The beat changes the BPM, not the tempo or any time.
        XCTAssertEqual(s.document.transport.tempo, 0.75)
        XCTAssertEqual(s.document.transport.bpm, 75)
        try s.run(line: "bpm 100")
        XCTAssertEqual(s.document.transport.tempo, 1)
        assertTimes(s.times(0), (0..<16).map { Double($0) * 0.125 })
    }

    func testBPMOutsideTheTempoRangeIsOneLineAndChangesNothing() {
        let s = Session(document: Document.newDocument())
        XCTAssertThrowsError(try s.run(line: "bpm 3000")) { e in
            XCTAssertEqual((e as? CommandError)?.message,
                           "bpm 3000 would need tempo x25; with beat 0.5 s, bpm goes from 6 to 2400")
        }
        XCTAssertEqual(s.document.transport.tempo, 1)
        XCTAssertFalse(s.canUndo)
    }

    func testGridStepsOfAFifthOfABeat() {
        var t = Transport()
        t.beat = 0.5
        t.grid = 5
        XCTAssertEqual(t.gridStep, 0.1)
        XCTAssertEqual((0...5).map { t.gridPoint($0, steps: 5) }, [0, 0.1, 0.2, 0.3, 0.4, 0.5])
        XCTAssertEqual(t.nearestGridPoint(to: 0.26, steps: 5), 0.3)
        XCTAssertEqual(t.nearestGridPoint(to: 0.24, steps: 5), 0.2)
        XCTAssertEqual(t.nearestGridPoint(to: -0.3, steps: 5), 0)
        XCTAssertEqual(t.gridPoint(after: 0.3, steps: 5), 0.4)
        XCTAssertEqual(t.gridPoint(after: 0.25, steps: 5), 0.3)
        XCTAssertEqual(t.gridPoint(before: 0.3, steps: 5), 0.2)
        XCTAssertEqual(t.gridPoint(before: 0.05, steps: 5), 0)
        XCTAssertEqual(t.gridPoint(before: 0, steps: 5), 0)
        // Ten steps on from 0 land on two beats exactly, not on a sum of tenths.
        var x = 0.0
        for _ in 0..<10 { x = t.gridPoint(after: x, steps: 5) }
        XCTAssertEqual(x, 1.0)
        for _ in 0..<10 { x = t.gridPoint(before: x, steps: 5) }
        XCTAssertEqual(x, 0)
    }

    func testTripletAndSeptupletGridPoints() {
        var t = Transport()
        t.beat = 0.5
        XCTAssertEqual(t.nearestGridPoint(to: 0.34, steps: 3), 1.0 / 3)
        XCTAssertEqual(t.gridPoint(7, steps: 7), 0.5)
    }

    func testBarsAndBeatsCountFromTimeZero() {
        var t = Transport()
        t.beat = 0.5
        t.meter = 3
        XCTAssertEqual(t.barBeatLabel(0), "1.1")
        XCTAssertEqual(t.barBeatLabel(0.5), "1.2")
        XCTAssertEqual(t.barBeatLabel(1.5), "2.1")
        XCTAssertEqual(t.barBeatLabel(2.4), "2.2")
        XCTAssertEqual(t.barBeat(2.4).offset, 0.4, accuracy: 1e-12)
        XCTAssertEqual(t.barBeatLabel(3), "3.1")
        // A time a hair before a beat (a sum of steps) counts as that beat.
        XCTAssertEqual(t.barBeatLabel(0.1 + 0.2 + 0.2 + 0.2 + 0.2 + 0.1 - 1e-12), "1.3")
        XCTAssertEqual(t.barLength, 1.5)
    }

    func testSettingsAreOneUndoStepEach() throws {
        let s = Session(document: Document.newDocument())
        let before = s.document.transport
        for line in ["beat 0.4", "meter 7", "bpm 140", "grid 5", "grid off", "click on level=0.3", "click level=0.9",
                     "click off", "countin 2"] {
            try s.run(line: line)
        }
        var t = s.document.transport
        XCTAssertEqual([t.beat, t.tempo, t.clickLevel], [0.4, 140 * 0.4 / 60, 0.9])
        XCTAssertEqual([t.meter, t.countIn], [7, 2])
        XCTAssertNil(t.grid)
        XCTAssertFalse(t.click)
        XCTAssertEqual(s.history.undoSteps.map(\.name),
                       ["beat", "meter", "bpm", "grid", "grid", "click", "click", "click", "countin"])
        try s.run(line: "undo")
        XCTAssertEqual(s.document.transport.countIn, 0)
        try s.run(line: "undo 4")
        t = s.document.transport
        XCTAssertEqual(t.grid, 5)
        XCTAssertFalse(t.click)
        XCTAssertEqual(t.clickLevel, 0.7)
        try s.run(line: "undo 4")
        XCTAssertEqual(s.document.transport, before)
    }

    func testMusicalSettingsAreSavedAndReadBackExactly() throws {
        var doc = Document.newDocument()
        doc.transport.beat = 1.0 / 3
        doc.transport.meter = 7
        doc.transport.grid = 5
        doc.transport.click = true
        doc.transport.clickLevel = 0.35
        doc.transport.countIn = 2
        let text = DocumentFile.encode(doc)
        XCTAssertTrue(text.contains("\"time\": {\"beat\": 0.3333333333333333, \"meter\": 7, \"grid\": 5, "
                                    + "\"click\": {\"on\": true, \"level\": 0.35}, \"countin\": 2},\n"), text)
        XCTAssertEqual(try DocumentFile.decode(text).transport, doc.transport)
        doc.transport.grid = nil
        XCTAssertNil(try DocumentFile.decode(DocumentFile.encode(doc)).transport.grid)
    }

    func testAFileWithoutMusicalTimeLoadsWithTheDefaults() throws {
        let old = """
            {"tempera": 1, "transport": {"tempo": 1.5, "volume": 0.8, "length": 2, "loop": {"on": true, "start": 0, "end": 2}},
             "tracks": []}
            """
        let t = try DocumentFile.decode(old).transport
        XCTAssertEqual(t.tempo, 1.5)
        XCTAssertEqual(t.beat, 0.5)
        XCTAssertEqual(t.meter, 4)
        XCTAssertNil(t.grid)
        XCTAssertFalse(t.click)
        XCTAssertEqual(t.clickLevel, 0.7)
        XCTAssertEqual(t.countIn, 0)
        XCTAssertEqual(t.bpm, 180)
    }

    func testBadMusicalTimeInAFileIsOneLine() {
        XCTAssertThrowsError(try DocumentFile.decode("{\"tempera\": 1, \"time\": {\"grid\": 33}}")) { e in
            XCTAssertEqual("\(e)".split(separator: "\n").count, 1)
            XCTAssertTrue("\(e)".contains("grid must be"), "\(e)")
        }
        XCTAssertThrowsError(try DocumentFile.decode("{\"tempera\": 1, \"time\": {\"beat\": 0}}"))
        XCTAssertThrowsError(try DocumentFile.decode("{\"tempera\": 1, \"time\": {\"click\": {\"level\": 2}}}"))
    }

    func testCommandFormsAndTheirErrors() throws {
        XCTAssertEqual(try CommandParser.parse("beat 3/8"), .beat(0.375))
        XCTAssertEqual(try CommandParser.parse("meter 5"), .meter(5))
        XCTAssertEqual(try CommandParser.parse("bpm 93.75"), .bpm(93.75))
        XCTAssertEqual(try CommandParser.parse("grid 7"), .grid(7))
        XCTAssertEqual(try CommandParser.parse("grid off"), .grid(nil))
        XCTAssertEqual(try CommandParser.parse("click on"), .click(on: true, level: nil))
        XCTAssertEqual(try CommandParser.parse("click level=1/2"), .click(on: nil, level: 0.5))
        XCTAssertEqual(try CommandParser.parse("countin 0"), .countIn(0))
        func message(_ line: String) -> String? {
            do { _ = try CommandParser.parse(line) } catch let e as CommandError { return e.description } catch {}
            return nil
        }
        XCTAssertEqual(message("grid 33"), "column 6: grid must be a whole number from 1 to 32, not 33")
        XCTAssertEqual(message("grid 0"), "column 6: grid must be a whole number from 1 to 32, not 0")
        XCTAssertEqual(message("meter 0"), "column 7: a meter has from 1 to 64 pulses a bar, not 0")
        XCTAssertEqual(message("click"), "column 7: missing on, off or level= (click on|off [level=L] | click level=L)")
        XCTAssertEqual(message("bpm 0"), "column 5: bpm must be greater than 0, not 0")
        XCTAssertEqual(message("countin 17"), "column 9: countin must be a whole number from 0 to 16, not 17")
    }
}

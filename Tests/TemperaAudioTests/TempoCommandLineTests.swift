import Foundation
import TemperaCore
import TemperaTestSupport
import XCTest

/// Time that bends on the command line: `events`, `export` read back by Python's mido, `analyse`.
final class TempoCommandLineTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("tempo-cli") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func python(_ program: String, _ args: [String] = []) throws -> String {
        let script = dir + "/script.py"
        try program.write(toFile: script, atomically: true, encoding: .utf8)
        let r = Spawn.run("/usr/bin/python3", [script] + args)
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdout
    }

    func lines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    }

    /// Quarter notes over four bars (beat 0.5 s, kick), the map 90 → 120 BPM over them; a song of the first bar
    /// ramping 90 → 120 over three repeats in 3/4, then the whole at the document's tempo.
    func document() -> Document {
        let quarters: [Marker] = (0..<16).map { (i: Int) -> Marker in
            let late: Double = i % 4 == 3 ? 0.03 : 0
            return Marker(id: MarkerID(i), time: Double(i) * 0.5 + late, amp: 0.8, content: .clip(1))
        }
        var doc = Document(tracks: [Track(name: "kick", markers: MarkerList(quarters))], transport: Transport(tempo: 1, loopStart: 0, loopEnd: 8, loopOn: true, length: 8))
        doc.transport.tempoMap = TempoMap([TempoMap.Point(time: 0, tempo: 0.75, shape: .linear),
                                           TempoMap.Point(time: 8, tempo: 1)])
        return doc
    }

    static let reader = """
        import json, sys, mido
        f = mido.MidiFile(sys.argv[1])
        tempos, meters, tick = [], [], 0
        for m in f.tracks[0]:
            tick += m.time
            if m.type == "set_tempo": tempos.append([tick, m.tempo])
            if m.type == "time_signature": meters.append([tick, m.numerator])
        clock, seconds = 0.0, []
        for m in f:
            clock += m.time
            if m.type == "note_on" and m.velocity > 0: seconds.append(clock)
        print(json.dumps({"tempos": tempos, "meters": meters, "seconds": seconds}))
        """

    func testMidoReadsTheExportedRampAndPlacesEveryNoteWithinHalfAMillisecondOfEvents() throws {
        let path = dir + "/ramp.tempera"
        try DocumentFile.save(document(), to: path)
        let export = try TemperaProgram.run(["export", path, "-o", dir + "/ramp.mid", "--loops", "2"])
        XCTAssertEqual(export.status, 0, export.stderr)
        let read = try JSONSerialization.jsonObject(with: Data(try python(Self.reader, [dir + "/ramp.mid"]).utf8)) as! [String: Any]
        let seconds = read["seconds"] as! [Double]
        let events = try lines(try TemperaProgram.run(["events", path, "--loops", "2"]).stdout).map { ($0["time"] as! NSNumber).doubleValue }
        XCTAssertEqual(seconds.count, 32)
        XCTAssertEqual(seconds.count, events.count)
        let worst = zip(seconds, events).map { abs($0 - $1) }.max() ?? 1
        XCTAssertLessThanOrEqual(worst, 0.0005, "every note-on within 0.5 ms of tempera's time")
        // Tempo events along the ramp at least every 1/16 beat (60 ticks), from 90 to almost 120 BPM.
        let tempos = read["tempos"] as! [[Int]]
        let gaps: [Int] = zip(tempos.dropFirst(), tempos).map { (next: [Int], last: [Int]) -> Int in next[0] - last[0] }
        XCTAssertLessThanOrEqual(gaps.max() ?? 0, 60)
        XCTAssertGreaterThanOrEqual(tempos.count, 2 * 16 * 16 - 2)
        let at90: Double = 60_000_000 / 90
        XCTAssertEqual(Double(tempos[0][1]), at90, accuracy: at90 * 0.01)
        XCTAssertEqual(Double(tempos[255][1]), 60_000_000 / 120, accuracy: 60_000_000 / 120 * 0.01)
    }

    func testASongRampAndASectionMeterExportWithTimeSignaturesAndNotesWithinHalfAMillisecond() throws {
        let path = dir + "/song.tempera"
        var doc = document()
        doc.transport.tempoMap = TempoMap()
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 1.5, repeats: 3, tempo: 0.75),
                                   Song.Section(name: "B", start: 0, end: 8, repeats: 1)], on: true)
        doc.song.sections[0].tempoEnd = 1
        doc.song.sections[0].shape = .exp
        doc.song.sections[0].meter = Meter(3)
        try DocumentFile.save(doc, to: path)
        let export = try TemperaProgram.run(["export", path, "-o", dir + "/song.mid", "--song"])
        XCTAssertEqual(export.status, 0, export.stderr)
        let read = try JSONSerialization.jsonObject(with: Data(try python(Self.reader, [dir + "/song.mid"]).utf8)) as! [String: Any]
        XCTAssertEqual(read["meters"] as! [[Int]], [[0, 4], [0, 3], [8_640, 4]], "3/4 for the ramp's nine beats, then 4/4")
        let seconds = read["seconds"] as! [Double]
        let events = try lines(try TemperaProgram.run(["events", path, "--song"]).stdout).map { ($0["time"] as! NSNumber).doubleValue }
        XCTAssertEqual(seconds.count, events.count)
        XCTAssertLessThanOrEqual(zip(seconds, events).map { abs($0 - $1) }.max() ?? 1, 0.0005)
    }

    func testEventsFollowTheMapAndAnalyseMeasuresDeviationsInPlayTime() throws {
        let path = dir + "/ramp.tempera"
        let doc = document()
        try DocumentFile.save(doc, to: path)
        let events = try lines(try TemperaProgram.run(["events", path, "--loops", "2", "--sample-rate", "44100"]).stdout)
        let schedule = Schedule(document: doc, sampleRate: 44_100).onsets(loops: 2)
        XCTAssertEqual(events.map { ($0["frame"] as! NSNumber).int64Value }, schedule.map(\.frame))
        // The marker at 1.53 s (3.06 beats) is nearest 28/9 beats (1.5556 s): early by the map's play time between.
        let analysed = try lines(try TemperaProgram.run(["analyse", path]).stdout)
        let early = analysed[3]
        XCTAssertEqual(early["n"] as? Int, 9)
        XCTAssertEqual(early["k"] as? Int, 1)
        let k = 0.25 / 8, grid = 28.0 / 9 * 0.5
        let expected = -log((0.75 + k * grid) / (0.75 + k * 1.53)) / k
        XCTAssertEqual((early["dev_ms"] as! NSNumber).doubleValue, (expected * 10_000).rounded() / 10)
        XCTAssertNotEqual((early["dev_ms"] as! NSNumber).doubleValue, ((1.53 - grid) * 10_000).rounded() / 10)
    }
}

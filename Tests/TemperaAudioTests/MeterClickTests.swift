import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// The click and the count-in follow compound and additive meters (strong on the bar, medium on each group's
/// first pulse, soft on the others), and MIDI export writes the time signature, as mido reads it.
final class MeterClickTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("meter-click") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Strong, medium or soft from the click's pitch: 8, 6 or 4 zero crossings in its first 2 ms (2, 1.5, 1 kHz).
    static func levels(_ out: [Float], at starts: [Int]) -> [Meter.Accent] {
        starts.map {
            let n = MetronomeTests.crossings(out, at: $0)
            return n >= 7 ? .bar : n >= 5 ? .group : .beat
        }
    }

    func testTwelveEightClicksEveryEighthWithTheDottedQuartersMedium() throws {
        // 12/8 at beat 0.5 s: an eighth lasts 0.25 s, a bar 3 s; two bars looped once.
        var doc = MetronomeTests.silentDocument(beat: 0.5, meter: 12, tempo: 1, loop: (0, 6))
        doc.transport.signature = Meter(12, 8)
        let out = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0).renderAll()
        let starts = Onsets.soundStarts(out)
        XCTAssertEqual(starts, (0..<24).map { $0 * 12_000 })
        let bar: [Meter.Accent] = [.bar, .beat, .beat, .group, .beat, .beat, .group, .beat, .beat, .group, .beat, .beat]
        XCTAssertEqual(Self.levels(out, at: starts), bar + bar)
    }

    func testSevenEightAsTwoTwoThreeAccentsItsGroupsAndCountsIn() throws {
        // 7/8 (2+2+3) at beat 0.5 s, a bar of count-in first: 7 eighths of 0.25 s, then the bar itself.
        var doc = MetronomeTests.silentDocument(beat: 0.5, meter: 7, tempo: 1, loop: (0, 1.75), countIn: 1)
        doc.transport.signature = Meter(7, 8, groups: [2, 2, 3])
        let r = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0)
        XCTAssertEqual(r.countInFrames, 84_000)
        let out = r.renderAll()
        let starts = Onsets.soundStarts(out)
        XCTAssertEqual(starts, (0..<14).map { $0 * 12_000 })
        let bar: [Meter.Accent] = [.bar, .beat, .group, .beat, .group, .beat, .beat]
        XCTAssertEqual(Self.levels(out, at: starts), bar + bar, "the count-in accents as the music does")
    }

    func testASectionInSevenEightClicksItsOwnPulsesInAFourFourSong() throws {
        // 4/4 document; section A [0, 2) in 4/4, then B [2, 3.75) in 7/8 (2+2+3), its bar counted from its start.
        var doc = MetronomeTests.silentDocument(beat: 0.5, meter: 4, tempo: 1, loop: (0, 3.75))
        var b = Song.Section(name: "B", start: 2, end: 3.75)
        b.meter = Meter(7, 8, groups: [2, 2, 3])
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 2), b], on: true)
        let out = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0).renderAll()
        let starts = Onsets.soundStarts(out)
        XCTAssertEqual(starts, [0, 24_000, 48_000, 72_000] + (0..<7).map { 96_000 + $0 * 12_000 })
        XCTAssertEqual(Self.levels(out, at: starts), [.bar, .beat, .beat, .beat, .bar, .beat, .group, .beat, .group, .beat, .beat])
    }

    func testMidoReadsTheTimeSignaturesOfTwelveEightAndSevenEight() throws {
        var doc = MetronomeTests.silentDocument(beat: 0.5, meter: 12, tempo: 1, loop: (0, 3), click: false)
        doc.tracks[0].markers = MarkerList([Marker(id: 0, time: 0, amp: 1, content: .clip(1))])
        doc.slots[0] = ClipSlot(name: "kick", note: 36)
        doc.transport.signature = Meter(12, 8)
        var b = Song.Section(name: "B", start: 0, end: 1.75)
        b.meter = Meter(7, 8, groups: [2, 2, 3])
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 3), b], on: true)
        let file = dir + "/meters.mid"
        try Data(MidiExport.file(doc, song: true).file.bytes()).write(to: URL(fileURLWithPath: file))
        let program = """
            import sys, mido
            tick = 0
            for m in mido.MidiFile(sys.argv[1]).tracks[0]:
                tick += m.time
                if m.type == "time_signature":
                    print(tick, m.numerator, m.denominator, m.clocks_per_click, m.notated_32nd_notes_per_beat)
            """
        let script = dir + "/read.py"
        try program.write(toFile: script, atomically: true, encoding: .utf8)
        let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
        let r = Spawn.run("/usr/bin/env", [python, script, file])
        XCTAssertEqual(r.status, 0, r.stderr)
        // 12/8 clicks the dotted quarter (36 clocks); 7/8 in 2+2+3 an eighth (12). B starts after 3 s = 6 quarters.
        let tpq = MidiExport.file(doc, song: true).file.division
        XCTAssertEqual(r.stdout.split(separator: "\n").map(String.init), ["0 12 8 36 8", "\(6 * tpq) 7 8 12 8"])
    }
}

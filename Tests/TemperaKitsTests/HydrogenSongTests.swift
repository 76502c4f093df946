import Foundation
import TemperaCore
import TemperaKits
import TemperaTestSupport
import XCTest

/// `.h2song` import, on a small song the test writes: patterns as groups, regions, sections, timing, and what cannot
/// be carried.
final class HydrogenSongTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("h2song") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    static func note(_ position: Int, _ instrument: Int, velocity: Double = 0.8, leadLag: Double = 0,
                     probability: Double = 1, off: Bool = false) -> String {
        "<note><position>\(position)</position><leadlag>\(leadLag)</leadlag><velocity>\(velocity)</velocity>"
            + "<pan>0</pan><pitch>0</pitch><probability>\(probability)</probability><length>-1</length>"
            + "<instrument>\(instrument)</instrument><note_off>\(off)</note_off></note>"
    }

    func write(instruments: Int = 2, humanize: Double = 0) throws -> String {
        let inst = (0..<instruments).map { i in
            "<instrument><id>\(i)</id><name>I\(i)</name><volume>1</volume><pan>\(i == 1 ? -0.5 : 0)</pan><gain>1</gain>"
                + "<muteGroup>\(i == 1 ? 0 : -1)</muteGroup><instrumentComponent><component_id>0</component_id><gain>1</gain>"
                + "<layer><filename>/samples/i\(i).wav</filename><min>0</min><max>1</max><gain>1</gain><pitch>0</pitch></layer>"
                + "</instrumentComponent></instrument>"
        }.joined()
        let many = (2..<instruments).map { Self.note(0, $0) }.joined()
        let song = """
            <?xml version="1.0" encoding="UTF-8"?>
            <song><version>1.2.0</version><bpm>120</bpm><humanize_time>\(humanize)</humanize_time>
            <humanize_velocity>0</humanize_velocity><swing_factor>0</swing_factor>
            <instrumentList>\(inst)</instrumentList>
            <patternList>
             <pattern><name>A</name><size>192</size><noteList>\(Self.note(0, 0, velocity: 1))\(Self.note(48, 1, leadLag: -0.5))\(Self.note(96, 0, off: true))\(many)</noteList></pattern>
             <pattern><name>B</name><size>96</size><noteList>\(Self.note(24, 1, velocity: 0.25, probability: 0.5))</noteList></pattern>
            </patternList>
            <patternSequence><group><patternID>A</patternID></group><group><patternID>A</patternID></group>
             <group><patternID>B</patternID></group><group><patternID>A</patternID></group></patternSequence>
            </song>
            """
        let path = dir + "/s.h2song"
        try song.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testPatternsBecomeRegionsAndTheSequenceTheSong() throws {
        let (doc, warnings) = try HydrogenSong.document(path: try write(), kits: HydrogenKits(roots: []))
        // 120 BPM: a tick is 60 / (120 * 48) s; A is 192 ticks (2 s), B 96 (1 s).
        XCTAssertEqual(doc.song.sections.map(\.name), ["A", "B", "A"])
        XCTAssertEqual(doc.song.sections.map(\.repeats), [2, 1, 1])
        XCTAssertEqual(doc.song.sections.map(\.start), [0, 2, 0])
        XCTAssertEqual(doc.song.sections.map(\.end), [2, 3, 2])
        XCTAssertTrue(doc.song.on)
        XCTAssertEqual(doc.transport.beat, 0.5)
        XCTAssertEqual(doc.transport.meter, 4)
        XCTAssertEqual(doc.transport.length, 3)
        XCTAssertEqual(doc.tracks.map(\.name), ["I0", "I1"])
        let tick = 60.0 / (120 * 48)
        // Each pattern is a group placed at the start of its region; the tracks hold no markers of their own.
        XCTAssertEqual(doc.song.instances, [GroupInstance(group: 1, start: 0, track: 0), GroupInstance(group: 2, start: 2, track: 0)])
        XCTAssertEqual(doc.groups[1].span, 2)
        XCTAssertEqual(doc.groups[2].span, 1)
        XCTAssertEqual(doc.tracks.map(\.markers.count), [0, 0])
        let played = doc.expandingInstances()
        XCTAssertEqual(played.tracks[0].markers.map(\.time), [0, 96 * tick])
        XCTAssertEqual(played.tracks[0].markers.map(\.content), [.clip(1), .rest], "a note off is a rest")
        XCTAssertEqual(played.tracks[0].markers.map(\.amp)[0], 1)
        // Lead/lag: -0.5 moves a note 2.5 ticks earlier.
        XCTAssertEqual(played.tracks[1].markers.map(\.time), [(48 - 2.5) * tick, 2 + 24 * tick])
        XCTAssertEqual(played.tracks[1].markers.map(\.amp)[1], 0.25)
        // Pan -0.5 through Hydrogen's default law: left 1, right 0.5, written as tempera's gain and pan.
        XCTAssertEqual(doc.slots[1].file, "/samples/i1.wav")
        XCTAssertEqual(doc.slots[1].choke, 1)
        let sides = Pan.gains(doc.slots[1].pan)
        XCTAssertEqual(sides.left * doc.slots[1].gain, 1, accuracy: 1e-12)
        XCTAssertEqual(sides.right * doc.slots[1].gain, 0.5, accuracy: 1e-12)
        XCTAssertEqual(doc.slots[0].gain, 1)
        XCTAssertEqual(doc.slots[0].pan, 0)
        XCTAssertEqual(doc.transport.volume, 1, "no <volume>: Hydrogen's unity")
        XCTAssertEqual(warnings, ["1 notes with a probability below 1 play every time"])
    }

    func testAPatternInSeveralColumnsIsOneGroupPlayedInEach() throws {
        // Columns A+B and A: two regions, pattern A placed in both, linked.
        var song = try String(contentsOfFile: try write(), encoding: .utf8)
        song = song.replacingOccurrences(of: "<group><patternID>B</patternID></group>",
                                         with: "<group><patternID>A</patternID><patternID>B</patternID></group>")
        let path = dir + "/shared.h2song"
        try song.write(toFile: path, atomically: true, encoding: .utf8)
        var (doc, _) = try HydrogenSong.document(path: path, kits: HydrogenKits(roots: []))
        XCTAssertEqual(doc.song.instances.map(\.group), [1, 1, 2], "A in both regions, B beside it in the second")
        XCTAssertEqual(doc.song.instances.map(\.start), [0, 2, 2])
        XCTAssertEqual(doc.song.sections.map(\.name), ["A", "A+B", "A"])
        let kicks = doc.expandingInstances().tracks[0].markers.filter { $0.content == .clip(1) }.map(\.time)
        XCTAssertEqual(kicks, [0, 2])
        // Edited once, the pattern changes in both regions.
        doc.groups[1].elements[0].amp = 0.5
        let edited = doc.expandingInstances().tracks[0].markers.filter { $0.content == .clip(1) }
        XCTAssertEqual(edited.map(\.amp), [0.5, 0.5])
    }

    func testPatternsPastTheBanksSixteenArePlainMarkers() throws {
        // 18 patterns of one note each, one column each.
        let inst = "<instrument><id>0</id><name>I0</name><volume>1</volume><pan>0</pan><gain>1</gain><instrumentComponent>"
            + "<component_id>0</component_id><gain>1</gain><layer><filename>/samples/i0.wav</filename><min>0</min><max>1</max>"
            + "<gain>1</gain><pitch>0</pitch></layer></instrumentComponent></instrument>"
        let patterns = (0..<18).map { "<pattern><name>P\($0)</name><size>48</size><noteList>\(Self.note($0, 0))</noteList></pattern>" }
        let sequence = (0..<18).map { "<group><patternID>P\($0)</patternID></group>" }
        let song = "<song><bpm>120</bpm><instrumentList>\(inst)</instrumentList><patternList>\(patterns.joined())</patternList>"
            + "<patternSequence>\(sequence.joined())</patternSequence></song>"
        let path = dir + "/many.h2song"
        try song.write(toFile: path, atomically: true, encoding: .utf8)
        let (doc, warnings) = try HydrogenSong.document(path: path, kits: HydrogenKits(roots: []))
        XCTAssertEqual(doc.song.instances.count, 16)
        XCTAssertEqual(doc.tracks[0].markers.count, 2, "P16 and P17 as plain markers")
        XCTAssertTrue(warnings.contains("2 patterns past the bank's 16 groups are plain markers"), "\(warnings)")
        let tick = 60.0 / (120 * 48)
        let times = doc.expandingInstances().tracks[0].markers.map(\.time)
        XCTAssertEqual(times, (0..<18).map { Double($0) * 48 * tick + Double($0) * tick })
    }

    func testTheSongsVolumeIsTheMasterAndEachPanLawGivesHydrogensSides() throws {
        // Hydrogen's sides at pan 0.3 for every law (its sampler's formulas; right is the law at -p).
        let p = 0.3
        let expected: [HydrogenPanLaw: (Double, Double)] = [
            .ratioStraightPolygonal: (0.7, 1), .linearStraightPolygonal: (0.7 / 1.3, 1),
            .linearConstSum: (0.35, 0.65), .polarConstPower: (cos(0.325 * .pi), cos(0.175 * .pi)),
            .quadraticConstPower: ((0.35).squareRoot(), (0.65).squareRoot()),
        ]
        for (law, (l, r)) in expected {
            XCTAssertEqual(law.gains(p).left, l, accuracy: 1e-12, law.rawValue)
            XCTAssertEqual(law.gains(p).right, r, accuracy: 1e-12, law.rawValue)
        }
        for law in HydrogenPanLaw.allCases {
            // Every law is a law: the centre even, the sides mirrored.
            XCTAssertEqual(law.gains(0).left, law.gains(0).right, accuracy: 1e-12, law.rawValue)
            XCTAssertEqual(law.gains(0.4).left, law.gains(-0.4).right, accuracy: 1e-12, law.rawValue)
            // The slot written for a law's sides sounds those sides through tempera's law.
            let sides = law.gains(-0.7)
            let (gain, pan) = HydrogenPanLaw.slot(left: 0.9 * sides.left, right: 0.9 * sides.right)
            XCTAssertEqual(Pan.gains(pan).left * gain, 0.9 * sides.left, accuracy: 1e-12, law.rawValue)
            XCTAssertEqual(Pan.gains(pan).right * gain, 0.9 * sides.right, accuracy: 1e-12, law.rawValue)
        }
        var text = try String(contentsOfFile: try write(), encoding: .utf8)
        text = text.replacingOccurrences(of: "<bpm>120</bpm>", with: "<bpm>120</bpm><volume>0.64</volume><pan_law_type>LINEAR_CONST_SUM</pan_law_type>")
        try text.write(toFile: dir + "/v.h2song", atomically: true, encoding: .utf8)
        let (doc, _) = try HydrogenSong.document(path: dir + "/v.h2song", kits: HydrogenKits(roots: []))
        XCTAssertEqual(doc.transport.volume, 0.64)
        // LINEAR_CONST_SUM at -0.5: left 0.75, right 0.25; at the centre 0.5 a side.
        XCTAssertEqual(Pan.gains(doc.slots[1].pan).left * doc.slots[1].gain, 0.75, accuracy: 1e-12)
        XCTAssertEqual(Pan.gains(doc.slots[1].pan).right * doc.slots[1].gain, 0.25, accuracy: 1e-12)
        XCTAssertEqual(doc.slots[0].gain, 0.5, accuracy: 1e-12)
        XCTAssertEqual(doc.slots[0].pan, 0)
    }

    func testWhatCannotBeCarriedIsOneLineEach() throws {
        let (doc, warnings) = try HydrogenSong.document(path: try write(instruments: 18, humanize: 0.2),
                                                         kits: HydrogenKits(roots: []))
        XCTAssertEqual(doc.tracks.count, 16)
        XCTAssertEqual(warnings, [
            "humanize time 0.2 is not carried: notes play on their ticks at their velocities",
            "1 notes with a probability below 1 play every time",
            "18 instruments have notes; only 16 slots: I16, I17 left out",
        ])
    }

    func testANonSongIsRefusedInOneLine() throws {
        let path = dir + "/k.xml"
        try "<drumkit_info/>".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try HydrogenSong.document(path: path)) {
            XCTAssertEqual("\($0)", "song: \(path) is not a Hydrogen song (its root is <drumkit_info>, not <song>)")
        }
    }
}

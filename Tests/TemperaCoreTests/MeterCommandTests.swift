import XCTest
@testable import TemperaCore

/// Compound and additive meters: `meter N/D [groups=...]` and `section N meter ...`, what they label and accent,
/// how files keep them, and that none moves an onset.
final class MeterCommandTests: XCTestCase {
    func testMeterReadsNOverDWithGroupsAndFourStillReadsAsFourFour() throws {
        let s = Session(document: .newDocument())
        XCTAssertEqual(try s.run(line: "meter 7/8 groups=2+2+3"), "7/8: 7 pulses a bar in 2+2+3")
        XCTAssertEqual(s.document.transport.signature, Meter(7, 8, groups: [2, 2, 3]))
        XCTAssertEqual(try s.run(line: "meter 12/8"), "12/8: 12 pulses a bar in 3+3+3+3")
        XCTAssertEqual(s.document.transport.signature.beatGroups, [3, 3, 3, 3])
        XCTAssertEqual(try s.run(line: "meter 4"), "4 beats a bar")
        XCTAssertEqual(s.document.transport.signature, Meter(4))
        XCTAssertEqual(try CommandParser.parse("meter 5"), .meter(5))
        XCTAssertEqual(try CommandParser.parse("meter 7/8 groups=2+2+3")?.text, "meter 7/8 groups=2+2+3")
        XCTAssertEqual(try CommandParser.parse("meter 6/8")?.text, "meter 6/8")
        try s.run(line: "undo")
        XCTAssertEqual(s.document.transport.signature, Meter(12, 8), "each meter is one undo step")
    }

    func testABadMeterIsOneLineNamingWhatIsWrong() {
        let s = Session(document: .newDocument())
        func message(_ line: String) -> String? {
            do {
                _ = try s.run(line: line)
                return nil
            } catch {
                return (error as? CommandError)?.message
            }
        }
        XCTAssertEqual(message("meter 7/8 groups=2+2"), "groups 2+2 make 4 pulses, but a bar of 7/8 has 7")
        XCTAssertEqual(message("meter 7/6"), "the meter's unit must be 1, 2, 4, 8, 16 or 32, not '6'")
        XCTAssertEqual(message("meter 0/8"), "a meter has from 1 to 64 pulses a bar, not 0")
        XCTAssertEqual(message("meter 7/8 groups=2+x"), "groups '2+x' must be whole numbers joined by + (2+2+3)")
        XCTAssertEqual(message("meter seven"), "meter 'seven' is not N or N/D (4, 7/8, 12/8)")
        XCTAssertEqual(s.document.transport.signature, Meter(4), "a refused meter changes nothing")
    }

    func testBarsAndTheGridCountTheMetersPulsesAndNoOnsetMoves() throws {
        let s = Session(document: .newDocument())
        let before = s.document.tracks
        try s.run(line: "meter 7/8 groups=2+2+3")
        XCTAssertEqual(s.document.tracks, before, "a meter never moves a marker")
        let t = s.document.transport
        XCTAssertEqual(t.pulse, 0.25)
        XCTAssertEqual(t.barLength, 1.75)
        XCTAssertEqual(t.barBeatLabel(1.75), "2.1")
        XCTAssertEqual(t.barBeatLabel(1.5), "1.7")
        XCTAssertEqual(t.gridStep, 0.0625, "grid 4: four steps a pulse")
        XCTAssertEqual(t.signature.accent(position: 0), .bar)
        XCTAssertEqual((0..<7).map { t.signature.accent(position: $0) }, [.bar, .beat, .group, .beat, .group, .beat, .beat])
        try s.run(line: "meter 12/8")
        XCTAssertEqual(s.document.transport.barLength, 3)
        XCTAssertEqual((0..<12).filter { s.document.transport.signature.accent(position: $0) == .group }, [3, 6, 9])
        try s.run(line: "meter 5")
        XCTAssertEqual(s.document.transport.signature.groupMask, 0, "a simple meter has only bar and beat")
    }

    func testASectionHasItsOwnMeterAndOffGivesItBack() throws {
        let s = Session(document: .newDocument())
        try s.run(line: "section add A 0 2")
        try s.run(line: "section 1 meter 7/8 groups=2+2+3")
        XCTAssertEqual(s.document.song.sections[0].meter, Meter(7, 8, groups: [2, 2, 3]))
        XCTAssertEqual(try CommandParser.parse("section 1 meter 7/8 groups=2+2+3")?.text, "section 1 meter 7/8 groups=2+2+3")
        try s.run(line: "section 1 meter off")
        XCTAssertNil(s.document.song.sections[0].meter)
        XCTAssertThrowsError(try s.run(line: "section 1 meter 7/8 groups=3+3"))
    }

    func testFilesKeepTheMeterAndOlderFilesReadAsQuarterMeters() throws {
        var doc = Document.newDocument()
        doc.transport.signature = Meter(7, 8, groups: [2, 2, 3])
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 2)])
        doc.song.sections[0].meter = Meter(12, 8)
        let text = DocumentFile.encode(doc)
        XCTAssertTrue(text.contains("\"meter\": \"7/8 groups=2+2+3\""), text)
        XCTAssertTrue(text.contains("\"meter\": \"12/8\""), text)
        let back = try DocumentFile.decode(text)
        XCTAssertEqual(back.transport.signature, Meter(7, 8, groups: [2, 2, 3]))
        XCTAssertEqual(back.song.sections[0].meter, Meter(12, 8))
        // A quarter-note meter is written as it always was, and such a file reads as N/4.
        let plain = DocumentFile.encode(.newDocument())
        XCTAssertTrue(plain.contains("\"meter\": 4,"), plain)
        let three = try DocumentFile.decode(plain.replacingOccurrences(of: "\"meter\": 4,", with: "\"meter\": 3,"))
        XCTAssertEqual(three.transport.signature, Meter(3, 4))
        XCTAssertThrowsError(try DocumentFile.decode(plain.replacingOccurrences(of: "\"meter\": 4,", with: "\"meter\": \"7/8 groups=9\",")))
    }
}

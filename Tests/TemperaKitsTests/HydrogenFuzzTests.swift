import Foundation
import TemperaCore
import TemperaKits
import TemperaTestSupport
import XCTest

/// What the fuzzers found in the Hydrogen readers (`make fuzz`): each input is refused in one line or imported as a
/// document that saves and opens again, never a trap.
final class HydrogenFuzzTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("h2fuzz") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// A song of one instrument and one pattern, with the given pieces of XML in place.
    func song(bpm: String = "120", id: String = "0", muteGroup: String = "-1", size: String = "192",
              instrument: String = "0", groups: Int = 1) throws -> String {
        let sequence = String(repeating: "<group><patternID>p</patternID></group>", count: groups)
        let text = """
            <song><bpm>\(bpm)</bpm><instrumentList><instrument><id>\(id)</id><name>kick</name>\
            <muteGroup>\(muteGroup)</muteGroup><filename>kick.wav</filename></instrument></instrumentList>
            <patternList><pattern><name>p</name><size>\(size)</size><noteList><note><position>0</position>\
            <instrument>\(instrument)</instrument></note></noteList></pattern></patternList>
            <patternSequence>\(sequence)</patternSequence></song>
            """
        let path = dir + "/s.h2song"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func assertRefused(_ path: String, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try HydrogenSong.document(path: path, kits: HydrogenKits(roots: [])),
                             file: file, line: line) { error in
            XCTAssertEqual("\(error)", message, file: file, line: line)
        }
    }

    func reopened(_ document: Document) throws -> Document {
        try DocumentFile.decode(bytes: DocumentFile.encodeBytes(document))
    }

    func testAPatternLongerThanADocumentMayLastIsRefusedNotATrap() throws {
        let path = try song(size: "1555555555555555555555555555555555555555555592")
        assertRefused(path, "song: \(path) lasts 1.6203703703703704e+43 s; a document ends by 10000000 s")
    }

    func testAPatternOfManyBeatsKeepsAMeterTheDocumentCanHold() throws {
        let (doc, _) = try HydrogenSong.document(path: try song(size: "\(48 * 100)"), kits: HydrogenKits(roots: []))
        XCTAssertEqual(doc.transport.meter, 4)
        XCTAssertEqual(try reopened(doc).transport.meter, 4)
        let (seven, _) = try HydrogenSong.document(path: try song(size: "\(48 * 7)"), kits: HydrogenKits(roots: []))
        XCTAssertEqual(seven.transport.meter, 7)
    }

    func testHugeInstrumentNumbersAreNoInstrumentNotATrap() throws {
        // The note names instrument 1e300: no instrument of the song, so nothing is left to import.
        let path = try song(instrument: "1e300")
        assertRefused(path, "song: \(path) has no notes to import")
        // An id out of range is no id: the instrument counts by its place in the list, as without one.
        let (doc, _) = try HydrogenSong.document(path: try song(id: "1e300", instrument: "0"),
                                                 kits: HydrogenKits(roots: []))
        XCTAssertEqual(doc.tracks.count, 1)
    }

    func testHugeMuteGroupsAreNoChokeOrTheLastGroupNotATrap() throws {
        let (doc, _) = try HydrogenSong.document(path: try song(muteGroup: "1e300"), kits: HydrogenKits(roots: []))
        XCTAssertEqual(doc.slots[0].choke, 0)
        let (big, _) = try HydrogenSong.document(path: try song(muteGroup: "2000000000"), kits: HydrogenKits(roots: []))
        XCTAssertEqual(big.slots[0].choke, ClipSlot.chokeGroups.upperBound)
    }

    func testATempoWhoseBeatNoDocumentHoldsIsRefused() throws {
        let slow = try song(bpm: "0.5")
        assertRefused(slow, "song: \(slow): bpm 0.5 is out of range (1 to 6000)")
        assertRefused(try song(bpm: "6001"), "song: \(slow): bpm 6001 is out of range (1 to 6000)")
        let (doc, _) = try HydrogenSong.document(path: try song(bpm: "6000"), kits: HydrogenKits(roots: []))
        XCTAssertEqual(try reopened(doc).transport.beat, 0.01)
    }

    func testMoreSectionsThanASongHoldsAreRefused() throws {
        // Columns alternate between two regions, so no two neighbours merge into one section.
        let path = dir + "/s.h2song"
        let sequence = String(repeating: "<group><patternID>p</patternID></group><group/>", count: 5_001)
        try """
            <song><instrumentList><instrument><id>0</id><name>k</name><filename>k.wav</filename></instrument>\
            </instrumentList><patternList><pattern><name>p</name><noteList><note><position>0</position>\
            <instrument>0</instrument></note></noteList></pattern></patternList>
            <patternSequence>\(sequence)</patternSequence></song>
            """.write(toFile: path, atomically: true, encoding: .utf8)
        assertRefused(path, "song: \(path) makes 10,002 sections; a song holds at most 10,000")
    }

    func testABrokenEncodingIsOneErrorAndLibxml2PrintsNothing() throws {
        let path = dir + "/s.h2song"
        _ = FileManager.default.createFile(atPath: path, contents: Data(
            "<?xml version=\"1.0\" encoding=\"EUC-JP\"?>\n<song><bpm>".utf8 + [0xCE, 0x49, 0, 0] + "</bpm></song>\n".utf8))
        // What libxml2 would print lands in a pipe in place of standard error.
        var pipeEnds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&pipeEnds), 0)
        fflush(nil)
        let saved = dup(2)
        dup2(pipeEnds[1], 2)
        close(pipeEnds[1])
        let result = Result { try HydrogenSong.document(path: path, kits: HydrogenKits(roots: [])) }
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        _ = fcntl(pipeEnds[0], F_SETFL, O_NONBLOCK)
        var buffer = [UInt8](repeating: 0, count: 4096)
        let printed = read(pipeEnds[0], &buffer, buffer.count)
        close(pipeEnds[0])
        XCTAssertLessThanOrEqual(printed, 0, String(decoding: buffer.prefix(max(printed, 0)), as: UTF8.self))
        XCTAssertThrowsError(try result.get()) { error in
            XCTAssertTrue("\(error)".hasPrefix("song: \(path) is not readable XML ("), "\(error)")
            XCTAssertFalse("\(error)".contains("\n"))
        }
    }
}

@testable import TemperaCore
import TemperaTestSupport
import XCTest

/// One set of limits for the commands and the file reader: whatever a command would produce past them is one
/// error line naming the limit and what the command would have reached, checked before any work, and nothing
/// changes; and whatever a session holds, saved, reads back.
final class LimitsTests: XCTestCase {
    func testCountsAreWrittenWithThousandsSeparators() {
        XCTAssertEqual(Limits.count(0), "0")
        XCTAssertEqual(Limits.count(999), "999")
        XCTAssertEqual(Limits.count(1000), "1,000")
        XCTAssertEqual(Limits.count(600_600_000), "600,600,000")
        XCTAssertEqual(Limits.count(-1_000_000), "-1,000,000")
        XCTAssertEqual(Limits.product(Int.max / 2, 3), Int.max)
        XCTAssertEqual(Limits.sum(Int.max, 1), Int.max)
    }

    func testSubdivideRefusesWhatWouldPassOneCommandsLimitBeforeWorking() throws {
        try assertLastLineFails(["select all tracks=all", "subdivide 1000", "subdivide 10000"],
                                "subdivide would add 600,600,000 markers; one command adds at most 1,000,000")
    }

    func testGroupStampCountsEveryCopy() throws {
        try assertLastLineFails(["select all", "subdivide 1000", "group store 1", "group stamp 1 times=1000"],
                                "stamp group 1 x1000 would add 15,016,000 markers; one command adds at most 1,000,000")
    }

    func testMorphThenSubdivideIsRefused() throws {
        try assertLastLineFails(["temper morph times=10000 from=0 to=1", "subdivide 1000"],
                                "subdivide would add 49,999,000 markers; one command adds at most 1,000,000")
    }

    func testTemperStampCountsPairsTimesCycles() throws {
        try assertLastLineFails(["temper span=1/1000 top=128 bottom=128", "temper stamp times=10000"],
                                "temper stamp would add 1,280,000 markers; one command adds at most 1,000,000")
    }

    func testADocumentHoldsAtMostTheMarkerLimit() {
        XCTAssertNoThrow(try Limits.checkAdding(1_000_000, to: 9_000_000, "pulse"))
        XCTAssertEqual(message { try Limits.checkAdding(1_000_000, to: 9_000_001, "pulse") },
                       "pulse would make 10,000,001 markers; a document holds at most 10,000,000")
        XCTAssertEqual(message { try Limits.checkAdding(Int.max, to: 5, "pulse") },
                       "pulse would add 9,223,372,036,854,775,807 markers; one command adds at most 1,000,000")
    }

    func testPulsePastTheTimeLimitIsRefused() throws {
        try assertLastLineFails(["pulse period=1 count=3 start=10000000"],
                                "pulse would put its last marker at 10000002 s, past the time limit (10000000 s)")
        try assertLastLineFails(["pulse period=11 count=1000000"],
                                "pulse would put its last marker at 10999989 s, past the time limit (10000000 s)")
    }

    func testShiftAndScalePastTheTimeLimitAreRefused() throws {
        try assertLastLineFails(["select all tracks=all", "shift 10000000"],
                                "shift would move a marker to 10000000.125 s, past the time limit (10000000 s)")
        try assertLastLineFails(["select all tracks=all", "scale 1e7"],
                                "scale would move a marker to 11250000 s, past the time limit (10000000 s)")
        try assertLastLineFails(["select all tracks=all", "scale 1e300"],
                                "scale would move a marker to 1.25e+299 s, past the time limit (10000000 s)")
    }

    func testGroupStampPastTheTimeLimitIsRefused() throws {
        try assertLastLineFails(["select all", "group store 1", "cursor 9999999", "group stamp 1 times=10"],
                                "stamp group 1 x10 would put its last marker at 10000018.875 s, past the time limit (10000000 s)")
    }

    func testSubdivideCannotPassTheLimitButStampsFromTheDesignerAreChecked() throws {
        try assertLastLineFails(["temper span=1000000 top=7 bottom=5 s=100", "temper stamp"],
                                "temper stamp would put a marker at 11714285.714285713 s, past the time limit (10000000 s)")
        try assertLastLineFails(["temper span=1000000 top=7 bottom=5 s=100", "temper group 1"],
                                "temper group 1 would make a group span 23428571.428571425 s, past the time limit (10000000 s)")
    }

    func testSliderValuesAreBoundedInCommands() throws {
        XCTAssertEqual(message { _ = try CommandParser.parse("temper slider exp(709)") },
                       "slider must be from -100 to 100, not 8.218407461554972e+307")
        XCTAssertEqual(message { _ = try CommandParser.parse("temper slider -9223372036854775808") },
                       "slider must be from -100 to 100, not -9.223372036854776e+18")
        XCTAssertEqual(message { _ = try CommandParser.parse("temper morph times=1 from=1e308 to=0") },
                       "from must be from -100 to 100, not 1e+308")
        // A command built without the parser meets the same limit in the session.
        let s = Session(document: Document.newDocument())
        XCTAssertEqual(message { try s.run(.temperSlider(1e13)) }, "temper slider: the value must be from -100 to 100, not 10000000000000")
        XCTAssertEqual(message { try s.run(.temperMorph(times: 1, from: 1e308, to: 0)) },
                       "temper morph: from must be from -100 to 100, not 1e+308")
        XCTAssertNoThrow(try s.run(line: "temper slider 100"))
        XCTAssertEqual(s.document.designer.slider, 100)
    }

    func testTheReaderRefusesSlidersTheCommandsRefuse() {
        for bad in ["1e300", "1e13", "100.5", "-101"] {
            var text = DocumentFile.encode(Document.newDocument())
            text = text.replacingOccurrences(of: "\"slider\": 0.5", with: "\"slider\": \(bad)")
            XCTAssertThrowsError(try DocumentFile.decode(text), bad) { error in
                XCTAssertTrue((error as? CommandError)?.message.hasPrefix("slider must be from -100 to 100, not ") == true,
                              "\(error)")
            }
        }
    }

    func testTemperamentFormatNeverTraps() {
        XCTAssertEqual(Temperament.format(0.5), "0.5")
        XCTAssertEqual(Temperament.format(1e13), "10000000000000")
        XCTAssertEqual(Temperament.format(-9.3e18), "-9.3e+18")
        XCTAssertEqual(Temperament.format(.infinity), "inf")
    }

    func testAnAuditionOfBillionsOfCyclesIsNotBuilt() {
        var doc = Document.newDocument()
        doc.designer.span = 1e-9
        let played = doc.designer.audition(document: doc, track: 0)
        XCTAssertEqual(played, doc)
    }

    func testAHugeUnknownCommandIsRefusedFastAndEchoedShort() {
        let word = String(repeating: "z", count: 1_000_000)
        let start = threadCPUSeconds()
        XCTAssertEqual(message { _ = try CommandParser.parse(word) },
                       "unknown command '" + String(repeating: "z", count: 40) + "…'")
        XCTAssertLessThan(threadCPUSeconds() - start, 2)
    }

    func testEchoesEscapeControlCharacters() {
        XCTAssertEqual(Limits.echo("a\u{1b}[2Jb\u{85}c\u{9b}"), "a\\u{1b}[2Jb\\u{85}c\\u{9b}")
        XCTAssertEqual(message { _ = try CommandParser.parse("\u{9b}31m") }, "unknown command '\\u{9b}31m'")
    }

    func testPatternCodesSayHowManyClipsTheyWouldUnroll() {
        XCTAssertEqual(message { _ = try PatternParser.parse("(1 2)x600000") },
                       "the code unrolls to 1,200,000 clips; a code holds at most 1,000,000")
        XCTAssertEqual(message { _ = try PatternParser.parse(String(repeating: "(", count: 30) + "1x1000000"
                                                                  + String(repeating: ")x1000000", count: 30)) },
                       "the code unrolls to more than 9,223,372,036,854,775,807 clips; a code holds at most 1,000,000")
    }

    // MARK: - Every document a session holds can be saved and read back

    /// The command fuzz tests' seeded generator, so a failure repeats.
    typealias Generator = CommandFuzzTests.Generator

    static let times = ["0", "1/3", "2", "9999999.5", "10000000", "1e7-1e-3", "5e6", "1e-300", "1e300", "sqrt(2)"]
    static let factors = ["1e-300", "0.5", "2", "1000", "1e6", "1e300", "1/3"]
    static let sliders = ["0", "0.5", "1", "-0.5", "1.5", "100", "-100", "99.99", "1e300", "-1e13"]
    static let counts = ["1", "2", "3", "10", "100", "1000000"]

    /// One random command, biased towards extreme values.
    static func extremeCommand(_ g: inout Generator) -> String {
        let t = { (g: inout Generator) in g.pick(times) }
        switch g.next() % 24 {
        case 0: return "pulse period=\(g.pick(["1e-3", "1", "7", "1e6", "3333333.4"])) count=\(g.pick(["1", "3", "1000", "1000001"])) start=\(t(&g))"
        case 1: return "select all tracks=all"
        case 2: return "select \(g.pick(["left", "right", "all", "none"]))"
        case 3: return "shift \(g.pick(["-1e7", "1e7", "9999998", "1/7", "-2", "5e6"]))"
        case 4: return "scale \(g.pick(factors))"
        case 5: return "scale handle=\(g.pick(["1", "2"])) to=\(t(&g))"
        case 6: return "subdivide \(g.pick(counts))"
        case 7: return "group store \(g.pick(["1", "2"]))"
        case 8: return "group stamp \(g.pick(["1", "2"])) times=\(g.pick(counts))"
        case 9: return "temper span=\(g.pick(["1e-6", "1", "2", "1e6", "1e7"])) top=\(g.pick(["7", "128", "5:0,2"])) bottom=\(g.pick(["5", "3", "128"])) s=\(g.pick(sliders))"
        case 10: return "temper slider \(g.pick(sliders))"
        case 11: return "temper stamp times=\(g.pick(counts))"
        case 12: return "temper morph times=\(g.pick(counts)) from=\(g.pick(sliders)) to=\(g.pick(sliders))"
        case 13: return "temper group \(g.pick(["1", "2"]))"
        case 14: return "temper apply"
        case 15: return "marker add \(t(&g))"
        case 16: return "loop \(t(&g)) \(t(&g))"
        case 17: return "length \(t(&g))"
        case 18: return "cursor \(t(&g))"
        case 19: return g.pick(["undo", "redo", "undo 5"])
        case 20: return g.pick(["rotate", "reverse", "delete"])
        case 21: return "draw group \(g.pick(["1", "2"]))"
        case 22: return "fill \(g.pick(["1x3 -", "(1 2)x1000", "?"]))"
        default: return "temper preset \(g.pick(["swing", "tigrigna", "five-seven"]))"
        }
    }

    func testEveryDocumentReachedByExtremeCommandsReadsBack() throws {
        var g = Generator(state: 2026)
        var succeeded = 0, refused = 0
        for round in 0..<40 {
            let s = Session(document: Document.newDocument())
            for _ in 0..<12 {
                let line = Self.extremeCommand(&g)
                let revision = s.revision
                do {
                    try s.run(line: line)
                    succeeded += 1
                    if s.revision == revision { continue }
                } catch let error as CommandError {
                    refused += 1
                    XCTAssertFalse(error.message.contains("\n"), line)
                    continue
                }
                let text = DocumentFile.encode(s.document)
                do {
                    let back = try DocumentFile.decode(text)
                    XCTAssertEqual(DocumentFile.encode(back), text, "round \(round), after \(line)")
                } catch {
                    XCTFail("round \(round): after '\(line)' the saved document does not open: \(error)")
                    return
                }
            }
        }
        // Both kinds happen, so the test exercises the limits and the successes alike.
        XCTAssertGreaterThan(succeeded, 100)
        XCTAssertGreaterThan(refused, 50)
    }
}

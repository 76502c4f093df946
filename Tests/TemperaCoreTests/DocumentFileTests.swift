import XCTest
@testable import TemperaCore
#if canImport(Glibc)
import Glibc
#endif

final class DocumentFileTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/tempera-doc-XXXXXX".utf8CString)
        guard let p = mkdtemp(&template) else { throw XCTSkip("no temporary folder") }
        dir = String(cString: p)
    }

    override func tearDown() {
        _ = chmod(dir, 0o755)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] {
            unlink(dir + "/" + name)
        }
        rmdir(dir)
    }

    func decodeError(_ text: String) -> CommandError? {
        do {
            _ = try DocumentFile.decode(text)
            return nil
        } catch {
            return error as? CommandError
        }
    }

    /// A document that sets every field away from its default.
    func richDocument() -> Document {
        let kick = Track(name: "kick \"808\"\n", markers: MarkerList([
            Marker(id: 0, time: 0, amp: 1, content: .clip(1)),
            Marker(id: 1, time: 2.0.squareRoot() / 4, amp: 0.30000000000000004, content: .hold),
            Marker(id: 2, time: 1.0 / 3, amp: 0.1 + 0.2, content: .rest),
            Marker(id: 3, time: 1e-7, amp: 0, content: .random),
            Marker(id: 4, time: 12345.678, amp: 0.5, content: nil),
            Marker(id: 5, time: 0.75, amp: 0.8, content: .clip(16)),
        ]), gain: 0.7, mute: true, solo: false)
        let hat = Track(name: "hat ♪", markers: MarkerList(), gain: 1.25, mute: false, solo: true)
        var slots = Document.defaultKit
        slots[2] = ClipSlot(name: "bell", file: "sounds/bell.flac", note: 67, gain: 0.5, mode: .gate, attack: 3.5,
                            decay: 120, release: 45)
        slots[15] = ClipSlot()
        var groups = GroupBank()
        groups[4] = Group(elements: [GroupElement(offset: 0, trackOffset: 0, amp: 0.9, content: .clip(2)),
                                     GroupElement(offset: 1.0 / 7, trackOffset: 2, amp: 0.4, content: nil),
                                     GroupElement(offset: 0.5, trackOffset: 1, amp: 0.6, content: .hold)], span: 1)
        groups[16] = Group(elements: [GroupElement(offset: 0, amp: 0.8, content: .random)], span: 0.25)
        let designer = Temperament(span: 1.5, top: .init(division: 3, beats: [0, 2], amps: [1, 0.5, 0.25]),
                                   bottom: .init(division: 2, beats: [0, 1]),
                                   map: [.init(top: 0, bottom: 0), .init(top: 2, bottom: 1)], slider: -0.25)
        let transport = Transport(tempo: 1.5, volume: 0.65, loopStart: 0.5, loopEnd: 1.75, loopOn: false, length: 3)
        return Document(tracks: [kick, hat], slots: slots, groups: groups, designer: designer, transport: transport,
                        pattern: "(1 -)x2 \"?\"", seed: UInt64.max)
    }

    func testNewAndDemoDocumentsRoundTripExactly() throws {
        XCTAssertEqual(try DocumentFile.decode(DocumentFile.encode(Document.newDocument())), Document.newDocument())
        XCTAssertEqual(try DocumentFile.decode(DocumentFile.encode(Document.demo())), Document.demo())
    }

    func testEveryFieldRoundTripsBitForBit() throws {
        let doc = richDocument()
        let back = try DocumentFile.decode(DocumentFile.encode(doc))
        XCTAssertEqual(back, doc)
        XCTAssertEqual(back.tracks[0].markers[3].time.bitPattern, (2.0.squareRoot() / 4).bitPattern)
        XCTAssertEqual(back.seed, UInt64.max)
        XCTAssertEqual(back.slots[2].decay, 120)
        XCTAssertEqual(back.groups[4].elements[1].offset, 1.0 / 7)
    }

    func testThousandsOfRandomDoublesComeBackBitForBit() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
        var values: [Double] = [0, 1e-300, .leastNonzeroMagnitude, 9_999_999.999_999_998, 0.1, 1.0 / 3, 1_234_567.123_456_78,
                                9_007_199_254_740_992, 4.35, 2.675, 1e22, 1e23, 0.000_001_234_5]
        for _ in 0..<5_000 {
            values.append(Double(bitPattern: next() >> 2))  // 0 up to huge, every exponent
            values.append(Double(next() % 100_000_000) / 1_000_000)  // typical times
            values.append(Double(next() >> 11) / Double(1 << 53))  // 0..1 amplitudes
        }
        values = values.filter { $0.isFinite && $0 >= 0 && $0 <= CommandParser.maxTime }
        XCTAssertGreaterThan(values.count, 8_000)
        let doc = Document(tracks: [Track(name: "x", markers: MarkerList(values.enumerated().map {
            Marker(id: MarkerID($0.offset), time: $0.element, amp: 0.5)
        }))])
        let back = try DocumentFile.decode(DocumentFile.encode(doc))
        XCTAssertEqual(back.tracks[0].markers.map(\.time.bitPattern), doc.tracks[0].markers.map(\.time.bitPattern))
        let amps = Document(tracks: [Track(name: "y", markers: MarkerList(values.filter { $0 <= 1 }.enumerated().map {
            Marker(id: MarkerID($0.offset), time: Double($0.offset), amp: $0.element)
        }))])
        XCTAssertEqual(try DocumentFile.decode(DocumentFile.encode(amps)), amps)
    }

    func testMarkerIdsAreRenumberedInFileOrderOnLoad() throws {
        var doc = Document.newDocument()
        // Edits leave gaps and out-of-order ids.
        doc.tracks[0].markers.remove(id: doc.tracks[0].markers[3].id)
        doc.tracks[0].markers.insert(Marker(id: doc.makeMarkerID(), time: 0.0625, amp: 0.5, content: .clip(2)))
        let back = try DocumentFile.decode(DocumentFile.encode(doc))
        XCTAssertEqual(back.tracks[0].markers.map(\.id), (0..<16).map { MarkerID($0) })
        XCTAssertEqual(back.tracks[0].markers.map(\.time), doc.tracks[0].markers.map(\.time))
        XCTAssertEqual(back.tracks[0].markers.map(\.content), doc.tracks[0].markers.map(\.content))
        XCTAssertEqual(back.nextMarkerID, 64)
        XCTAssertEqual(DocumentFile.encode(back), DocumentFile.encode(doc))
    }

    func testTheFileIsReadableJSONWithOneMarkerALine() {
        let text = DocumentFile.encode(richDocument())
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines[0], "{")
        XCTAssertEqual(lines[1], "  \"tempera\": 2,")
        XCTAssertEqual(lines[2], "  \"seed\": 18446744073709551615,")
        XCTAssertEqual(lines[3], "  \"pattern\": \"(1 -)x2 \\\"?\\\"\",")
        XCTAssertEqual(lines[4], "  \"transport\": {\"tempo\": 1.5, \"volume\": 0.65, \"length\": 3, \"loop\": {\"on\": false, \"start\": 0.5, \"end\": 1.75}},")
        XCTAssertTrue(lines.contains("      {\"t\": 0, \"amp\": 1, \"clip\": 1},"))
        XCTAssertTrue(lines.contains("      {\"t\": 0.3535533905932738, \"amp\": 0.30000000000000004, \"clip\": \"+\"},"))
        XCTAssertTrue(lines.contains("      {\"t\": 1e-07, \"amp\": 0, \"clip\": \"?\"},"))
        XCTAssertTrue(lines.contains("      {\"t\": 12345.678, \"amp\": 0.5}"))
        XCTAssertTrue(lines.contains("    {\"name\": \"kick \\\"808\\\"\\n\", \"gain\": 0.7, \"mute\": true, \"solo\": false, \"markers\": ["))
        XCTAssertTrue(lines.contains("    {\"slot\": 3, \"name\": \"bell\", \"file\": \"sounds/bell.flac\", \"note\": 67, \"gain\": 0.5, \"mode\": \"gate\", \"attack\": 3.5, \"decay\": 120, \"release\": 45},"))
        XCTAssertTrue(lines.contains("    {\"name\": \"hat ♪\", \"gain\": 1.25, \"mute\": false, \"solo\": true, \"markers\": []}"))
    }

    func testAnEmptyDocumentRoundTrips() throws {
        let doc = Document(tracks: [])
        XCTAssertEqual(try DocumentFile.decode(DocumentFile.encode(doc)), doc)
    }

    func testAHandWrittenFileNeedsOnlyTheVersionAndTimes() throws {
        let doc = try DocumentFile.decode("""
            {"version": 1, "tracks": [{"name": "a", "markers": [{"t": 0.5, "clip": 2}, {"t": 0.25}]}]}
            """)
        XCTAssertEqual(doc.tracks[0].markers.map(\.time), [0.25, 0.5])
        XCTAssertEqual(doc.tracks[0].markers.map(\.amp), [0.8, 0.8])
        XCTAssertEqual(doc.tracks[0].markers.map(\.content), [nil, .clip(2)])
        XCTAssertEqual(doc.slots, Document.defaultKit)
        XCTAssertEqual(doc.transport, Transport())
    }

    func testAByteOrderMarkIsSkipped() throws {
        let doc = try DocumentFile.decode(bytes: [0xEF, 0xBB, 0xBF] + Array("{\"tempera\": 1, \"pattern\": \"1 2\"}".utf8))
        XCTAssertEqual(doc.pattern, "1 2")
        XCTAssertThrowsError(try DocumentFile.decode(bytes: [0xEF, 0xBB, 0xBF] + Array("{\"tempera\": x}".utf8))) { error in
            XCTAssertEqual(error as? CommandError, CommandError("expected a value, found 'x'", line: 1, column: 13))
        }
    }

    func testMalformedJSONNamesLineAndColumn() {
        XCTAssertEqual(decodeError("{\"tempera\": 1,\n  \"seed\": 3\n  \"pattern\": \"\"}"),
                       CommandError("expected ',' or '}', found '\"'", line: 3, column: 3))
        XCTAssertEqual(decodeError(""), CommandError("the file is empty", line: 1, column: 1))
        XCTAssertEqual(decodeError("{\"tempera\": 1, \"tracks\": [}"),
                       CommandError("expected a value, found '}'", line: 1, column: 27))
        XCTAssertEqual(decodeError("{\"tempera\": 01}"), CommandError("a number may not start with 0", line: 1, column: 13))
        XCTAssertEqual(decodeError("{\"tempera\": 1} x"), CommandError("unexpected text after the end of the document", line: 1, column: 16))
        XCTAssertEqual(decodeError("{\"tempera\": 1, \"pattern\": \"abc"),
                       CommandError("the string that starts here is never closed", line: 1, column: 27))
        XCTAssertEqual(decodeError("[1, 2"), CommandError("the file ends inside a list (missing ']')", line: 1, column: 6))
    }

    func testWrongTypesAndRangesAreRefused() {
        func doc(_ tracks: String) -> String { "{\"tempera\": 1,\n\"tracks\": [\n" + tracks + "\n]}" }
        XCTAssertEqual(decodeError(doc("{\"markers\": [{\"t\": 0, \"amp\": 3}]}")),
                       CommandError("amp must be from 0 to 1, not 3", line: 3, column: 30))
        XCTAssertEqual(decodeError(doc("{\"markers\": [{\"t\": \"0\"}]}")),
                       CommandError("time must be a number, found a string", line: 3, column: 20))
        XCTAssertEqual(decodeError(doc("{\"markers\": [{\"t\": 1, \"clip\": 17}]}")),
                       CommandError("clip must be 1-16, \"+\", \"-\" or \"?\", not 17", line: 3, column: 31))
        XCTAssertEqual(decodeError(doc("{\"markers\": [{\"t\": 1, \"ampp\": 1}]}")),
                       CommandError("unknown field 'ampp' in a marker (known: t, amp, clip, p, rep, repspan, from, to)", line: 3, column: 31))
        XCTAssertEqual(decodeError(doc("{\"mute\": 1}")),
                       CommandError("mute must be true or false, found a number", line: 3, column: 10))
        XCTAssertEqual(decodeError("{\"tempera\": 1, \"slots\": [{\"slot\": 17, \"file\": \"a.wav\"}]}"),
                       CommandError("slot must be a whole number from 1 to 16, not 17", line: 1, column: 35))
        XCTAssertEqual(decodeError("{\"tempera\": 1, \"transport\": {\"tempo\": 0}}"),
                       CommandError("tempo must be from 0.05 to 20, not 0", line: 1, column: 39))
        XCTAssertEqual(decodeError("{\"tempera\": 1, \"transport\": {\"loop\": {\"start\": 2, \"end\": 1}}}"),
                       CommandError("loop end must be after the loop start (2), not 1", line: 1, column: 58))
        XCTAssertEqual(decodeError("{\"tempera\": 1, \"designer\": {\"top\": {\"division\": 3, \"beats\": [0, 3]}}}"),
                       CommandError("beat must be a whole number from 0 to 2, not 3", line: 1, column: 65))
        XCTAssertEqual(decodeError("{\"tempera\": 1, \"seed\": -1}"),
                       CommandError("seed must be a whole number from 0 to 18446744073709551615", line: 1, column: 24))
    }

    func testMarkerListsAreCheckedWhereTheyAreWritten() {
        func doc(_ markers: String) -> String { "{\"tempera\": 1, \"tracks\": [{\"markers\": [\n" + markers + "\n]}]}" }
        XCTAssertEqual(decodeError(doc("{\"t\": 0} {\"t\": 1}")), CommandError("expected ',' or ']', found '{'", line: 2, column: 10))
        XCTAssertEqual(decodeError(doc("{\"t\": 0, \"t\": 1}")), CommandError("'t' is given twice in a marker", line: 2, column: 15))
        XCTAssertEqual(decodeError(doc("  {\"amp\": 0.5}")), CommandError("a marker has no time 't'", line: 2, column: 3))
        XCTAssertEqual(decodeError(doc("{\"t\": 0},\n[1]")), CommandError("a marker must be an object, found a list", line: 3, column: 1))
        XCTAssertEqual(decodeError(doc("{\"t\": 0 \"amp\": 1}")), CommandError("expected ',' or '}', found '\"'", line: 2, column: 9))
        XCTAssertEqual(decodeError(doc("{\"t\": -0.5}")), CommandError("time must be from 0 to 10000000, not -0.5", line: 2, column: 7))
        XCTAssertEqual(decodeError(doc("{\"t\": 1, \"clip\": \"x\"}")), CommandError("clip must be 1-16, \"+\", \"-\" or \"?\", not \"x\"", line: 2, column: 18))
        XCTAssertEqual(try DocumentFile.decode(doc("{\"t\": 1, \"clip\": null}")).tracks[0].markers.map(\.content), [nil])
    }

    func testErrorsQuotingTheFileStayOnOneLine() {
        XCTAssertEqual(decodeError("{\"tempera\": 1, \"a\\nb\": 1}"),
                       CommandError("unknown field 'a\\nb' in the document (known: tempera, version, seed, pattern, transport, time, song, designer, slots, groups, tracks)", line: 1, column: 24))
    }

    func testVersionIsRequiredAndANewerOneRefused() {
        XCTAssertEqual(decodeError("{\"tempera\": 9223372036854775808}"),
                       CommandError("the format version must be a whole number from 0, not 9.223372036854776e+18", line: 1, column: 13))
        XCTAssertEqual(decodeError("{\"tempera\": 3, \"tracks\": [], \"future\": true}"),
                       CommandError("this file was written by a newer tempera (format 3; this one reads up to 2)", line: 1, column: 13))
        XCTAssertEqual(decodeError("{\"tracks\": []}"),
                       CommandError("not a tempera document (no \"tempera\" version field)", line: 1, column: 1))
        XCTAssertEqual(decodeError("[]"), CommandError("a tempera document is a JSON object, found a list", line: 1, column: 1))
    }

    func testSaveThenLoadGivesTheDocumentBack() throws {
        let path = dir + "/song.tempera"
        try DocumentFile.save(richDocument(), to: path)
        XCTAssertEqual(try DocumentFile.load(path), richDocument())
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["song.tempera"])
    }

    func testSaveReplacesTheFileAndKeepsItsPermissions() throws {
        let path = dir + "/song.tempera"
        try DocumentFile.save(Document.newDocument(), to: path)
        XCTAssertEqual(chmod(path, 0o600), 0)
        try DocumentFile.save(Document.demo(), to: path)
        XCTAssertEqual(try DocumentFile.load(path), Document.demo())
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["song.tempera"])
    }

    func testSavingIntoAMissingFolderFailsClearly() {
        XCTAssertThrowsError(try DocumentFile.save(Document.newDocument(), to: dir + "/nowhere/song.tempera")) { error in
            XCTAssertEqual((error as? CommandError)?.message,
                           "cannot save '\(self.dir)/nowhere/song.tempera': the folder '\(self.dir)/nowhere' does not exist")
        }
    }

    func testSavingIntoAReadOnlyFolderLeavesTheOriginalUntouched() throws {
        if geteuid() == 0 {
            // Permission bits do not stop root; sysfs refuses new files to everyone.
            XCTAssertThrowsError(try DocumentFile.save(Document.newDocument(), to: "/sys/song.tempera")) { error in
                XCTAssertEqual((error as? CommandError)?.message,
                               "cannot save '/sys/song.tempera': the folder '/sys' is not writable (Permission denied)")
            }
            return
        }
        let path = dir + "/song.tempera"
        try DocumentFile.save(Document.newDocument(), to: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(chmod(dir, 0o555), 0)
        XCTAssertThrowsError(try DocumentFile.save(Document.demo(), to: path)) { error in
            XCTAssertEqual((error as? CommandError)?.message,
                           "cannot save '\(path)': the folder '\(self.dir)' is not writable (Permission denied)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
    }

    func testLoadingAMissingFileSaysSo() {
        XCTAssertThrowsError(try DocumentFile.load(dir + "/absent.tempera")) { error in
            XCTAssertEqual((error as? CommandError)?.message, "cannot open '\(self.dir)/absent.tempera': No such file or directory")
        }
    }

    func testDecimalDigitsBecomeTheNearestDoubleAsTheStandardLibraryReadsThem() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
        var converted = 0
        for _ in 0..<20_000 {
            var mantissa: UInt64 = 0
            for _ in 0..<(next() % 19 + 1) { mantissa = mantissa * 10 + next() % 10 }
            let power = Int(next() % 180) - 110
            guard let v = DecimalDouble.value(mantissa: mantissa, power: power) else { continue }
            converted += 1
            XCTAssertEqual(v.bitPattern, Double("\(mantissa)e\(power)")!.bitPattern, "\(mantissa)e\(power)")
        }
        XCTAssertGreaterThan(converted, 15_000)
        // Halfway between two Doubles: ties go to the even significand.
        XCTAssertEqual(DecimalDouble.value(mantissa: 9_007_199_254_740_993, power: 0), 9_007_199_254_740_992)
        XCTAssertEqual(DecimalDouble.value(mantissa: 9_007_199_254_740_995, power: 0), 9_007_199_254_740_996)
        XCTAssertEqual(DecimalDouble.value(mantissa: 30_000_000_000_000_004, power: -17), 0.1 + 0.2)
        XCTAssertEqual(DecimalDouble.value(mantissa: 9_999_999_999_999_998, power: -9), 9_999_999.999_999_998)
        // Outside the method's reach: the caller's general path.
        XCTAssertNil(DecimalDouble.value(mantissa: 5, power: -324))
        XCTAssertNil(DecimalDouble.value(mantissa: 17_976_931_348_623_157, power: 292))
    }

    func testLongNumbersInAFileReadExactly() throws {
        let values = ["0.30000000000000004", "9999999.999999998", "1234567.1234567891", "0.0001234567890123456",
                      "1e-07", "1.0000000000000002", "2.2250738585072014e-308", "5e-324", "4.9406564584124654e-324",
                      "123456789012345678901234e-30", "0.12345678901234567890123", "1E3", "1e+2", "0.5e1"]
        let markers = values.map { "{\"t\": 1, \"amp\": 1, \"clip\": 1}".replacingOccurrences(of: "\"t\": 1", with: "\"t\": \($0)") }
        let doc = try DocumentFile.decode("{\"tempera\": 1, \"tracks\": [{\"markers\": [" + markers.joined(separator: ", ") + "]}]}")
        XCTAssertEqual(doc.tracks[0].markers.map(\.time.bitPattern).sorted(),
                       values.map { Double($0)!.bitPattern }.sorted())
    }

    func testMarkerLinesSpellEveryKindOfDoubleAsNumberDoes() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 31)
        }
        var markers: [Marker] = []
        let special: [Double] = [0, -0.0, 1e15, -1e15, 999_999_999_999_999, 1e300, .leastNonzeroMagnitude, -2.2250738585072014e-308,
                                 .greatestFiniteMagnitude, -9_007_199_254_740_992, 0.1, 1.0 / 3]
        let contents: [Content?] = [nil, .clip(1), .clip(16), .hold, .rest, .random, .clip(Int.max)]
        for i in 0..<6_000 {
            var time = i < special.count ? special[i] : Double(bitPattern: next())
            if !time.isFinite { time = Double(next() % 100_000_000) / 1_000_000 }
            var amp = i % 3 == 0 ? Double(bitPattern: next()) : Double(next() >> 11) / Double(1 << 53)
            if !amp.isFinite { amp = 0.8 }
            if i % 5 == 0, let last = markers.last { amp = last.amp }
            markers.append(Marker(id: MarkerID(i), time: time, amp: amp, content: contents[i % contents.count]))
        }
        let doc = Document(tracks: [Track(name: "x", markers: MarkerList(markers))])
        var expected = ""
        for (i, m) in doc.tracks[0].markers.enumerated() {
            expected += "\n      {\"t\": " + DocumentFile.number(m.time) + ", \"amp\": " + DocumentFile.number(m.amp)
            if let c = m.content { expected += ", \"clip\": " + DocumentFile.content(c) }
            expected += i == markers.count - 1 ? "}\n    " : "},"
        }
        let text = DocumentFile.encode(doc)
        XCTAssertTrue(text.contains("\"markers\": [" + expected + "]}\n  ]\n}\n"))
        XCTAssertEqual(DocumentFile.encodeBytes(doc), Array(text.utf8))
    }

    func testALargeDocumentRoundTripsWithSortedListsAndIdsInFileOrder() throws {
        var state: UInt64 = 42
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        var tracks: [Track] = []
        for t in 0..<3 {
            var markers: [Marker] = []
            for i in 0..<4_000 {
                let content: Content? = i % 3 == 0 ? .clip(t + 1) : nil
                markers.append(Marker(id: MarkerID(t * 10_000 + i), time: next() * 1_000, amp: next(), content: content))
            }
            tracks.append(Track(name: "t\(t)", markers: MarkerList(markers)))
        }
        let doc = Document(tracks: tracks)
        let back = try DocumentFile.decode(DocumentFile.encode(doc))
        func times(_ d: Document) -> [[Double]] { d.tracks.map { $0.markers.map { $0.time } } }
        func amps(_ d: Document) -> [[Double]] { d.tracks.map { $0.markers.map { $0.amp } } }
        XCTAssertEqual(times(back), times(doc))
        XCTAssertEqual(amps(back), amps(doc))
        XCTAssertEqual(back.tracks.flatMap { $0.markers.map { $0.id } }, (0..<12_000).map { MarkerID($0) })
        XCTAssertEqual(back.nextMarkerID, 12_000)
        for track in back.tracks { XCTAssertNoThrow(try track.markers.checkInvariants()) }
        XCTAssertEqual(DocumentFile.encode(back), DocumentFile.encode(doc))
    }

    func testMarkerFieldsReadTheSameWrittenPlainlyOrWithEscapes() throws {
        func doc(_ markers: String) -> String { "{\"tempera\": 1, \"tracks\": [{\"markers\": [\n" + markers + "\n]}]}" }
        let escaped = try DocumentFile.decode(doc("{\"\\u0074\": 0.5, \"am\\u0070\": 0.25, \"cli\\u0070\": 3}"))
        let plain = try DocumentFile.decode(doc("{\"t\": 0.5, \"amp\": 0.25, \"clip\": 3}"))
        XCTAssertEqual(escaped, plain)
        XCTAssertEqual(plain.tracks[0].markers.first, Marker(id: 0, time: 0.5, amp: 0.25, content: .clip(3)))
        XCTAssertEqual(decodeError(doc("{\"t\": 1, \"\\u0074\": 2}")), CommandError("'t' is given twice in a marker", line: 2, column: 20))
        XCTAssertEqual(decodeError(doc("{\"\\u0074\": 1, \"t\": 2}")), CommandError("'t' is given twice in a marker", line: 2, column: 20))
        XCTAssertEqual(decodeError(doc("{\"t\": 1e400}")), CommandError("time is out of range", line: 2, column: 7))
        XCTAssertEqual(decodeError(doc("{\"t\": 5, \"amp\": -0.25}")), CommandError("amp must be from 0 to 1, not -0.25", line: 2, column: 17))
        XCTAssertEqual(decodeError(doc("{\"t\": 1, \"clip\": 2.5}")),
                       CommandError("clip must be 1-16, \"+\", \"-\" or \"?\", not 2.5", line: 2, column: 18))
        XCTAssertEqual(decodeError(doc("{\"t\": 1.}")), CommandError("expected digits after '.'", line: 2, column: 9))
        XCTAssertEqual(decodeError(doc("{\"t\": 2e}")), CommandError("expected digits in the exponent", line: 2, column: 9))
        XCTAssertEqual(decodeError(doc("{\"t\": -}")), CommandError("expected digits after '-'", line: 2, column: 8))
        XCTAssertEqual(decodeError(doc("{\"t\": 012}")), CommandError("a number may not start with 0", line: 2, column: 7))
    }
}

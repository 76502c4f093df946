import Foundation
import XCTest
@testable import TemperaCore

/// The `tempera` binary end to end, on temporary files: every failure is one stderr line and a non-zero exit,
/// and leaves the document on disk byte for byte as it was. `swift build` makes the binary before the tests run.
final class CommandLineTests: XCTestCase {
    var dir: URL!

    static let binary: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/debug/tempera")

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else {
            XCTFail("\(Self.binary.path) is missing: run `swift build` before the tests")
            throw XCTSkip("no binary")
        }
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("tempera-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    func write(_ name: String, _ text: String) throws -> String {
        try text.write(toFile: path(name), atomically: false, encoding: .utf8)
        return path(name)
    }

    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @discardableResult
    func tempera(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.currentDirectoryURL = dir
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    /// Runs a script that must fail, and checks the error line and that nothing on disk changed.
    func assertScriptFails(document: String, script: String, stderr expected: String,
                           file: StaticString = #filePath, line: UInt = #line) throws {
        let scriptPath = try write("script.txt", script)
        let before = bytes(document)
        let result = try tempera(["script", document, scriptPath])
        XCTAssertNotEqual(result.status, 0, file: file, line: line)
        XCTAssertEqual(result.err, expected + "\n", file: file, line: line)
        XCTAssertEqual(result.out, "", file: file, line: line)
        XCTAssertEqual(bytes(document), before, "the document changed", file: file, line: line)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(),
                       [URL(fileURLWithPath: document).lastPathComponent, "script.txt"].sorted(), file: file, line: line)
    }

    func savedDocument() throws -> String {
        let p = path("song.tempera")
        try DocumentFile.save(Document.newDocument(), to: p)
        return p
    }

    func testMalformedJSONIsOneLineAndChangesNothing() throws {
        let doc = try write("song.tempera", "{\"tempera\": 1,\n  \"tracks\": [}\n")
        try assertScriptFails(document: doc, script: "tempo 2\n", stderr: "\(doc):2:14: expected a value, found '}'")
        let events = try tempera(["events", doc])
        XCTAssertNotEqual(events.status, 0)
        XCTAssertEqual(events.err, "\(doc):2:14: expected a value, found '}'\n")
        XCTAssertEqual(events.out, "")
    }

    func testUnknownCommandNamesScriptLineAndColumn() throws {
        let doc = try savedDocument()
        let script = path("script.txt")
        try assertScriptFails(document: doc, script: "tempo 2\n\n  frobnicate 3\n",
                              stderr: "\(script):3:3: unknown command 'frobnicate'")
    }

    func testBadPatternCodeNamesItsColumn() throws {
        let doc = try savedDocument()
        let script = path("script.txt")
        try assertScriptFails(document: doc, script: "# fill\nfill \"1 2 17\"\n",
                              stderr: "\(script):2:11: unknown clip '17' (clips are 1-16)")
    }

    func testOutOfRangeSlotIsRefused() throws {
        let doc = try savedDocument()
        let script = path("script.txt")
        try assertScriptFails(document: doc, script: "slot 17 file=kit/kick.wav\n",
                              stderr: "\(script):1:6: slot must be a whole number from 1 to 16, not 17")
    }

    func testOutOfRangeValueInTheDocumentIsRefused() throws {
        let doc = try write("song.tempera", "{\"tempera\": 1, \"slots\": [{\"slot\": 17}]}\n")
        try assertScriptFails(document: doc, script: "tempo 2\n",
                              stderr: "\(doc):1:35: slot must be a whole number from 1 to 16, not 17")
    }

    func testACommandWithNothingSelectedFailsAndWritesNothing() throws {
        let doc = try savedDocument()
        let scriptPath = try write("script.txt", "tempo 2\nselect none\nshift 1/8\n")
        let before = bytes(doc)
        let result = try tempera(["script", doc, scriptPath, "-o", path("out.tempera")])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertEqual(result.err, "\(scriptPath):3:1: nothing is selected\n")
        XCTAssertEqual(bytes(doc), before)
        XCTAssertNil(bytes(path("out.tempera")))
    }

    func testSaveInAScriptWritesThatStateOnlyOnceTheWholeScriptSucceeded() throws {
        let doc = try savedDocument()
        let ok = try write("script.txt", "tempo 2\nsave \(path("copy.tempera"))\ntempo 3\n")
        let result = try tempera(["script", doc, ok])
        XCTAssertEqual(result.err, "")
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(try DocumentFile.load(path("copy.tempera")).transport.tempo, 2)
        XCTAssertEqual(try DocumentFile.load(doc).transport.tempo, 3)

        let failing = try write("script.txt", "tempo 4\nsave \(path("other.tempera"))\nselect none\nshift 1\n")
        let before = bytes(doc)
        XCTAssertNotEqual(try tempera(["script", doc, failing]).status, 0)
        XCTAssertNil(bytes(path("other.tempera")), "a failing script writes no copy either")
        XCTAssertEqual(bytes(doc), before)
    }

    func testAnalysePrintsOneJSONLinePerMarker() throws {
        let scriptPath = try write("script.txt", """
            track add swing
            marker add 1/3
            marker add 0.76 amp=0.5
            track add click
            bpm 60
            marker add 1.5

            """)
        let doc = path("a.tempera")
        XCTAssertEqual(try tempera(["script", doc, scriptPath]).err, "")
        // Strip the four tracks of a new document: keep the two added here.
        let result = try tempera(["analyse", doc])
        XCTAssertEqual(result.err, "")
        XCTAssertEqual(result.status, 0)
        let lines = result.out.split(separator: "\n").filter { $0.hasPrefix("{\"track\":5") || $0.hasPrefix("{\"track\":6") }
        // bpm 60 makes the tempo x0.5: deviations are playback milliseconds, twice the document's seconds.
        XCTAssertEqual(lines, [
            "{\"track\":5,\"t\":0.333333,\"bar\":1,\"beat\":1,\"n\":3,\"k\":2,\"dev_ms\":0.0,\"on_grid\":true}",
            "{\"track\":5,\"t\":0.760000,\"bar\":1,\"beat\":2,\"n\":2,\"k\":1,\"dev_ms\":20.0,\"on_grid\":false}",
            "{\"track\":6,\"t\":1.500000,\"bar\":1,\"beat\":4,\"n\":1,\"k\":0,\"dev_ms\":0.0,\"on_grid\":true}",
        ])
        XCTAssertEqual(result.out.split(separator: "\n").count, 64 + 3)
        let missing = try tempera(["analyse", path("nothing.tempera")])
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertEqual(missing.err.split(separator: "\n").count, 1)
    }

    func testHappyPathBuildsARhythmAndListsItsEvents() throws {
        let scriptPath = try write("script.txt", """
            # two tracks against each other, twice as fast
            length 1
            loop 0 1
            track 1
            cursor 0
            fill "1 - 2 +x2 3"
            track 2
            marker add sqrt(2)/4 amp=0.5
            cursor sqrt(2)/4
            fill "4"
            tempo 2

            """)
        let doc = path("new.tempera")
        let result = try tempera(["script", doc, scriptPath])
        XCTAssertEqual(result.err, "")
        XCTAssertEqual(result.status, 0)
        let saved = try DocumentFile.load(doc)
        XCTAssertEqual(saved.transport.tempo, 2)
        XCTAssertEqual(saved.pattern, "4")

        let events = try tempera(["events", doc, "--loops", "2"])
        XCTAssertEqual(events.err, "")
        XCTAssertEqual(events.status, 0)
        XCTAssertEqual(events.out.split(separator: "\n").map(String.init), [
            "{\"loop\":0,\"track\":1,\"clip\":1,\"amp\":0.9,\"time\":0,\"frame\":0}",
            "{\"loop\":0,\"track\":1,\"clip\":2,\"amp\":0.6,\"time\":0.125,\"frame\":6000}",
            "{\"loop\":0,\"track\":2,\"clip\":4,\"amp\":0.5,\"time\":0.1767766952966369,\"frame\":8485}",
            "{\"loop\":0,\"track\":1,\"clip\":3,\"amp\":0.6,\"time\":0.3125,\"frame\":15000}",
            "{\"loop\":1,\"track\":1,\"clip\":1,\"amp\":0.9,\"time\":0.5,\"frame\":24000}",
            "{\"loop\":1,\"track\":1,\"clip\":2,\"amp\":0.6,\"time\":0.625,\"frame\":30000}",
            "{\"loop\":1,\"track\":2,\"clip\":4,\"amp\":0.5,\"time\":0.6767766952966369,\"frame\":32485}",
            "{\"loop\":1,\"track\":1,\"clip\":3,\"amp\":0.6,\"time\":0.8125,\"frame\":39000}",
        ])

        let at44 = try tempera(["events", doc, "--sample-rate", "44100"])
        XCTAssertEqual(at44.out.split(separator: "\n").map { $0.split(separator: ",").last! }, [
            "\"frame\":0}", "\"frame\":5513}", "\"frame\":7796}", "\"frame\":13781}",
        ])
    }

    func testScriptWithOutputLeavesTheInputAlone() throws {
        let doc = try savedDocument()
        let before = bytes(doc)
        let scriptPath = try write("script.txt", "tempo 1.5\n")
        let result = try tempera(["script", doc, scriptPath, "-o", path("faster.tempera")])
        XCTAssertEqual(result.err, "")
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(bytes(doc), before)
        XCTAssertEqual(try DocumentFile.load(path("faster.tempera")).transport.tempo, 1.5)
    }

    func testEventsRefusesBadOptionsInOneLine() throws {
        let doc = try savedDocument()
        let result = try tempera(["events", doc, "--sample-rate", "0"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertEqual(result.err, "tempera: --sample-rate must be from 1 to 1536000, not 0\n")
        let missing = try tempera(["events", path("absent.tempera")])
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertEqual(missing.err, "tempera: cannot open '\(path("absent.tempera"))': No such file or directory\n")
    }

    func testEventsPastTheLastFrameAreRefusedNotTrapped() throws {
        // A loop of months at the slowest tempo once ran past the last frame in a million passes; such a loop is
        // now refused as the file is read (a loop is at most an hour, and a million passes of it fit).
        var doc = Document.newDocument()
        doc.transport = Transport(tempo: 0.05, volume: 0.8, loopStart: 0, loopEnd: 10_000_000, loopOn: true, length: 10_000_000)
        try DocumentFile.save(doc, to: path("long.tempera"))
        let result = try tempera(["events", path("long.tempera"), "--loops", "1000000"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertEqual(result.err, "\(path("long.tempera")):5:75: the loop must be at most 3600 s long, not 10000000 s\n")
        XCTAssertEqual(result.out, "")
    }

    func testAScriptCanComeFromStandardInput() throws {
        let doc = try savedDocument()
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["script", doc, "-"]
        let input = Pipe(), err = Pipe()
        process.standardInput = input
        process.standardError = err
        try process.run()
        input.fileHandleForWriting.write(Data("tempo 3/2\nvolume 0.5\nbogus\n".utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertNotEqual(process.terminationStatus, 0)
        XCTAssertEqual(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
                       "<stdin>:3:1: unknown command 'bogus'\n")
        XCTAssertEqual(try DocumentFile.load(doc), Document.newDocument())
    }
}

/// `tempera script` builds a song and `tempera events --song` prints it with its sections and passes.
extension CommandLineTests {
    func testAScriptBuildsASongAndEventsSongPrintsSectionAndPass() throws {
        let cli = self
        let script = try cli.write("song.txt", """
            track add beat
            marker add 0
            marker add sqrt(2)/4
            marker add 2.5
            length 4
            select all
            fill "1 10 2"
            section add 0 2 x2
            section add 2 3.5 x3 tempo=1.25
            section add 0 2 tempo=0.8
            song loop on
            """)
        let doc = cli.path("song.json")
        XCTAssertEqual(try cli.tempera(["script", doc, script]).status, 0)
        let lines = try cli.tempera(["events", doc, "--song", "--sample-rate", "44100", "--loops", "2"]).out
            .split(separator: "\n").filter { $0.contains("\"track\":5") }
        XCTAssertEqual(lines.count, 2 * (2 * 2 + 3 + 2))
        XCTAssertEqual(lines[4], #"{"loop":0,"section":2,"pass":0,"track":5,"clip":2,"amp":0.8,"time":4.4,"frame":194040}"#)
        XCTAssertEqual(lines[8], #"{"loop":0,"section":3,"pass":0,"track":5,"clip":10,"amp":0.8,"time":8.041941738241592,"frame":354650}"#)
        XCTAssertEqual(lines[17], #"{"loop":1,"section":3,"pass":0,"track":5,"clip":10,"amp":0.8,"time":18.14194173824159,"frame":800060}"#)
    }

    func testSongFlagsOnADocumentWithoutASongAreOneLine() throws {
        let cli = self
        let doc = cli.path("plain.json")
        XCTAssertEqual(try cli.tempera(["script", doc, try cli.write("s.txt", "tempo 1\n")]).status, 0)
        for args in [["events", doc, "--song"], ["render", doc, "--song", "-o", cli.path("x.wav")]] {
            let r = try cli.tempera(args)
            XCTAssertEqual(r.status, 1)
            XCTAssertEqual(r.err, "tempera: \(doc): the song has no section (add one with 'section add')\n")
        }
        let bad = try cli.tempera(["script", doc, try cli.write("b.txt", "section add 1 1\n")])
        XCTAssertEqual(bad.status, 1)
        XCTAssertEqual(bad.err, "\(cli.path("b.txt")):1:15: the region must end after it starts (1)\n")
    }
}

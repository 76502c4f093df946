import Foundation
import XCTest
@testable import TemperaCore

/// Inputs that used to trap or run for hours: each is now one error line, in well under two seconds of the
/// program's CPU time (measured as CPU so a loaded machine does not decide the outcome), and no file is written.
extension CommandLineTests {
    /// CPU seconds (user + system) used by reaped child processes so far.
    func childCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// `tempera script doc.json s.txt -o out.json` on a new document must fail with exactly `expected` (after
    /// `s.txt:LINE:COL: `), fast, creating neither file.
    func assertNewDocumentScriptFails(_ script: String, _ expected: String,
                                      file: StaticString = #filePath, line: UInt = #line) throws {
        let scriptPath = try write("s.txt", script)
        let cpu = childCPUSeconds()
        let result = try tempera(["script", path("doc.json"), scriptPath, "-o", path("out.json")])
        let used = childCPUSeconds() - cpu
        XCTAssertEqual(result.status, 1, file: file, line: line)
        XCTAssertEqual(result.err, "\(scriptPath):\(expected)\n", file: file, line: line)
        XCTAssertLessThan(used, 2, "CPU seconds", file: file, line: line)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["s.txt"], file: file, line: line)
    }

    func testSliderOverflowsAreOneLineNotATrap() throws {
        try assertNewDocumentScriptFails("temper slider exp(709)\n",
                                         "1:15: slider must be from -100 to 100, not 8.218407461554972e+307")
        try assertNewDocumentScriptFails("temper slider -9223372036854775808\n",
                                         "1:15: slider must be from -100 to 100, not -9.223372036854776e+18")
    }

    func testHundredsOfMillionsOfMarkersAreRefusedAtOnce() throws {
        try assertNewDocumentScriptFails("select all tracks=all\nsubdivide 1000\nsubdivide 10000\n",
                                         "3:1: subdivide would add 600,600,000 markers; one command adds at most 1,000,000")
        try assertNewDocumentScriptFails("select all\nsubdivide 1000\ngroup store 1\ngroup stamp 1 times=1000\n",
                                         "4:1: stamp group 1 x1000 would add 15,016,000 markers; one command adds at most 1,000,000")
        try assertNewDocumentScriptFails("temper morph times=10000 from=0 to=1\nsubdivide 1000\n",
                                         "2:1: subdivide would add 49,999,000 markers; one command adds at most 1,000,000")
        try assertNewDocumentScriptFails("select all\nsubdivide 1000\npulse period=7 count=1000001\n",
                                         "3:22: count must be a whole number from 1 to 1000000, not 1000001")
        try assertNewDocumentScriptFails("select all\nsubdivide 1000\npulse period=11 count=1000000\n",
                                         "3:1: pulse would put its last marker at 10999989 s, past the time limit (10000000 s)")
    }

    func testTimesPastTheLimitAreRefusedSoEverySavedFileOpens() throws {
        try assertNewDocumentScriptFails("pulse period=1 count=3 start=10000000\n",
                                         "1:1: pulse would put its last marker at 10000002 s, past the time limit (10000000 s)")
        try assertNewDocumentScriptFails("select all tracks=all\nshift 10000000\n",
                                         "2:1: shift would move a marker to 10000000.125 s, past the time limit (10000000 s)")
        try assertNewDocumentScriptFails("temper morph times=1 from=1e308 to=0\ngroup store 1\ngroup stamp 1 times=100\n",
                                         "1:27: from must be from -100 to 100, not 1e+308")
        try assertNewDocumentScriptFails("temper span=1000000 top=7 bottom=5 s=100\ntemper stamp\n",
                                         "2:1: temper stamp would put a marker at 11714285.714285713 s, past the time limit (10000000 s)")
    }

    func testTheReaderRefusesHugeSliders() throws {
        for bad in ["1e300", "1e13"] {
            let text = DocumentFile.encode(Document.newDocument()).replacingOccurrences(of: "\"slider\": 0.5",
                                                                                        with: "\"slider\": \(bad)")
            let doc = try write("song.tempera", text)
            // The place of the value: its line, and its column after `"slider": `.
            let lines = text.components(separatedBy: "\n")
            let row = lines.firstIndex { $0.contains("\"slider\": \(bad)") }!
            let column = lines[row].range(of: "\"slider\": ")!.upperBound.utf16Offset(in: lines[row]) + 1
            try assertScriptFails(document: doc, script: "tempo 2\n",
                                  stderr: "\(doc):\(row + 1):\(column): slider must be from -100 to 100, not \(bad == "1e300" ? "1e+300" : "10000000000000")")
        }
    }

    func testAMegabyteUnknownCommandIsCutAndQuick() throws {
        let cpu = childCPUSeconds()
        let doc = try savedDocument()
        try assertScriptFails(document: doc, script: String(repeating: "q", count: 1 << 20) + "\n",
                              stderr: path("script.txt") + ":1:1: unknown command '" + String(repeating: "q", count: 40) + "…'")
        XCTAssertLessThan(childCPUSeconds() - cpu, 2)
    }

    func testControlCharactersInFileStringsAreEscapedOnStderr() throws {
        let doc = try write("song.tempera", "{\"tempera\": 1, \"tracks\": [{\"name\": \"a\", \"mode\\u0085\\u001b[2J\": 1}]}\n")
        try assertScriptFails(document: doc, script: "tempo 2\n",
                              stderr: "\(doc):1:64: unknown field 'mode\\u{85}\\u{1b}[2J' in a track (known: name, gain, mute, solo, cycle, ratio, markers)")
    }
}

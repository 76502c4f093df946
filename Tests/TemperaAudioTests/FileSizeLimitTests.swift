import Foundation
import TemperaCore
import TemperaTestSupport
import XCTest

/// Under a file-size limit (`ulimit -f`) the kernel sends SIGXFSZ to a process writing past it; tempera ignores
/// the signal, so the write fails with "File too large", which `script` and `render` report in one line,
/// leaving the target as it was.
final class FileSizeLimitTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("ulimit") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Runs tempera under bash with `ulimit -f` at `kilobytes`.
    func limited(_ kilobytes: Int, _ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let exe = TestPaths.binary
        guard FileManager.default.isExecutableFile(atPath: exe) else { throw XCTSkip("build tempera first (swift build)") }
        let quoted = ([exe] + args).map { "'" + $0 + "'" }.joined(separator: " ")
        return Spawn.run("/bin/bash", ["-c", "ulimit -f \(kilobytes); exec \(quoted)"])
    }

    func testScriptPastTheLimitSaysSoAndLeavesTheFile() throws {
        let doc = dir + "/doc.tempera"
        let script = dir + "/grow.txt"
        try "track add a\npulse period=1/1000 count=20000\n".write(toFile: script, atomically: true, encoding: .utf8)
        XCTAssertEqual(Spawn.run(TestPaths.binary, ["script", doc, "/dev/null"]).status, 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: doc))
        let r = try limited(64, ["script", doc, script])
        XCTAssertEqual(r.status, 1, "not killed by SIGXFSZ (status 153)")
        XCTAssertEqual(r.stderr, "tempera: cannot save '\(doc)': writing failed: File too large\n")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: doc)), before, "the file is as it was")
    }

    func testRenderPastTheLimitSaysSoAndWritesNothing() throws {
        let doc = dir + "/doc.tempera"
        XCTAssertEqual(Spawn.run(TestPaths.binary, ["script", doc, "/dev/null"]).status, 0)
        let out = dir + "/out.wav"
        let r = try limited(64, ["render", doc, "-o", out, "--loops", "4"])
        XCTAssertEqual(r.status, 1, "not killed by SIGXFSZ (status 153)")
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("tempera: \(out): "), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }
}

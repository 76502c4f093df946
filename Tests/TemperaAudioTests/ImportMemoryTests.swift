import Foundation
import TemperaCore
import TemperaTestSupport
import XCTest

/// A long recording streams through the import in blocks: a 10-minute stereo file is imported (plain and with
/// `--split`) within 100 MB of peak resident memory, measured by GNU time.
final class ImportMemoryTests: XCTestCase {
    func testATenMinuteRecordingIsImportedWithinAHundredMegabytes() throws {
        let loop = "/usr/share/sonic-pi/samples/loop_amen.flac"
        guard FileManager.default.fileExists(atPath: loop), FileManager.default.fileExists(atPath: "/usr/bin/time") else {
            return XCTFail("a loop or GNU time is missing: install sonic-pi-samples and time (make test does)")
        }
        let dir = TestPaths.temporaryDirectory("import-memory")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The Amen break 343 times over, in stereo: 10 minutes 3 s, 106 MB of 16-bit samples.
        let long = dir + "/long.wav"
        let made = Spawn.run("/usr/bin/sox", [loop, "-c", "2", long, "repeat", "343"])
        XCTAssertEqual(made.status, 0, made.stderr)
        // The plain import and the split at once, each in its own process (its own peak), one a processor.
        let runs = [[], ["--split"]]
        let results = Results(runs.count)
        DispatchQueue.concurrentPerform(iterations: runs.count) { k in
            results.set(k, Spawn.run("/usr/bin/time", ["-v", TestPaths.binary, "import", long, "-o", dir + "/long\(k).json"] + runs[k]))
        }
        for (k, options) in runs.enumerated() {
            let r = try XCTUnwrap(results.get(k))
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.contains("onsets in 603.139 s"), r.stderr)
            let line = try XCTUnwrap(r.stderr.split(separator: "\n").first { $0.contains("Maximum resident set size (kbytes):") })
            let kilobytes = try XCTUnwrap(Int(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)))
            print("import \(options.joined()) of 10 minutes: peak \(kilobytes / 1024) MB")
            XCTAssertLessThan(kilobytes, 100 * 1024, "peak resident memory \(kilobytes) kB")
            // Every onset of the break, each time round (on one track, or over the split's three).
            let doc = try DocumentFile.load(dir + "/long\(k).json")
            XCTAssertGreaterThan(Set(doc.tracks.flatMap { $0.markers.map(\.time) }).count, 343 * 7)
        }
    }
}

/// What programs run at once ended with, each in its place.
private final class Results: @unchecked Sendable {
    typealias Result = (status: Int32, stdout: String, stderr: String)
    private let lock = NSLock()
    private var items: [Result?]
    init(_ count: Int) { items = Array(repeating: nil, count: count) }
    func set(_ k: Int, _ r: Result) { lock.withLock { items[k] = r } }
    func get(_ k: Int) -> Result? { lock.withLock { items[k] } }
}

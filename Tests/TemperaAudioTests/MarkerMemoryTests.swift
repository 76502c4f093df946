import Foundation
import TemperaCore
import TemperaTestSupport
import XCTest

/// What a marker costs in memory: at most 100 bytes held, whether a document was read from a file or built by a
/// command; and the program's peak with a million markers (built by a script, read and saved, listed as events).
final class MarkerMemoryTests: XCTestCase {
    /// Resident bytes of this process once the C allocator has handed back the memory it holds free
    /// (`malloc_trim`, looked up at run time: Swift's Glibc module leaves out malloc.h).
    static func resident() -> Int {
        if let symbol = dlsym(nil, "malloc_trim") {
            _ = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)(0)
        }
        let fields = ((try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? "").split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * sysconf(Int32(_SC_PAGESIZE)) : 0
    }

    /// A document of `count` markers over four tracks, one marker in eight with a probability or a ratchet.
    static func document(_ count: Int) -> Document {
        var doc = Document.newDocument()
        let perTrack = count / doc.tracks.count
        var id: MarkerID = 0
        for t in doc.tracks.indices {
            var markers: [Marker] = []
            markers.reserveCapacity(perTrack)
            for i in 0..<perTrack {
                var m = Marker(id: id, time: Double(i) * 0.01 + Double(t) * 0.001, amp: 0.5 + Double(i % 5) * 0.1,
                               content: i % 3 == 0 ? nil : .clip(1 + i % 16))
                if i % 8 == 0 { m.p = 0.5 }
                if i % 16 == 4 { m.rep = 3 }
                markers.append(m)
                id += 1
            }
            doc.tracks[t].markers = MarkerList(markers)
        }
        doc.nextMarkerID = id
        return doc
    }

    func testAMarkerReadFromAFileTakesAtMost100Bytes() throws {
        let count = 200_000
        let bytes = DocumentFile.encodeBytes(Self.document(count))
        let before = Self.resident()
        let doc = try DocumentFile.decode(bytes: bytes)
        let held = Self.resident() - before
        XCTAssertEqual(doc.tracks.reduce(0) { $0 + $1.markers.count }, count)
        let perMarker = Double(held) / Double(count)
        XCTAssertLessThanOrEqual(perMarker, 100, "a loaded marker holds \(perMarker) bytes")
        print("markers: a loaded marker holds \(Int(perMarker.rounded())) bytes")
        // The extras stay with the markers that have them.
        XCTAssertEqual(doc.tracks[0].markers[8].p, 0.5)
        XCTAssertEqual(doc.tracks[0].markers[4].rep, 3)
        XCTAssertEqual(doc.tracks[0].markers[1].p, 1)
        withExtendedLifetime(doc) {}
    }

    func testAMarkerBuiltByACommandTakesAtMost100BytesWithItsUndo() throws {
        let count = 200_000
        let before = Self.resident()
        let session = Session(document: Document(tracks: [Track(name: "a")]))
        _ = try session.run(.pulse(period: 0.01, count: count, start: 0, amp: nil))
        let held = Self.resident() - before
        XCTAssertEqual(session.markerCount, count)
        XCTAssertTrue(session.canUndo)
        let perMarker = Double(held) / Double(count)
        XCTAssertLessThanOrEqual(perMarker, 100, "a marker made by pulse holds \(perMarker) bytes, its undo step included")
        print("markers: a pulsed marker holds \(Int(perMarker.rounded())) bytes with its undo step")
        withExtendedLifetime(session) {}
    }

    /// Markers added one command at a time, each its own undo step: a marker and its step together stay small,
    /// and the history's count of its bytes is what the steps really take (its bound holds in memory).
    func testAMarkerAddedByItsOwnCommandIsASmallStepCountedAtWhatItTakes() throws {
        let count = 100_000
        let before = Self.resident()
        let session = Session(document: Document(tracks: [Track(name: "a")]))
        for i in 0..<count { try session.run(.markerAdd(time: Double(i) * 0.01, amp: nil)) }
        let held = Self.resident() - before
        XCTAssertEqual(session.markerCount, count)
        XCTAssertEqual(session.history.undoSteps.count, count, "one step a command")
        let perMarker = Double(held) / Double(count)
        XCTAssertLessThanOrEqual(perMarker, 200, "a marker added by its own command holds \(perMarker) bytes with its step")
        // What the document holds (at most 100 bytes a marker, as read from a file) beside what the history
        // counts: the rest of the memory held is not more than that.
        let counted = Double(session.history.bytes) / Double(count)
        XCTAssertLessThanOrEqual(perMarker, counted + 100, "the history counts \(counted) bytes a step")
        print("markers: a marker added by its own command holds \(Int(perMarker.rounded())) bytes with its undo step, "
            + "\(Int(counted.rounded())) counted")
        withExtendedLifetime(session) {}
    }

    /// Separate `marker add` lines: the script is read a line at a time and each line is one small undo step, so
    /// the program's peak stays within 40 MB and 260 bytes a line (288 MB for a million, within the 300 MB they may
    /// take); the last steps still undo. 200,000 lines in the suite (half a minute in a debug build; the peak
    /// measured 69 MB there, 228 MB for a million); `TEMPERA_SCRIPT_LINES=1000000` for the million (five minutes).
    func testMarkersAddedOneALineByScriptStayWithinTheirPeak() throws {
        guard FileManager.default.isExecutableFile(atPath: TestPaths.binary) else { throw XCTSkip("build tempera first") }
        let lines = Int(ProcessInfo.processInfo.environment["TEMPERA_SCRIPT_LINES"] ?? "") ?? 200_000
        let dir = TestPaths.temporaryDirectory("markerlines")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let script = dir + "/lines.txt", doc = dir + "/lines.tempera"
        try (MarkerMemoryTests.markerLines(lines) + "undo 3\n").write(toFile: script, atomically: false, encoding: .utf8)
        let mb = 1 << 20
        let built = Spawn.measured(TestPaths.binary, ["script", doc, script])
        XCTAssertEqual(built.status, 0, built.stderr)
        XCTAssertLessThanOrEqual(built.peakBytes, 40 * mb + 260 * lines, "building \(lines) markers a line at a time by script")
        let saved = try DocumentFile.decode(bytes: [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: doc))))
        XCTAssertEqual(saved.tracks.last?.markers.count, lines - 3, "each line one step: three undone")
        print("markers: \(lines) marker add lines \(built.peakBytes / mb) MB, \(Int(built.seconds)) s")
    }

    /// A script that adds an empty track and then `count` markers on it, one `marker add` line each, 1 ms apart.
    static func markerLines(_ count: Int) -> String {
        var text = "track add\n"
        text.reserveCapacity(20 * count)
        for i in 0..<count { text += "marker add \(Double(i) / 1000 + 0.0005)\n" }
        return text
    }

    /// The built program with a million markers: a script that pulses them, a load and save, the events listed.
    func testAMillionMarkersStayWithinTheirPeaks() throws {
        guard FileManager.default.isExecutableFile(atPath: TestPaths.binary) else { throw XCTSkip("build tempera first") }
        let dir = TestPaths.temporaryDirectory("markermemory")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let script = dir + "/pulse.txt", empty = dir + "/empty.txt", doc = dir + "/million.tempera"
        try "track add\npulse period=0.001 count=1000000\n".write(toFile: script, atomically: false, encoding: .utf8)
        try "# nothing\n".write(toFile: empty, atomically: false, encoding: .utf8)
        let mb = 1 << 20
        let built = Spawn.measured(TestPaths.binary, ["script", doc, script])
        XCTAssertEqual(built.status, 0, built.stderr)
        XCTAssertLessThanOrEqual(built.peakBytes, 300 * mb, "building a million markers by script")
        let saved = Spawn.measured(TestPaths.binary, ["script", doc, empty, "-o", dir + "/copy.tempera"])
        XCTAssertEqual(saved.status, 0, saved.stderr)
        XCTAssertLessThanOrEqual(saved.peakBytes, 150 * mb, "loading and saving a million markers")
        XCTAssertEqual(FileManager.default.contents(atPath: dir + "/copy.tempera"), FileManager.default.contents(atPath: doc))
        print("markers: build \(built.peakBytes / mb) MB, load and save \(saved.peakBytes / mb) MB")
    }
}

import Foundation
import TemperaTestSupport
import XCTest
@testable import TemperaCore

/// Values that were accepted yet made unbounded work: a cycle of a nanosecond, a loop of months, a string of a
/// gigabyte, thousands of tempo points one command at a time. Each is refused in one line before any work, or
/// now costs what its output costs.
final class BoundedWorkTests: XCTestCase {
    // MARK: Cycles

    func testACycleOfANanosecondIsRefused() throws {
        try assertLastLineFails(["track 1 cycle 0 1e-9"],
                                "cycle of track 1 would make 1,000,000,000 events a second of playing (track 1's cycle "
                                    + "of 1e-09 s); the tracks' own cycles make at most 100,000")
        // Its ratio counts too: 1/100 s is 100 events a second, at x64 6,400; but 1e-5 s at x64 is too many.
        let s = Session(document: Document.newDocument())
        try s.run(line: "track 1 cycle 0 1/100")
        try s.run(line: "track 1 ratio 64")
        try s.run(line: "track 2 cycle 0 1e-4")
        XCTAssertEqual(message { try s.run(line: "track 2 ratio 64") },
                       "ratio of track 2 would make 646,400 events a second of playing (track 2's cycle of 0.0001 s); "
                           + "the tracks' own cycles make at most 100,000")
    }

    func testMarkersAddedIntoACycleCountAgainstTheSameBound() throws {
        // One marker in a cycle of 1/100 s: 100 a second; a pulse of 1,000 more into it makes 100,100.
        try assertLastLineFails(["track 1 cycle 0 1/100", "pulse period=1e-5 count=1000 start=0"],
                                "pulse would make 100,100 events a second of playing (track 1's cycle of 0.01 s); "
                                    + "the tracks' own cycles make at most 100,000")
    }

    func testADocumentWhoseCyclesMakeTooManyEventsDoesNotLoad() throws {
        var doc = Document.newDocument()
        doc.tracks[0].cycle = Track.Cycle(start: 0, end: 1e-9)
        let text = DocumentFile.encode(doc)
        let error = try XCTUnwrap(message { _ = try DocumentFile.decode(text) })
        XCTAssertTrue(error.hasPrefix("the tracks would make 1,000,000,000 events a second of playing"), error)
        XCTAssertFalse(error.contains("\n"))
    }

    func testTheEventsOfABoundedCycleAreAsManyAsItsRateSays() {
        // The largest cycle rate allowed, played for a second: about 100,000 events, listed in well under a second.
        var doc = Document.newDocument()
        doc.tracks[0].markers = MarkerList([Marker(id: 100, time: 0, amp: 0.9, content: .clip(1))])
        doc.tracks[0].cycle = Track.Cycle(start: 0, end: 1e-5)
        XCTAssertNil(Limits.cycleProblem(doc.tracks))
        doc.transport.loopStart = 0
        doc.transport.loopEnd = 1
        let schedule = Schedule(document: doc, sampleRate: 48_000)
        let started = threadCPUSeconds()
        let events = CycleTrack.merged(schedule.events, schedule.cycles, pass: 0, span: schedule.span)
        XCTAssertLessThan(threadCPUSeconds() - started, 2)
        XCTAssertEqual(events.filter { $0.track == 0 }.count, 100_000, accuracy: 1)
    }

    // MARK: Loops

    func testALoopIsAtMostAnHourAndAtLeastTenMicroseconds() throws {
        try assertLastLineFails(["length 10000000", "loop 0 10000000"],
                                "the loop must be at most 3600 s long, not 10000000 s")
        try assertLastLineFails(["loop 0 1e-9"], "the loop must be at least 1e-05 s long, not 1e-09 s")
        let s = Session(document: Document.newDocument())
        try s.run(line: "length 7200")
        try s.run(line: "loop 100 3700")
        XCTAssertEqual(s.document.transport.loopEnd, 3700)
    }

    func testALongTimelineKeepsItsLoopWithinAnHour() throws {
        let s = Session(document: Document.newDocument())
        XCTAssertEqual(try s.run(line: "length 100"), "length 100 s: the loop was the whole timeline and follows it, "
                           + "now 0-100 s (loop A B sets another)")
        XCTAssertEqual(try s.run(line: "length 10000"), "length 10000 s: the loop stays 0-100 s, as a loop is at most 3600 s long")
        XCTAssertEqual(s.document.transport.loopEnd, 100)
        XCTAssertEqual(s.document.transport.length, 10000)
    }

    func testAFileWithALoopOfMonthsDoesNotLoad() {
        var doc = Document.newDocument()
        doc.transport.length = 10_000_000
        doc.transport.loopEnd = 10_000_000
        let error = message { _ = try DocumentFile.decode(DocumentFile.encode(doc)) }
        XCTAssertEqual(error?.hasSuffix("the loop must be at most 3600 s long, not 10000000 s"), true, error ?? "loaded")
    }

    // MARK: Strings and files

    func testAStringPastTheLimitIsRefusedOnceThatMuchIsSeen() throws {
        var doc = Document.newDocument()
        doc.tracks[0].name = String(repeating: "a", count: Limits.maxStringBytes)
        XCTAssertEqual(try DocumentFile.decode(DocumentFile.encode(doc)).tracks[0].name.utf8.count, Limits.maxStringBytes)
        doc.tracks[0].name += "a"
        let error = try XCTUnwrap(message { _ = try DocumentFile.decode(DocumentFile.encode(doc)) })
        XCTAssertEqual(error, "the string that starts here is longer than 1,048,576 bytes, the most a string may hold")
        // With escapes (the slow path) too.
        doc.tracks[0].name = "\"" + String(repeating: "a", count: Limits.maxStringBytes)
        XCTAssertEqual(message { _ = try DocumentFile.decode(DocumentFile.encode(doc)) }, error)
    }

    func testAFileLargerThanAnyDocumentIsRefusedWithoutReadingIt() throws {
        let dir = NSTemporaryDirectory() + "bounded-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/huge.tempera"
        // A sparse file one byte past the limit: reading it would take a gigabyte and seconds.
        let fd = open(path, O_WRONLY | O_CREAT, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        XCTAssertEqual(ftruncate(fd, off_t(Limits.maxFileBytes + 1)), 0)
        close(fd)
        let started = threadCPUSeconds()
        XCTAssertEqual(message { _ = try DocumentFile.load(path) },
                       "cannot read '\(path)': larger than 1,073,741,824 bytes, the most tempera reads")
        XCTAssertLessThan(threadCPUSeconds() - started, 0.5)
        XCTAssertEqual(try DocumentFile.readHead(path, count: 8), [UInt8](repeating: 0, count: 8))
    }
}

import Foundation
import Synchronization
import TemperaApp
import XCTest

/// The lines `tempera play --pads` reads: `<seconds> <slot> <velocity>`, comments and blanks skipped, a bad line
/// named and skipped.
final class PadFeedTests: XCTestCase {
    typealias Event = PadFeed.Event

    func testALineIsAnEventAndCommentsAndBlankLinesAreNothing() {
        XCTAssertEqual(try PadFeed.parse("0.25 3 0.8")?.get(), Event(seconds: 0.25, slot: 3, velocity: 0.8))
        XCTAssertEqual(try PadFeed.parse("\t1\t16  1 # the last slot")?.get(), Event(seconds: 1, slot: 16, velocity: 1))
        XCTAssertNil(PadFeed.parse("   "))
        XCTAssertNil(PadFeed.parse("# 0.25 3 0.8"))
    }

    func testEachBadLineSaysWhatWasExpected() {
        func why(_ line: String) -> String? {
            if case .failure(let bad)? = PadFeed.parse(line) { return bad.message }
            return nil
        }
        XCTAssertEqual(why("0.25 3"), "expected '<seconds> <slot> <velocity>', not '0.25 3'")
        XCTAssertEqual(why("-1 3 0.5"), "seconds must be a number >= 0, not '-1'")
        XCTAssertEqual(why("inf 3 0.5"), "seconds must be a number >= 0, not 'inf'")
        XCTAssertEqual(why("0 17 0.5"), "slot must be 1-16, not '17'")
        XCTAssertEqual(why("0 1 1.5"), "velocity must be from 0 to 1, not '1.5'")
    }

    func testEventsAreTakenEarliestFirstWhenTheirTimeHasCome() {
        let feed = PadFeed()
        var said: [String] = []
        feed.add("0.5 2 1", number: 1, warn: { said.append($0) })
        feed.add("0.1 1 1", number: 2, warn: { said.append($0) })
        feed.add("nonsense", number: 3, warn: { said.append($0) })
        XCTAssertEqual(said, ["stdin line 3: expected '<seconds> <slot> <velocity>', not 'nonsense'"])
        XCTAssertEqual(feed.errors, 1)
        XCTAssertEqual(feed.nextTime, 0.1)
        XCTAssertNil(feed.take(dueBy: 0.09))
        XCTAssertEqual(feed.take(dueBy: 0.7)?.slot, 1)
        XCTAssertEqual(feed.take(dueBy: 0.7)?.slot, 2)
        XCTAssertNil(feed.take(dueBy: 10))
        XCTAssertFalse(feed.finished, "the input is still open")
        feed.close()
        XCTAssertTrue(feed.finished)
    }

    func testTheReadingThreadReadsToTheEnd() {
        let feed = PadFeed()
        let lines = LineSource(["0.2 4 0.5", "", "0.1 3 1"])
        feed.start(nextLine: { lines.next() }, warn: { _ in })
        let deadline = Date().addingTimeInterval(5)
        while !(feed.nextTime == 0.1 && feed.errors == 0), Date() < deadline { usleep(1_000) }
        XCTAssertEqual(feed.take(dueBy: 1), Event(seconds: 0.1, slot: 3, velocity: 1))
        XCTAssertEqual(feed.take(dueBy: 1), Event(seconds: 0.2, slot: 4, velocity: 0.5))
        while !feed.finished, Date() < deadline { usleep(1_000) }
        XCTAssertTrue(feed.finished)
    }
}

/// Lines handed out one at a time, to any thread.
final class LineSource: Sendable {
    private let lines: Mutex<[String]>
    init(_ lines: [String]) { self.lines = Mutex(lines) }
    func next() -> String? { lines.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
}

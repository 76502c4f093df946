import XCTest
@testable import TemperaCore

/// The list an undo history keeps its steps in: the same elements, in the same order, as an array given the same
/// appends, pops and drops from the front, across its chunks' edges; and what it drops is let go at once.
final class ChunkedListTests: XCTestCase {
    func testItHoldsWhatAnArrayHoldsThroughAppendsPopsAndDropsAcrossChunks() {
        var list = ChunkedList<Int>(), model: [Int] = []
        var random = SeededRandom(seed: 0x11575)
        var next = 0
        for round in 0..<4_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6:
                for _ in 0..<Int.random(in: 1...700, using: &random) {
                    list.append(next)
                    model.append(next)
                    next += 1
                }
            case 6..<8:
                for _ in 0..<Int.random(in: 1...300, using: &random) { XCTAssertEqual(list.popLast(), model.popLast()) }
            default:
                let k = Int.random(in: 0...min(model.count, 2_500), using: &random)
                list.removeFirst(k)
                model.removeFirst(k)
            }
            XCTAssertEqual(list.count, model.count, "round \(round)")
            XCTAssertEqual(list.first, model.first)
            XCTAssertEqual(list.last, model.last)
        }
        XCTAssertEqual(Array(list), model)
        XCTAssertEqual(Array(list[..<min(10, list.count)]), Array(model.prefix(10)))
    }

    func testWhatItDropsIsLetGo() {
        final class Token {}
        weak var first: Token?, last: Token?
        var list = ChunkedList<Token>()
        do {
            let a = Token(), b = Token()
            first = a
            last = b
            list.append(a)
            for _ in 0..<2_000 { list.append(Token()) }
            list.append(b)
        }
        list.removeFirst(1)
        XCTAssertNil(first, "dropped from the front")
        XCTAssertNotNil(last)
        XCTAssertNotNil(list.popLast())
        XCTAssertNil(last, "popped from the end")
        XCTAssertEqual(list.count, 2_000)
        list.removeAll()
        XCTAssertTrue(list.isEmpty)
        XCTAssertNil(list.popLast())
    }

    /// An element set by its index is read back there, after the oldest were dropped too.
    func testAnElementSetByItsIndexReadsBack() {
        var list = ChunkedList(0..<3_000)
        list.removeFirst(1_500)
        list[10] = -1
        list[1_499] = -2
        XCTAssertEqual(list[10], -1)
        XCTAssertEqual(list[1_499], -2)
        XCTAssertEqual(Array(list.prefix(12)), Array(1_500..<1_510) + [-1, 1_511])
    }
}

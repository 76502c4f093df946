import XCTest
@testable import TemperaCore

/// Whatever a user types or a file holds, reading it either succeeds or gives one error line with a place
/// inside the input: never a trap. Random inputs come from a fixed seed, so a failure repeats.
final class CommandFuzzTests: XCTestCase {
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 17
        }
        mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }
    }

    static let pieces = ["track", "add", "loop", "tempo", "slot", "file=", "note=", "fill", "select", "pattern",
                         "temper", "span=", "top=", "7:", "euclid(", "map=", "0-1", ",", "x", "x0", "x3", "(", ")",
                         "\"", "\\", "#", "=", " ", " ", " ", "1", "17", "0.5", "-", "+", "?", "/", "*", "^", "sqrt(",
                         "pi", "e", "1e", "9999999999999999999999", "9223372036854775808", "add", "tracks=all", "handle=", "to=", "\t", "é",
                         "\u{FEFF}", "scale", "group", "stamp", "times=", "undo", "mode", "clip", "on", "off"]

    func testRandomCommandLinesNeverTrapAndErrorsPointInsideTheLine() {
        var g = Generator(state: 42)
        for _ in 0..<5_000 {
            let line = (0..<Int(g.next() % 12)).map { _ in g.pick(Self.pieces) }.joined()
            let length = line.unicodeScalars.count
            do {
                if let command = try CommandParser.parse(line) {
                    // Whatever reads, prints back to itself.
                    XCTAssertEqual(try CommandParser.parse(command.text), command, line)
                }
            } catch let error as CommandError {
                XCTAssertNotNil(error.column, line)
                XCTAssertTrue((1...(length + 2)).contains(error.column ?? 0), "\(line): \(error)")
                XCTAssertFalse(error.message.contains("\n"), line)
            } catch {
                XCTFail("\(line): \(error)")
            }
        }
    }

    func testDeepNestingIsRefusedNotOverflowed() {
        let parens = String(repeating: "(", count: 10_000) + "1" + String(repeating: ")", count: 10_000)
        XCTAssertThrowsError(try Expression.evaluate(parens))
        XCTAssertThrowsError(try Expression.evaluate(String(repeating: "-", count: 100_000) + "1"))
        XCTAssertThrowsError(try PatternParser.parse(parens))
        XCTAssertEqual(try PatternParser.parse(String(repeating: "(", count: 32) + "1" + String(repeating: ")", count: 32)).symbols,
                       [.clip(1)])
        XCTAssertThrowsError(try PatternParser.parse(String(repeating: "(", count: 33) + "1" + String(repeating: ")", count: 33))) {
            XCTAssertEqual($0 as? CommandError, CommandError("parentheses nested more than 32 deep", column: 33))
        }
    }

    func testDamagedFilesNeverTrap() throws {
        let good = Array(DocumentFile.encode(Document.demo()).utf8)
        var g = Generator(state: 7)
        for _ in 0..<400 {
            var bytes = good
            for _ in 0..<(1 + Int(g.next() % 3)) {
                let at = Int(g.next() % UInt64(bytes.count))
                switch g.next() % 3 {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(g.pick(Array("{}[],:\"0123456789-.etrufanl \n\\".utf8)), at: at)
                default: bytes[at] = g.pick(Array("{}[],:\"019-.x \n".utf8))
                }
            }
            do {
                _ = try DocumentFile.decode(bytes: bytes)
            } catch let error as CommandError {
                XCTAssertGreaterThanOrEqual(error.line ?? 0, 1)
                XCTAssertFalse(error.message.unicodeScalars.contains { $0.value < 0x20 }, error.message)
            }
        }
    }
}

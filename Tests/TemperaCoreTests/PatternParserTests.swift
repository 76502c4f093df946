import XCTest
@testable import TemperaCore

final class PatternParserTests: XCTestCase {
    func symbols(_ text: String) throws -> [PatternCode.Symbol] { try PatternParser.parse(text).symbols }

    func error(_ text: String) -> CommandError? {
        do {
            _ = try PatternParser.parse(text)
            return nil
        } catch {
            return error as? CommandError
        }
    }

    func testClipsRestsHoldsAndRandom() throws {
        XCTAssertEqual(try symbols("1 - + ? 16"), [.clip(1), .rest, .hold, .random, .clip(16)])
    }

    func testRepetitionFollowsTheClip() throws {
        XCTAssertEqual(try symbols("1x2 - 3 +x2"), [.clip(1), .clip(1), .rest, .clip(3), .hold, .hold])
        XCTAssertEqual(try symbols("-x3"), [.rest, .rest, .rest])
        XCTAssertEqual(try symbols("?x2"), [.random, .random])
    }

    func testParenthesesRepeatASequence() throws {
        XCTAssertEqual(try symbols("(1 - 2)x3"), [.clip(1), .rest, .clip(2), .clip(1), .rest, .clip(2), .clip(1), .rest, .clip(2)])
        XCTAssertEqual(try symbols("(1 2) x2"), [.clip(1), .clip(2), .clip(1), .clip(2)])
        XCTAssertEqual(try symbols("(1)"), [.clip(1)])
    }

    func testParenthesesNest() throws {
        let code = try PatternParser.parse("((1 2)x2 -)x2 3")
        XCTAssertEqual(code.items, [
            .sequence([.sequence([.symbol(.clip(1), times: 1), .symbol(.clip(2), times: 1)], times: 2),
                       .symbol(.rest, times: 1)], times: 2),
            .symbol(.clip(3), times: 1),
        ])
        XCTAssertEqual(code.symbols.count, 11)
    }

    func testPunctuationAndClipNumbersNeedNoSpacesBetweenThem() throws {
        XCTAssertEqual(try symbols(".2.2"), [.skip, .clip(2), .skip, .clip(2)])
        XCTAssertEqual(try symbols("1x3-"), [.clip(1), .clip(1), .clip(1), .rest])
        XCTAssertEqual(try symbols("12+?"), [.clip(12), .hold, .random])
        XCTAssertEqual(try symbols("(1..)x2-x2"), [.clip(1), .skip, .skip, .clip(1), .skip, .skip, .rest, .rest])
        XCTAssertEqual(error("1a"), CommandError("unknown clip '1a' (1-16, -, +, ? or .)", column: 1))
        XCTAssertEqual(error(".2.17"), CommandError("unknown clip '17' (clips are 1-16)", column: 4))
        XCTAssertEqual(error("1x-"), CommandError("'x' needs a count, as in x3", column: 2))
    }

    func testSourceIsKeptAsTyped() throws {
        XCTAssertEqual(try PatternParser.parse("  1x2   (3 -)x2 ").source, "  1x2   (3 -)x2 ")
    }

    func testUnknownClipNamesItsColumn() {
        XCTAssertEqual(error("1 2 3 17"), CommandError("unknown clip '17' (clips are 1-16)", column: 7))
        XCTAssertEqual(error("00"), CommandError("unknown clip '00' (clips are 1-16)", column: 1))
        XCTAssertEqual(try PatternParser.parse("0 @").symbols, [.clip(10), .clip(12)], "the keys' spelling")
        XCTAssertEqual(error("1 a"), CommandError("unknown clip 'a' (1-16, -, +, ? or .)", column: 3))
    }

    func testRepetitionErrors() {
        XCTAssertEqual(error("1 2x0"), CommandError("'x0': a repetition must be at least 1", column: 4))
        XCTAssertEqual(error("1x"), CommandError("'x' needs a count, as in x3", column: 2))
        XCTAssertEqual(error("1x2x3"), CommandError("'x2x3' is not a repetition (write x and a whole number, as in x3)", column: 2))
        XCTAssertEqual(error("1 x3"), CommandError("'x3' must follow a clip or ')' directly, as in 1x3 or (1 2)x3", column: 3))
        XCTAssertEqual(error("(1 2)x0"), CommandError("'x0': a repetition must be at least 1", column: 6))
    }

    func testUnbalancedParentheses() {
        XCTAssertEqual(error("1 (2 3"), CommandError("unbalanced parenthesis: '(' is never closed", column: 3))
        XCTAssertEqual(error("1 2)x2"), CommandError("unbalanced parenthesis: ')' has no matching '('", column: 4))
        XCTAssertEqual(error("1 ()"), CommandError("empty parentheses at column 3", column: 4))
    }

    func testEmptyAndHugeCodesAreRefused() {
        XCTAssertEqual(error("   "), CommandError("empty pattern code (try '1 - 2x2')", column: 1))
        XCTAssertEqual(error("(1x1000 2)x1000000"), CommandError("the code unrolls to 1,001,000,000 clips; a code holds at most 1,000,000", column: 1))
        XCTAssertEqual(error("1x99999999999999999999"), CommandError("'x99999999999999999999' repeats more than 1000000 times", column: 2))
    }
}

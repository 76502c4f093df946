import XCTest
@testable import TemperaCore

final class ExpressionTests: XCTestCase {
    func value(_ text: String) throws -> Double { try Expression.evaluate(text) }

    func error(_ text: String) -> CommandError? {
        do {
            _ = try Expression.evaluate(text)
            return nil
        } catch {
            return error as? CommandError
        }
    }

    func testNumbersReadExactlyAsSwiftReadsThem() throws {
        XCTAssertEqual(try value("0.25"), 0.25)
        XCTAssertEqual(try value("3"), 3)
        XCTAssertEqual(try value("1e-3"), 0.001)
        XCTAssertEqual(try value("2.5E+2"), 250)
        XCTAssertEqual(try value(".5"), 0.5)
        XCTAssertEqual(try value("0.1"), 0.1)
    }

    func testFractionsAreComputedOnceInDouble() throws {
        XCTAssertEqual(try value("3/8"), 0.375)
        XCTAssertEqual(try value("0.25+1/3"), 0.25 + 1.0 / 3)
        XCTAssertEqual(try value("1/3"), 1.0 / 3)
    }

    func testSquareRootOfTwoOverFourMatchesTheDemoCanon() throws {
        XCTAssertEqual(try value("sqrt(2)/4"), 2.0.squareRoot() / 4)
        XCTAssertEqual(try value("sqrt( 2 ) / 4"), 2.0.squareRoot() / 4)
    }

    func testConstantsAndFunctions() throws {
        XCTAssertEqual(try value("2*pi"), 2 * Double.pi)
        XCTAssertEqual(try value("tau"), 2 * Double.pi)
        XCTAssertEqual(try value("pow(2, 10)"), 1024)
        XCTAssertEqual(try value("2^10"), 1024)
        XCTAssertEqual(try value("2^3^2"), 512)
        XCTAssertEqual(try value("-2^2"), -4)
        XCTAssertEqual(try value("exp(0)"), 1)
        XCTAssertEqual(try value("log(e)"), 1)
        XCTAssertEqual(try value("log2(8)"), 3)
        XCTAssertEqual(try value("min(3, 1/2)"), 0.5)
        XCTAssertEqual(try value("max(3, 1/2)"), 3)
        XCTAssertEqual(try value("abs(-0.75)"), 0.75)
    }

    func testPrecedenceAndUnaryMinus() throws {
        XCTAssertEqual(try value("1+2*3"), 7)
        XCTAssertEqual(try value("(1+2)*3"), 9)
        XCTAssertEqual(try value("-1/8"), -0.125)
        XCTAssertEqual(try value("2*-3"), -6)
        XCTAssertEqual(try value("--1"), 1)
        XCTAssertEqual(try value("8/4/2"), 1)
        XCTAssertEqual(try value("1-2-3"), -4)
    }

    func testErrorsNameTheColumn() {
        XCTAssertEqual(error("1/0"), CommandError("division by zero", column: 2))
        XCTAssertEqual(error("2*foo"), CommandError("unknown name 'foo' (known: pi, tau, e, sqrt, pow, exp, log, ...)", column: 3))
        XCTAssertEqual(error("(1+2"), CommandError("unbalanced parenthesis: '(' at column 1 is never closed", column: 1))
        XCTAssertEqual(error("1+2)"), CommandError("unbalanced parenthesis: ')' has no matching '('", column: 4))
        XCTAssertEqual(error("3 4"), CommandError("expected an operator (+ - * / ^) before '4'", column: 3))
        XCTAssertEqual(error("sqrt(-1)"), CommandError("sqrt of a negative number", column: 1))
        XCTAssertEqual(error("sqrt 2"), CommandError("'sqrt' needs its argument in parentheses, as in sqrt(2)", column: 1))
        XCTAssertEqual(error("pow(2)"), CommandError("'pow' takes 2 arguments, not 1", column: 1))
        XCTAssertEqual(error("1+"), CommandError("the expression ends where a number was expected", column: 3))
        XCTAssertEqual(error(""), CommandError("empty expression", column: 1))
        XCTAssertEqual(error("2e"), CommandError("expected an operator (+ - * / ^) before 'e'", column: 2))
        XCTAssertEqual(error("1e999"), CommandError("the expression has no finite value", column: 1))
        XCTAssertEqual(error("1.2.3"), CommandError("expected an operator (+ - * / ^) before '.'", column: 4))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Exact numeric expressions for times, factors and numbers: `3/8`, `sqrt(2)/4`, `2*pi`, `0.25+1/3`, so that
/// Nancarrow's sqrt(2) canon can be typed rather than approximated.
///
/// Grammar: numbers (`0.25`, `3`, `1e-3`), `+ - * /`, `^` (power, right-associative), unary minus and plus,
/// parentheses, the constants `pi`, `tau` and `e`, and the functions `sqrt`, `cbrt`, `exp`, `log` (natural),
/// `log2`, `pow(x, y)`, `abs`, `floor`, `ceil`, `round`, `min(x, y)`, `max(x, y)`. Spaces are allowed anywhere
/// between tokens. The value is computed in Double, once, in the order written: `sqrt(2)/4` gives exactly
/// `2.0.squareRoot() / 4`.
///
/// Safe to call from any thread.
public enum Expression {
    /// Evaluates an expression; throws a `CommandError` naming the 1-based column of the bad token.
    public static func evaluate(_ text: String) throws -> Double {
        var parser = Parser(Array(text.unicodeScalars))
        return try parser.parseAll()
    }

    /// The function names the grammar knows, with their argument counts.
    static let functions: [String: Int] = [
        "sqrt": 1, "cbrt": 1, "exp": 1, "log": 1, "log2": 1, "abs": 1, "floor": 1, "ceil": 1, "round": 1,
        "pow": 2, "min": 2, "max": 2,
    ]

    static let constants: [String: Double] = ["pi": Double.pi, "tau": 2 * Double.pi, "e": M_E]

    /// Recursive descent over unicode scalars; `index` is 0-based, columns reported are 1-based.
    struct Parser {
        let s: [Unicode.Scalar]
        var index = 0
        /// Parentheses and unary signs open so far: bounded so a pathological line fails instead of
        /// exhausting the stack.
        var depth = 0
        static let maxDepth = 100

        init(_ s: [Unicode.Scalar]) { self.s = s }

        mutating func parseAll() throws -> Double {
            skipSpaces()
            if index == s.count { throw CommandError("empty expression", column: 1) }
            let value = try parseSum()
            skipSpaces()
            if index < s.count {
                if s[index] == ")" { throw CommandError("unbalanced parenthesis: ')' has no matching '('", column: index + 1) }
                throw CommandError("expected an operator (+ - * / ^) before '\(word(at: index))'", column: index + 1)
            }
            guard value.isFinite else { throw CommandError("the expression has no finite value", column: 1) }
            return value
        }

        mutating func skipSpaces() {
            while index < s.count, s[index] == " " || s[index] == "\t" { index += 1 }
        }

        /// The token starting at `i`, for error messages.
        func word(at i: Int) -> String {
            var j = i
            if j < s.count, isNameStart(s[j]) || isDigit(s[j]) {
                while j < s.count, isNameStart(s[j]) || isDigit(s[j]) || s[j] == "." { j += 1 }
            } else {
                j = min(i + 1, s.count)
            }
            var out = ""
            out.unicodeScalars.append(contentsOf: s[i..<j])
            return out
        }

        func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }
        func isNameStart(_ c: Unicode.Scalar) -> Bool { (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c == "_" }

        mutating func parseSum() throws -> Double {
            var value = try parseProduct()
            while true {
                skipSpaces()
                guard index < s.count, s[index] == "+" || s[index] == "-" else { return value }
                let op = s[index]
                index += 1
                let rhs = try parseProduct()
                value = op == "+" ? value + rhs : value - rhs
            }
        }

        mutating func parseProduct() throws -> Double {
            var value = try parseUnary()
            while true {
                skipSpaces()
                guard index < s.count, s[index] == "*" || s[index] == "/" else { return value }
                let op = s[index]
                let column = index + 1
                index += 1
                let rhs = try parseUnary()
                if op == "*" {
                    value *= rhs
                } else {
                    if rhs == 0 { throw CommandError("division by zero", column: column) }
                    value /= rhs
                }
            }
        }

        mutating func parseUnary() throws -> Double {
            skipSpaces()
            depth += 1
            defer { depth -= 1 }
            if depth > Parser.maxDepth {
                throw CommandError("the expression is nested too deeply", column: Swift.min(index + 1, s.count))
            }
            if index < s.count, s[index] == "-" || s[index] == "+" {
                let negative = s[index] == "-"
                index += 1
                let v = try parseUnary()
                return negative ? -v : v
            }
            return try parsePower()
        }

        /// `a ^ b ^ c` is `a ^ (b ^ c)`, and `-2^2` is `-(2^2)`, as in mathematics.
        mutating func parsePower() throws -> Double {
            let base = try parsePrimary()
            skipSpaces()
            guard index < s.count, s[index] == "^" else { return base }
            let column = index + 1
            index += 1
            let exponent = try parseUnary()
            let v = pow(base, exponent)
            if v.isNaN { throw CommandError("'^' has no real value here", column: column) }
            return v
        }

        mutating func parsePrimary() throws -> Double {
            skipSpaces()
            guard index < s.count else {
                throw CommandError("the expression ends where a number was expected", column: index + 1)
            }
            let c = s[index]
            let column = index + 1
            if c == "(" {
                index += 1
                let v = try parseSum()
                skipSpaces()
                guard index < s.count, s[index] == ")" else {
                    throw CommandError("unbalanced parenthesis: '(' at column \(column) is never closed",
                                       column: index < s.count ? index + 1 : column)
                }
                index += 1
                return v
            }
            if isDigit(c) || c == "." { return try parseNumber() }
            if isNameStart(c) {
                let start = index
                while index < s.count, isNameStart(s[index]) || isDigit(s[index]) { index += 1 }
                var name = ""
                name.unicodeScalars.append(contentsOf: s[start..<index])
                if let arity = Expression.functions[name] { return try parseCall(name, arity: arity, column: column) }
                if let v = Expression.constants[name] { return v }
                throw CommandError("unknown name '\(name)' (known: pi, tau, e, sqrt, pow, exp, log, ...)", column: column)
            }
            if c == ")" { throw CommandError("unbalanced parenthesis: ')' has no matching '('", column: column) }
            throw CommandError("unexpected '\(word(at: index))' where a number was expected", column: column)
        }

        mutating func parseCall(_ name: String, arity: Int, column: Int) throws -> Double {
            skipSpaces()
            guard index < s.count, s[index] == "(" else {
                throw CommandError("'\(name)' needs its argument in parentheses, as in \(name)(2)", column: column)
            }
            let open = index + 1
            index += 1
            var args: [Double] = []
            while true {
                args.append(try parseSum())
                skipSpaces()
                guard index < s.count else {
                    throw CommandError("unbalanced parenthesis: '(' at column \(open) is never closed", column: open)
                }
                if s[index] == "," { index += 1; continue }
                if s[index] == ")" { index += 1; break }
                throw CommandError("expected ',' or ')' in \(name)( )", column: index + 1)
            }
            guard args.count == arity else {
                throw CommandError("'\(name)' takes \(arity) argument\(arity == 1 ? "" : "s"), not \(args.count)",
                                   column: column)
            }
            let x = args[0]
            let v: Double
            switch name {
            case "sqrt":
                if x < 0 { throw CommandError("sqrt of a negative number", column: column) }
                v = x.squareRoot()
            case "cbrt": v = cbrt(x)
            case "exp": v = exp(x)
            case "log", "log2":
                if x <= 0 { throw CommandError("\(name) of a number that is not positive", column: column) }
                v = name == "log" ? log(x) : log2(x)
            case "abs": v = abs(x)
            case "floor": v = x.rounded(.down)
            case "ceil": v = x.rounded(.up)
            case "round": v = x.rounded()
            case "pow": v = pow(x, args[1])
            case "min": v = Swift.min(x, args[1])
            case "max": v = Swift.max(x, args[1])
            default: v = .nan
            }
            if v.isNaN { throw CommandError("'\(name)' has no real value here", column: column) }
            return v
        }

        /// Digits with an optional fraction and exponent, read by Swift's correctly rounded conversion.
        mutating func parseNumber() throws -> Double {
            let start = index
            while index < s.count, isDigit(s[index]) { index += 1 }
            if index < s.count, s[index] == "." {
                index += 1
                while index < s.count, isDigit(s[index]) { index += 1 }
            }
            // An exponent only when digits follow, so `2e` stays a number followed by the name `e`.
            if index < s.count, s[index] == "e" || s[index] == "E" {
                var j = index + 1
                if j < s.count, s[j] == "+" || s[j] == "-" { j += 1 }
                if j < s.count, isDigit(s[j]) {
                    index = j
                    while index < s.count, isDigit(s[index]) { index += 1 }
                }
            }
            var text = ""
            text.unicodeScalars.append(contentsOf: s[start..<index])
            guard text != ".", let v = Double(text) else {
                throw CommandError("'\(text)' is not a number", column: start + 1)
            }
            if index < s.count, isNameStart(s[index]) {
                throw CommandError("expected an operator (+ - * / ^) before '\(word(at: index))'", column: index + 1)
            }
            return v
        }
    }
}

/// Reads pattern codes, the paper's "clip number followed by number of repetitions".
///
/// Grammar: tokens separated by spaces (or by nothing where they cannot run together: `.2.2`, `1x3-`); a token is `CLIP` or `CLIPxN` (N repetitions, N >= 1, default 1), where
/// CLIP is 1-16 (or the clip's key, as the timeline shows it: `0` for 10, `! @ # $ % ^` for 11-16), `-` (a rest: it cuts
/// the sound before it), `+` (hold), `?` or `~` (a random clip) or `.` (no clip: the marker is left as it is, the
/// sound before it rings on); parentheses repeat a sequence, nested freely:
/// `(1 - 2)x3`, `((1 2)x2 -)x4`. A repetition may also stand apart from its closing parenthesis: `(1 2) x3`.
///
/// Safe to call from any thread.
public enum PatternParser {
    /// The most symbols a code may unroll to, so a typo such as `1x99999999` fails at once instead of
    /// exhausting memory.
    public static let maxSymbols = Limits.maxAddedMarkers
    /// How deep parentheses may nest (the unrolling recurses).
    public static let maxNesting = 32

    /// Parses a code; throws a one-line `CommandError` naming the 1-based column of the bad token and why.
    public static func parse(_ text: String) throws -> PatternCode {
        let tokens = try lex(Array(text.unicodeScalars))
        if tokens.isEmpty { throw CommandError("empty pattern code (try '1 - 2x2')", column: 1) }
        var position = 0
        var stack: [(items: [PatternCode.Item], column: Int)] = [([], 1)]
        while position < tokens.count {
            let token = tokens[position]
            position += 1
            switch token.kind {
            case .open:
                if stack.count > maxNesting {
                    throw CommandError("parentheses nested more than \(maxNesting) deep", column: token.column)
                }
                stack.append(([], token.column))
            case .close:
                guard stack.count > 1 else {
                    throw CommandError("unbalanced parenthesis: ')' has no matching '('", column: token.column)
                }
                let (inner, openColumn) = stack.removeLast()
                if inner.isEmpty {
                    throw CommandError("empty parentheses at column \(openColumn)", column: token.column)
                }
                var times = 1
                if position < tokens.count, case .repeat(let n) = tokens[position].kind {
                    times = n
                    position += 1
                }
                stack[stack.count - 1].items.append(.sequence(inner, times: times))
            case .symbol(let symbol, let times):
                stack[stack.count - 1].items.append(.symbol(symbol, times: times))
            case .repeat:
                throw CommandError("'\(token.text)' must follow a clip or ')' directly, as in 1x3 or (1 2)x3",
                                   column: token.column)
            }
        }
        if stack.count > 1 {
            throw CommandError("unbalanced parenthesis: '(' is never closed", column: stack[stack.count - 1].column)
        }
        let items = stack[0].items
        let unrolled = count(items)
        if unrolled > maxSymbols {
            let reached = unrolled == Int.max ? "more than \(Limits.count(Int.max))" : Limits.count(unrolled)
            throw CommandError("the code unrolls to \(reached) clips; a code holds at most \(Limits.count(maxSymbols))", column: 1)
        }
        return PatternCode(items: items, source: text)
    }

    /// How many symbols items unroll to, saturating rather than overflowing.
    static func count(_ items: [PatternCode.Item]) -> Int {
        var total = 0
        for item in items {
            let n: Int
            switch item {
            case .symbol(_, let times): n = times
            case .sequence(let inner, let times):
                let (p, overflow) = count(inner).multipliedReportingOverflow(by: times)
                n = overflow ? Int.max : p
            }
            let (sum, overflow) = total.addingReportingOverflow(n)
            total = overflow ? Int.max : sum
        }
        return total
    }

    struct Token {
        enum Kind {
            case open
            case close
            case symbol(PatternCode.Symbol, times: Int)
            /// A stand-alone `xN`.
            case `repeat`(Int)
        }
        var kind: Kind
        var text: String
        /// 1-based.
        var column: Int
    }

    static func lex(_ s: [Unicode.Scalar]) throws -> [Token] {
        var tokens: [Token] = []
        var i = 0
        while i < s.count {
            let c = s[i]
            if c == " " || c == "\t" || c == "," { i += 1; continue }
            if c == "(" { tokens.append(Token(kind: .open, text: "(", column: i + 1)); i += 1; continue }
            if c == ")" {
                tokens.append(Token(kind: .close, text: ")", column: i + 1))
                i += 1
                // `)x3`: the repetition belongs to the parenthesis.
                if i < s.count, s[i] == "x" || s[i] == "X" {
                    let start = i
                    while i < s.count, !isSeparator(s[i]), !isPunctuation(s[i]) { i += 1 }
                    let word = string(s[start..<i])
                    tokens.append(Token(kind: .repeat(try repetition(word, column: start + 1)), text: word,
                                        column: start + 1))
                }
                continue
            }
            let start = i
            i = wordEnd(s, from: i)
            let word = string(s[start..<i])
            tokens.append(try symbolToken(word, column: start + 1))
        }
        return tokens
    }

    /// Where the token starting at `i` ends. `+ - ? . ~` and the keys `! @ # $ % ^` are one character each and a clip number is its
    /// digits, so a code needs no spaces between them: `.2.2` is `. 2 . 2`, `1x3-` is `1x3 -`. A repetition
    /// `xN` stays with its symbol; anything else runs to the next separator, so a typo is reported whole.
    static func wordEnd(_ s: [Unicode.Scalar], from start: Int) -> Int {
        var i = start
        if isPunctuation(s[i]) {
            i += 1
        } else if isDigit(s[i]) {
            while i < s.count, isDigit(s[i]) { i += 1 }
        } else {
            while i < s.count, !isSeparator(s[i]) { i += 1 }
            return i
        }
        if i < s.count, s[i] == "x" || s[i] == "X" {
            i += 1
            while i < s.count, !isSeparator(s[i]), !isPunctuation(s[i]) { i += 1 }
        }
        if i < s.count, !isSeparator(s[i]), !isPunctuation(s[i]), !isDigit(s[i]) {
            // `1a`, `-q`: not two tokens but one mistyped one.
            while i < s.count, !isSeparator(s[i]) { i += 1 }
        }
        return i
    }

    static func isPunctuation(_ c: Unicode.Scalar) -> Bool {
        c == "+" || c == "-" || c == "?" || c == "." || c == "~" || c == "!" || c == "@" || c == "#" || c == "$"
            || c == "%" || c == "^"
    }

    static func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }

    static func isSeparator(_ c: Unicode.Scalar) -> Bool {
        c == " " || c == "\t" || c == "," || c == "(" || c == ")"
    }

    static func string(_ s: ArraySlice<Unicode.Scalar>) -> String {
        var out = ""
        out.unicodeScalars.append(contentsOf: s)
        return out
    }

    /// `CLIP` or `CLIPxN`, or a stand-alone `xN`.
    static func symbolToken(_ word: String, column: Int) throws -> Token {
        let scalars = Array(word.unicodeScalars)
        if scalars[0] == "x" || scalars[0] == "X" {
            return Token(kind: .repeat(try repetition(word, column: column)), text: word, column: column)
        }
        var split = scalars.count
        if let x = scalars.firstIndex(where: { $0 == "x" || $0 == "X" }) { split = x }
        let clipText = string(scalars[0..<split])
        let symbol: PatternCode.Symbol
        switch clipText {
        case "+": symbol = .hold
        case "-": symbol = .rest
        case "?": symbol = .random
        case ".": symbol = .skip
        default:
            if let keyed = Content(key: clipText), case .clip(let n) = keyed {
                symbol = .clip(n)
            } else if clipText == "~" {
                symbol = .random
            } else if clipText.unicodeScalars.allSatisfy({ $0 >= "0" && $0 <= "9" }) {
                guard let n = Int(clipText), ClipSlot.range.contains(n) else {
                    throw CommandError("unknown clip '\(clipText)' (clips are 1-16)", column: column)
                }
                symbol = .clip(n)
            } else {
                // Short: it is shown beside the code being typed, on one line of an 80-column screen.
                throw CommandError("unknown clip '\(clipText)' (1-16, -, +, ? or .)",
                                   column: column)
            }
        }
        var times = 1
        if split < scalars.count {
            times = try repetition(string(scalars[split...]), column: column + split)
        }
        return Token(kind: .symbol(symbol, times: times), text: word, column: column)
    }

    /// `xN` with N >= 1.
    static func repetition(_ word: String, column: Int) throws -> Int {
        let digits = String(word.unicodeScalars.dropFirst())
        if digits.isEmpty {
            // Short: it is shown beside the code being typed, on one line of an 80-column screen.
            throw CommandError("'\(word)' needs a count, as in x3", column: column)
        }
        guard digits.unicodeScalars.allSatisfy({ $0 >= "0" && $0 <= "9" }) else {
            throw CommandError("'\(word)' is not a repetition (write x and a whole number, as in x3)", column: column)
        }
        guard let n = Int(digits), n <= maxSymbols else {
            throw CommandError("'\(word)' repeats more than \(maxSymbols) times", column: column)
        }
        if n < 1 { throw CommandError("'\(word)': a repetition must be at least 1", column: column) }
        return n
    }
}

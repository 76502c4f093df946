/// Splits one line of the command language into words, keeping the source column of every character so that
/// errors found deep inside a value (a pattern code, an expression) still point at the right column.
///
/// Words are separated by spaces and tabs. `"..."` quotes (with `\"` and `\\` escapes) may make up a word or
/// part of one (`file="my kit/a.wav"`). Spaces inside parentheses do not split a word, so `sqrt( 2 )` and
/// `(1/3 + 1/4)` are one word. A `#` at the start of a word begins a comment.
struct CommandLexer {
    struct Word {
        /// The text with quotes and escapes removed.
        var text: String
        /// The 1-based source column of each unicode scalar of `text`.
        var columns: [Int]
        /// 1-based column where the word starts in the line.
        var column: Int
        /// The column just after the word's last character.
        var end: Int
        /// True when any part was quoted.
        var quoted: Bool
        /// Position (in scalars of `text`) of the first `=` outside quotes, when the word is `key=value`.
        var equals: Int?

        /// The key of a `key=value` word.
        var key: String? {
            guard let equals else { return nil }
            return String(String.UnicodeScalarView(text.unicodeScalars.prefix(equals)))
        }

        /// The value of a `key=value` word, as a word of its own (columns kept).
        var value: Word? {
            guard let equals else { return nil }
            let scalars = Array(text.unicodeScalars)
            let valueColumns = Array(columns[(equals + 1)...])
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars[(equals + 1)...])
            return Word(text: text, columns: valueColumns, column: valueColumns.first ?? end, end: end,
                        quoted: quoted, equals: nil)
        }

        /// Maps a 1-based column inside `text` to the line's column.
        func sourceColumn(_ inner: Int?) -> Int {
            guard let inner, inner >= 1 else { return column }
            if inner - 1 < columns.count { return columns[inner - 1] }
            return end
        }
    }

    /// The line's unicode scalars.
    let scalars: [Unicode.Scalar]
    /// The words before any comment.
    private(set) var words: [Word] = []

    init(_ line: String) throws {
        scalars = Array(line.unicodeScalars)
        var i = 0
        let s = scalars
        while i < s.count {
            // A byte-order mark (a script saved by some editors) counts as a space.
            if s[i] == " " || s[i] == "\t" || s[i] == "\r" || s[i] == "\u{FEFF}" { i += 1; continue }
            if s[i] == "#" { break }
            let start = i
            var text = String.UnicodeScalarView()
            var columns: [Int] = []
            var quoted = false
            var equals: Int?
            var depth = 0
            while i < s.count {
                let c = s[i]
                if depth == 0, c == " " || c == "\t" || c == "\r" { break }
                if c == "\"" {
                    quoted = true
                    let open = i
                    i += 1
                    var closed = false
                    while i < s.count {
                        if s[i] == "\\", i + 1 < s.count, s[i + 1] == "\"" || s[i + 1] == "\\" {
                            text.append(s[i + 1])
                            columns.append(i + 2)
                            i += 2
                            continue
                        }
                        if s[i] == "\"" { closed = true; i += 1; break }
                        text.append(s[i])
                        columns.append(i + 1)
                        i += 1
                    }
                    if !closed { throw CommandError("unterminated string: '\"' is never closed", column: open + 1) }
                    continue
                }
                if c == "(" { depth += 1 }
                if c == ")", depth > 0 { depth -= 1 }
                if c == "=", equals == nil { equals = columns.count }
                text.append(c)
                columns.append(i + 1)
                i += 1
            }
            words.append(Word(text: String(text), columns: columns, column: start + 1, end: i + 1, quoted: quoted,
                              equals: equals))
        }
    }

    /// The source text between two columns (1-based, `to` exclusive).
    func source(from: Int, to: Int) -> String {
        var out = ""
        out.unicodeScalars.append(contentsOf: scalars[(from - 1)..<min(to - 1, scalars.count)])
        return out
    }
}

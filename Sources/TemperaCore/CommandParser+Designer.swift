/// The rhythm designer's commands: `temper span=... top=... bottom=...` and its mappings.
extension LineParser {
    mutating func parseTemperDefine() throws -> Command.TemperDefine {
        let usage = "temper span=TIME top=A:BEATS bottom=B:BEATS [map=I-J,...] [s=X]"
        let opts = try options(["span", "top", "bottom", "map", "s"], usage: usage)
        let span = try number(try required(opts, "span", usage: usage), "span",
                              { $0 > 0 && $0 <= CommandParser.maxTime }, "must be greater than 0 and at most 10000000")
        let (a, topBeats) = try row(try required(opts, "top", usage: usage), "top")
        let (b, bottomBeats) = try row(try required(opts, "bottom", usage: usage), "bottom")
        var map: [Temperament.Pair]?
        if let m = opts["map"] { map = try pairs(m, a: a, b: b) }
        let s = try opts["s"].map { try slider($0, "s") }
        return Command.TemperDefine(span: span, top: a, topBeats: topBeats, bottom: b, bottomBeats: bottomBeats, map: map,
                                    slider: s)
    }

    /// Part of a word, columns kept.
    func slice(_ w: Word, _ range: Range<Int>) -> Word {
        var text = ""
        text.unicodeScalars.append(contentsOf: Array(w.text.unicodeScalars)[range])
        let cols = Array(w.columns[range])
        return Word(text: text, columns: cols, column: cols.first ?? w.end, end: range.upperBound < w.columns.count
                    ? w.columns[range.upperBound] : w.end, quoted: w.quoted, equals: nil)
    }

    /// Splits a word at every `separator` outside parentheses.
    func split(_ w: Word, on separator: Unicode.Scalar) -> [Word] {
        let s = Array(w.text.unicodeScalars)
        var parts: [Word] = []
        var start = 0, depth = 0
        for (i, c) in s.enumerated() {
            if c == "(" { depth += 1 }
            if c == ")" { depth -= 1 }
            if c == separator, depth == 0 {
                parts.append(slice(w, start..<i))
                start = i + 1
            }
        }
        parts.append(slice(w, start..<s.count))
        return parts
    }

    /// `A:BEATS` (or just `A`, every beat).
    func row(_ w: Word, _ name: String) throws -> (Int, Temperament.BeatChoice) {
        let parts = split(w, on: ":")
        if parts.count > 2 { throw fail("\(name) must be A:BEATS, as in 7:0,2,4 or 5:euclid(3)", at: parts[2]) }
        guard !parts[0].text.isEmpty else { throw fail("\(name) needs a subdivision before ':'", at: w) }
        let division = try integer(parts[0], "\(name)'s subdivision", 1...CommandParser.maxDivision)
        guard parts.count == 2 else { return (division, .all) }
        let beats = parts[1]
        if beats.text.isEmpty { throw fail("\(name) needs beats after ':' (0,2,4, all or euclid(K))", at: beats) }
        if beats.text == "all" { return (division, .all) }
        if beats.text.hasPrefix("euclid") {
            let s = Array(beats.text.unicodeScalars)
            guard s.count > 7, s[6] == "(", s[s.count - 1] == ")" else {
                throw fail("write euclid(K) or euclid(K,R)", at: beats)
            }
            let args = split(slice(beats, 7..<(s.count - 1)), on: ",")
            if args.count > 2 { throw fail("euclid takes K and an optional rotation R", at: args[2]) }
            let k = try integer(args[0], "K", 0...division)
            let r = args.count == 2 ? try integer(args[1], "R", -CommandParser.maxDivision...CommandParser.maxDivision) : 0
            return (division, .euclid(k: k, rotation: r))
        }
        var list: [Int] = []
        for part in split(beats, on: ",") {
            if part.text.isEmpty { throw fail("empty beat in '\(Limits.echo(beats.text))'", at: part) }
            let beat = try integer(part, "beat", 0...(division - 1))
            if list.contains(beat) { throw fail("beat \(beat) is chosen twice", at: part) }
            list.append(beat)
        }
        return (division, .list(list.sorted()))
    }

    /// `I-J,I-J,...`.
    func pairs(_ w: Word, a: Int, b: Int) throws -> [Temperament.Pair] {
        var out: [Temperament.Pair] = []
        // `map=none`: an explicit map with no pairs (every beat unpaired).
        if w.text == "none" { return out }
        for part in split(w, on: ",") {
            let ends = split(part, on: "-")
            guard ends.count == 2, !ends[0].text.isEmpty, !ends[1].text.isEmpty else {
                throw fail("a mapping is I-J (top beat I to bottom beat J), not '\(Limits.echo(part.text))'", at: part)
            }
            out.append(Temperament.Pair(top: try integer(ends[0], "top beat", 0...(a - 1)),
                                        bottom: try integer(ends[1], "bottom beat", 0...(b - 1))))
        }
        return out
    }
}

/// The commands of time that bends (DESIGN §18): the tempo map's points, a section's ramp and meter, a track's
/// own cycle and ratio.
extension LineParser {
    static let tempoMapUsage = "tempo at TIME X [shape=step|linear|exp] | tempo at TIME delete | tempo clear"

    /// `tempo at ...` or `tempo clear` (`bpm` true: `bpm at TIME B [shape=...]`), after the command's name.
    mutating func parseTempoMap(bpm: Bool) throws -> Command {
        let name = bpm ? "bpm" : "tempo"
        let usage = bpm ? "bpm at TIME B [shape=step|linear|exp]" : Self.tempoMapUsage
        let first = try next("'at' or 'clear'", usage: usage)
        if !bpm, isKeyword(first, "clear") {
            try end(usage: "tempo clear")
            return .tempoClear
        }
        guard isKeyword(first, "at") else { throw fail("expected 'at' (\(usage))", at: first) }
        let time = try self.time(try next("TIME", usage: usage), "time")
        let w = try next(bpm ? "B" : "X or delete", usage: usage)
        if !bpm, isKeyword(w, "delete") {
            try end(usage: "tempo at TIME delete")
            return .tempoPointDelete(time)
        }
        let value = bpm ? try number(w, "bpm", { $0 > 0 && $0.isFinite }, "must be greater than 0") : try sectionTempo(w)
        let opts = try options(["shape"], usage: usage)
        let shape = try opts["shape"].map { try self.shape($0, allowed: TempoMap.Shape.allCases) } ?? .step
        return .tempoPoint(time: time, value: value, bpm: bpm, shape: shape)
    }

    /// A shape's name among `allowed`.
    func shape(_ word: Word, allowed: [TempoMap.Shape]) throws -> TempoMap.Shape {
        guard let s = TempoMap.Shape(rawValue: word.text), allowed.contains(s) else {
            throw fail("shape must be \(allowed.map(\.rawValue).joined(separator: ", ")), not '\(Limits.echo(word.text))'",
                       at: word)
        }
        return s
    }

    /// The two halves of `X..Y`, or nil when the word holds no `..`.
    func rampHalves(_ word: Word) -> (Word, Word)? {
        let scalars = Array(word.text.unicodeScalars)
        guard !word.quoted, word.equals == nil, scalars.count >= 2 else { return nil }
        for i in 0..<(scalars.count - 1) where scalars[i] == "." && scalars[i + 1] == "." {
            func part(_ r: Range<Int>) -> Word {
                let cols = Array(word.columns[r])
                var text = String.UnicodeScalarView()
                text.append(contentsOf: scalars[r])
                return Word(text: String(text), columns: cols, column: cols.first ?? word.column + r.lowerBound,
                            end: (cols.last.map { $0 + 1 }) ?? word.column + r.lowerBound, quoted: false, equals: nil)
            }
            return (part(0..<i), part((i + 2)..<scalars.count))
        }
        return nil
    }

    /// `section N tempo X[..Y] [shape=linear|exp]` and `section N bpm X[..Y] [shape=...]`, after the verb.
    mutating func parseSectionTempo(bpm: Bool, usage u: String) throws -> Command.SectionChange {
        let usage = u + (bpm ? " B[..B2] [shape=linear|exp]" : " X[..Y] [shape=linear|exp]")
        let w = try next(bpm ? "B" : "X", usage: usage)
        func value(_ w: Word) throws -> Double {
            bpm ? try number(w, "bpm", { $0 > 0 && $0.isFinite }, "must be greater than 0") : try sectionTempo(w)
        }
        if let (a, b) = rampHalves(w) {
            let x = try value(a), y = try value(b)
            let opts = try options(["shape"], usage: usage)
            let shape = try opts["shape"].map { try self.shape($0, allowed: [.linear, .exp]) } ?? .linear
            return .ramp(from: x, to: y, bpm: bpm, shape: shape)
        }
        let x = try value(w)
        try end(usage: usage)
        return bpm ? .bpm(x) : .tempo(x)
    }

    /// `section N meter M|off`, after the verb.
    mutating func parseSectionMeter(usage u: String) throws -> Command.SectionChange {
        let usage = u + " M|off"
        let w = try next("M or off", usage: usage)
        if isKeyword(w, "off") {
            try end(usage: usage)
            return .meter(nil)
        }
        let m = try integer(w, "meter", Transport.meterRange)
        try end(usage: usage)
        return .meter(m)
    }

    /// `track [N] cycle A B | off` and `track [N] ratio R`, after the verb.
    mutating func parseTrackTime(_ verb: String, target: Int?) throws -> Command {
        if verb == "cycle" {
            let usage = "track [N] cycle A B | track [N] cycle off"
            let w = try next("A B or off", usage: usage)
            if isKeyword(w, "off") {
                try end(usage: usage)
                return .trackCycle(track: target, nil)
            }
            let a = try time(w, "cycle start")
            let second = try next("B", usage: usage)
            let b = try time(second, "cycle end")
            guard b > a else { throw fail("the cycle must end after it starts (\(Self.show(a)))", at: second) }
            try end(usage: usage)
            return .trackCycle(track: target, Track.Cycle(start: a, end: b))
        }
        let usage = "track [N] ratio R (an expression: 3/2, 18/17, sqrt(2))"
        let w = try next("R", usage: usage)
        let r = Track.ratioRange
        _ = try number(w, "ratio", { r.contains($0) }, "must be from 1/64 to 64")
        try end(usage: usage)
        return .trackRatio(track: target, w.text)
    }
}

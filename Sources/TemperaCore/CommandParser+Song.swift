/// The song's commands: `section ...`, `song on|off`, `song loop on|off`.
extension LineParser {

    /// `x3` (or `×3`): a repeat count written as one word; nil for anything else.
    static func repeatCount(_ text: String) -> Int? {
        var scalars = Substring(text).unicodeScalars
        guard let first = scalars.first, first == "x" || first == "×" else { return nil }
        scalars.removeFirst()
        guard !scalars.isEmpty, scalars.count <= 12, scalars.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        return Int(String(scalars))
    }

    func repeats(_ value: Int, at word: Word) throws -> Int {
        guard (1...Song.maxRepeats).contains(value) else {
            throw fail("repeats must be a whole number from 1 to \(Song.maxRepeats), not \(value)", at: word)
        }
        return value
    }

    func sectionTempo(_ word: Word) throws -> Double {
        try number(word, "tempo", in: Transport.tempoRange)
    }

    /// `A B` with B after A.
    mutating func region(usage: String) throws -> (Double, Double) {
        let a = try time(try next("A", usage: usage), "region start")
        let second = try next("B", usage: usage)
        let b = try time(second, "region end")
        guard b > a else { throw fail("the region must end after it starts (\(Self.show(a)))", at: second) }
        return (a, b)
    }

    /// `section add [NAME] [A B] [x R] [tempo=X]`. A bare word that reads as a number is a region bound and one
    /// like `x3` a repeat count; quote such a word to use it as a name.
    mutating func parseSectionAdd() throws -> Command.SectionAdd {
        let usage = "section add [NAME] [A B] [x R] [tempo=X]"
        func isNumber(_ w: Word) -> Bool { !w.quoted && w.equals == nil && (try? Expression.evaluate(w.text)) != nil }
        func isRepeats(_ w: Word) -> Bool {
            !w.quoted && w.equals == nil && (Self.repeatCount(w.text) != nil || w.text == "x" || w.text == "×")
        }
        var name: String?
        if position < words.count {
            let w = words[position]
            if w.equals == nil, !isNumber(w), !isRepeats(w) {
                if let problem = Self.nameProblem(w.text) { throw fail("section name: \(problem)", at: w) }
                name = w.text
                position += 1
            }
        }
        var start: Double?, end: Double?
        if position < words.count, isNumber(words[position]) {
            (start, end) = try region(usage: usage)
        }
        var count: Int?
        if position < words.count, isRepeats(words[position]) {
            let w = words[position]
            position += 1
            if let r = Self.repeatCount(w.text) {
                count = try repeats(r, at: w)
            } else {
                count = try integer(try next("R after 'x'", usage: usage), "repeats", 1...Song.maxRepeats)
            }
        }
        let opts = try options(["tempo"], usage: usage)
        return Command.SectionAdd(name: name, start: start, end: end, repeats: count, tempo: try opts["tempo"].map(sectionTempo))
    }
}

/// The song's commands (DESIGN §12): `section ...`, `song on|off`, `song loop on|off`.
extension LineParser {
    static let sectionUsage = "section add [NAME] [A B] [x R] [tempo=X] | section N repeats R | section N tempo X[..Y] [shape=linear|exp] | section N bpm B[..B2] | section N meter M|off | "
        + "section N region A B | section N name NAME | section N move M | section N delete | section N duplicate"
    static let sectionVerbs = ["repeats", "tempo", "bpm", "meter", "region", "name", "move", "delete", "duplicate"]

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
        let range = Transport.tempoRange
        return try number(word, "tempo", { range.contains($0) },
                          "must be from \(Self.show(range.lowerBound)) to \(Self.show(range.upperBound))")
    }

    /// `A B` with B after A.
    mutating func region(usage: String) throws -> (Double, Double) {
        let a = try time(try next("A", usage: usage), "region start")
        let second = try next("B", usage: usage)
        let b = try time(second, "region end")
        guard b > a else { throw fail("the region must end after it starts (\(Self.show(a)))", at: second) }
        return (a, b)
    }

    mutating func parseSection() throws -> Command {
        let usage = Self.sectionUsage
        let first = try next("'add' or a section number", usage: usage)
        if isKeyword(first, "add") { return try parseSectionAdd() }
        if !first.quoted, first.equals == nil,
           first.text.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) }) {
            var message = "unknown section command '\(first.text)' (\(usage))"
            if let near = Self.nearest(first.text, in: ["add"]) { message = "unknown section command '\(first.text)' (did you mean '\(near)'?)" }
            throw fail(message, at: first)
        }
        let n = try integer(first, "section", 1...Song.maxSections)
        let verb = try next("what to change: \(Self.sectionVerbs.joined(separator: ", "))", usage: usage)
        guard Self.sectionVerbs.contains(where: { isKeyword(verb, $0) }) else {
            var message = "unknown section setting '\(verb.text)' (\(Self.sectionVerbs.joined(separator: ", ")))"
            if let near = Self.nearest(verb.text, in: Self.sectionVerbs) { message += " (did you mean '\(near)'?)" }
            throw fail(message, at: verb)
        }
        let u = "section N \(verb.text)"
        let change: Command.SectionChange
        switch verb.text {
        case "repeats":
            let w = try next("R", usage: u + " R")
            let r = try Self.repeatCount(w.text) ?? integer(w, "repeats", 1...Song.maxRepeats)
            change = .repeats(try repeats(r, at: w))
            try end(usage: u + " R")
        case "tempo", "bpm":
            change = try parseSectionTempo(bpm: verb.text == "bpm", usage: u)
        case "meter":
            change = try parseSectionMeter(usage: u)
        case "region":
            let (a, b) = try region(usage: u + " A B")
            change = .region(a, b)
            try end(usage: u + " A B")
        case "name":
            let w = try next("NAME", usage: u + " NAME")
            if w.equals != nil { throw fail("unexpected '\(w.text)': quote a name with '=' in it", at: w) }
            if let problem = Self.nameProblem(w.text) { throw fail("section name: \(problem)", at: w) }
            try end(usage: u + " NAME")
            change = .name(w.text)
        case "move":
            change = .move(try integer(try next("M", usage: u + " M"), "M", 1...Song.maxSections))
            try end(usage: u + " M")
        case "duplicate":
            try end(usage: u)
            change = .duplicate
        default:
            try end(usage: u)
            change = .delete
        }
        return .section(n, change)
    }

    /// `section add [NAME] [A B] [x R] [tempo=X]`. A bare word that reads as a number is a region bound and one
    /// like `x3` a repeat count; quote such a word to use it as a name.
    mutating func parseSectionAdd() throws -> Command {
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
        return .sectionAdd(name: name, start: start, end: end, repeats: count, tempo: try opts["tempo"].map(sectionTempo))
    }

    mutating func parseSong() throws -> Command {
        let usage = "song on|off | song loop on|off"
        let w = try next("on, off or loop", usage: usage)
        if isKeyword(w, "loop") {
            let on = try onOff(try next("on or off", usage: "song loop on|off"), usage: "song loop on|off")
            try end(usage: "song loop on|off")
            return .songLoop(on: on)
        }
        let on = try onOff(w, usage: usage)
        try end(usage: usage)
        return .song(on: on)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The command language (one command a line, `#` comments) read into `Command` values.
///
/// The forms are those of the design (sections 4 and 6), listed in `forms`. TIME, FACTOR and every number
/// accept exact expressions (`3/8`, `sqrt(2)/4`, `2*pi`); write them without spaces or inside parentheses.
/// Codes, paths and names may be quoted (`"..."`, with `\"` escapes); `fill`, `spread`, `type` and `select pattern` also
/// take an unquoted code running to the end of the line. Values the language can check on its own (slot and
/// clip numbers, amplitudes, tempo, counts) are checked here; what depends on the document (does track 5
/// exist, is anything selected) is checked by `Session`.
///
/// Safe to call from any thread.
public enum CommandParser {
    /// Parses one line; nil for a blank or comment line. Errors name the column (and `line` when given).
    public static func parse(_ text: String, line: Int? = nil) throws -> Command? {
        do {
            let lexer = try CommandLexer(text)
            if lexer.words.isEmpty { return nil }
            var parser = LineParser(lexer: lexer)
            return try CommandTable.parse(&parser)
        } catch var error as CommandError {
            error.line = line ?? error.line
            throw error
        }
    }

    /// Parses a whole script, one command a line (blank and comment lines skipped). Throws the first bad line's
    /// error, with its 1-based line and column; nothing is returned unless every line reads.
    public static func parseScript(_ text: String) throws -> [(line: Int, command: Command)] {
        var out: [(line: Int, command: Command)] = []
        try parseScript(text) { out.append(($0, $1)) }
        return out
    }

    /// Parses a script a line at a time, handing each command and its 1-based line to `body` as it reads: a
    /// long script is never held as commands. Throws the first bad line's error (or `body`'s).
    public static func parseScript(_ text: String, _ body: (Int, Command) throws -> Void) throws {
        try forEachLine(text) { number, line in
            if let command = try parse(String(String.UnicodeScalarView(line)), line: number) { try body(number, command) }
        }
    }

    /// Each line of `text` (split on "\n" only: "\r\n" is one Character, and the lexer treats a trailing "\r" as
    /// a space) with its 1-based number, without making a list of them.
    public static func forEachLine(_ text: String, _ body: (Int, Substring.UnicodeScalarView) throws -> Void) rethrows {
        let scalars = text.unicodeScalars
        var start = scalars.startIndex, number = 0
        while true {
            let end = text.utf8[start...].firstIndex(of: UInt8(ascii: "\n")) ?? scalars.endIndex
            number += 1
            try body(number, scalars[start..<end])
            guard end < scalars.endIndex else { return }
            start = scalars.index(after: end)
        }
    }

    /// Every command's usage, for help screens (from `CommandTable`).
    public static var forms: [String] { CommandTable.forms }

    /// The command names, for completion and suggestions (from `CommandTable`).
    public static var names: [String] { CommandTable.names }

    /// The linear gains a track may have: silence to four times (+12 dB).
    public static let trackGainRange: ClosedRange<Double> = 0...4

    /// The latest time (seconds) a document holds: about 116 days, far past any rhythm, and small enough that
    /// every sample frame fits an Int64 at any rate.
    public static let maxTime = Limits.maxTime

    /// The finest division of the beat `quantize` takes.
    public static let maxQuantize = 128

    /// The largest subdivision the rhythm designer accepts.
    public static let maxDivision = 128
}

/// One line's words and the cursor over them, with the readers every command's `parse` uses (numbers, times,
/// options, codes), each failing with a message that names the column.
public struct LineParser {
    typealias Word = CommandLexer.Word

    let lexer: CommandLexer
    /// The number the command's words selected (`track 2 mute`: 2), nil when they selected none.
    public internal(set) var selector: Int?
    /// Set when a command reads a subset of the line's words (the `slot` settings other than `layer=`).
    var overrideWords: [Word]?
    var words: [Word] { overrideWords ?? lexer.words }
    var position = 1

    init(lexer: CommandLexer) { self.lexer = lexer }

    // MARK: - Errors and words

    func fail(_ message: String, at word: Word) -> CommandError { CommandError(message, column: word.column) }

    /// Where a missing argument was expected: one space after the last word.
    var missingColumn: Int { (words.last?.end ?? 1) + 1 }

    /// Takes the next word, or fails saying what was expected.
    mutating func next(_ what: String, usage: String) throws -> Word {
        guard position < words.count else {
            throw CommandError("missing \(what) (\(usage))", column: missingColumn)
        }
        defer { position += 1 }
        return words[position]
    }

    /// Fails if words are left over.
    func end(usage: String) throws {
        guard position < words.count else { return }
        let extra = words[position]
        var message = "unexpected '\(Limits.echo(extra.text))' (\(usage))"
        // `tempo 1 + 1/3`: an expression was probably split by its spaces.
        let previous = words[position - 1].text
        if let first = extra.text.unicodeScalars.first, let last = previous.unicodeScalars.last,
           "+-*/^".unicodeScalars.contains(first) || "+-*/^".unicodeScalars.contains(last) {
            message = "unexpected '\(Limits.echo(extra.text))': write an expression without spaces or in parentheses (\(usage))"
        }
        throw fail(message, at: extra)
    }

    /// A plain keyword (unquoted, no `=`).
    func isKeyword(_ word: Word, _ name: String) -> Bool { !word.quoted && word.equals == nil && word.text == name }

    /// An unquoted word without `=`: one that can name a command's form.
    func isPlain(_ word: Word) -> Bool { !word.quoted && word.equals == nil }

    /// `[on|off]` to the end of the line: nil when absent.
    mutating func optionalOnOff(usage: String) throws -> Bool? {
        var on: Bool?
        if position < words.count { on = try onOff(try next("on or off", usage: usage), usage: usage) }
        try end(usage: usage)
        return on
    }

    /// `[K]` to the end of the line: a count from 1, 1 when absent.
    mutating func count(usage: String) throws -> Int {
        var k = 1
        if position < words.count { k = try integer(try next("K", usage: usage), "K", 1...Int.max) }
        try end(usage: usage)
        return k
    }

    /// The command's one argument (`what`, as its usage names it), read by `read`, with nothing after it:
    /// `try p.only("N", usage: u) { try $0.integer($1, "meter", Transport.meterRange) }`.
    mutating func only<T>(_ what: String, usage: String, _ read: (LineParser, Word) throws -> T) throws -> T {
        let word = try next(what, usage: usage)
        let value = try read(self, word)
        try end(usage: usage)
        return value
    }

    /// The command's one argument, or `off` (nil): `grid N|off`. `read` may read further words.
    mutating func offOr<T>(_ what: String, usage: String, _ read: (inout LineParser, Word) throws -> T) throws -> T? {
        let word = try next(what, usage: usage)
        let value = isKeyword(word, "off") ? nil : try read(&self, word)
        try end(usage: usage)
        return value
    }

    /// `on` or `off` as the command's one argument.
    mutating func onlyOnOff(_ what: String = "on or off", usage: String) throws -> Bool {
        try only(what, usage: usage) { try $0.onOff($1, usage: usage) }
    }

    // MARK: - Values

    func number(_ word: Word, _ name: String) throws -> Double {
        if word.text.isEmpty { throw fail("\(name) is empty", at: word) }
        do {
            return try Expression.evaluate(word.text)
        } catch let error as CommandError {
            throw CommandError("\(name): \(error.message)", column: word.sourceColumn(error.column))
        }
    }

    func number(_ word: Word, _ name: String, _ valid: (Double) -> Bool, _ requirement: String) throws -> Double {
        let v = try number(word, name)
        guard valid(v) else { throw fail("\(name) \(requirement), not \(Self.show(v))", at: word) }
        return v
    }

    /// A number within `range`: `tempo must be from 0.01 to 100, not 200` (`unit` after the bounds).
    func number(_ word: Word, _ name: String, in range: ClosedRange<Double>, unit: String = "") throws -> Double {
        try number(word, name, { range.contains($0) },
                   "must be from \(Self.show(range.lowerBound)) to \(Self.show(range.upperBound))" + (unit.isEmpty ? "" : " " + unit))
    }

    func integer(_ word: Word, _ name: String, _ range: ClosedRange<Int>) throws -> Int {
        let v = try number(word, name)
        // Double(Int.max) rounds up to 2^63, which Int cannot hold: compare below it.
        let fits = range.upperBound == Int.max ? v < 0x1p63 : v <= Double(range.upperBound)
        guard v == v.rounded(), v >= Double(range.lowerBound), fits else {
            let bounds = range.upperBound == Int.max ? "a whole number from \(range.lowerBound)"
                : "a whole number from \(range.lowerBound) to \(range.upperBound)"
            throw fail("\(name) must be \(bounds), not \(Self.show(v))", at: word)
        }
        return Int(v)
    }

    func time(_ word: Word, _ name: String) throws -> Double {
        try number(word, name, in: 0...CommandParser.maxTime)
    }

    /// A value of the designer's slider, within `Limits.sliderRange`.
    func slider(_ word: Word, _ name: String) throws -> Double {
        try number(word, name, in: Limits.sliderRange)
    }

    func amp(_ word: Word) throws -> Double {
        try number(word, "amp", in: 0...1)
    }

    func onOff(_ word: Word, usage: String) throws -> Bool {
        if isKeyword(word, "on") { return true }
        if isKeyword(word, "off") { return false }
        throw fail("expected on or off, not '\(Limits.echo(word.text))' (\(usage))", at: word)
    }

    func pattern(_ word: Word) throws -> PatternCode {
        do {
            return try PatternParser.parse(word.text)
        } catch let error as CommandError {
            throw CommandError(error.message, column: word.sourceColumn(error.column))
        }
    }

    /// A code: one quoted word, or the unquoted rest of `words[from..<to]` as written in the line.
    func code(_ from: Int, _ to: Int, usage: String) throws -> PatternCode {
        guard from < to else { throw CommandError("missing CODE (\(usage))", column: missingColumn) }
        if words[from].quoted {
            if to - from > 1 { throw fail("unexpected '\(Limits.echo(words[from + 1].text))' (\(usage))", at: words[from + 1]) }
            return try pattern(words[from])
        }
        let first = words[from].column, end = words[to - 1].end
        let text = lexer.source(from: first, to: end)
        let raw = Word(text: text, columns: Array(first..<end), column: first, end: end, quoted: false, equals: nil)
        return try pattern(raw)
    }

    /// `key=value` words from the current position to the end, each key at most once and from `allowed`.
    mutating func options(_ allowed: [String], usage: String) throws -> [String: Word] {
        var out: [String: Word] = [:]
        while position < words.count {
            let word = words[position]
            guard let key = word.key, let value = word.value else {
                throw fail("unexpected '\(Limits.echo(word.text))' (\(usage))", at: word)
            }
            guard allowed.contains(key) else {
                throw fail("unknown option '\(key)' (\(usage))", at: word)
            }
            if out[key] != nil { throw fail("'\(key)' is given twice", at: word) }
            if value.text.isEmpty, !value.quoted { throw fail("'\(key)=' needs a value", at: word) }
            out[key] = value
            position += 1
        }
        return out
    }

    func required(_ options: [String: Word], _ key: String, usage: String) throws -> Word {
        guard let w = options[key] else { throw CommandError("missing \(key)= (\(usage))", column: missingColumn) }
        return w
    }

    static func show(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }

    // MARK: - Commands

    /// The hits of `record take TIME:SLOT:VELOCITY ...`.
    mutating func recordedHits() throws -> [RecordedHit] {
        let hitUsage = "record take TIME:SLOT:VELOCITY ..."
        guard position < words.count else { throw CommandError("missing a hit (\(hitUsage))", column: missingColumn) }
        var hits: [RecordedHit] = []
        while position < words.count {
            let w = words[position]
            position += 1
            let parts = w.text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard !w.quoted, w.equals == nil, parts.count == 3 else {
                throw fail("a hit is TIME:SLOT:VELOCITY, not '\(w.text)'", at: w)
            }
            func part(_ k: Int) -> Word {
                let from = parts[..<k].reduce(0) { $0 + $1.unicodeScalars.count + 1 }
                let n = parts[k].unicodeScalars.count
                let cols = Array(w.columns[from..<(from + n)])
                return Word(text: parts[k], columns: cols, column: cols.first ?? w.column,
                            end: cols.last.map { $0 + 1 } ?? w.column, quoted: false, equals: nil)
            }
            let time = try self.time(part(0), "hit time")
            let slot = try integer(part(1), "hit slot", 1...ClipSlot.count)
            let velocity = try number(part(2), "hit velocity", in: 0...1)
            hits.append(RecordedHit(time: time, slot: slot, velocity: velocity))
        }
        return hits
    }

    /// The NAME of `track add` and `track name`, nil when absent: one word, quoted when it holds spaces.
    mutating func trackName(example: String) throws -> String? {
        guard position < words.count else { return nil }
        let w = words[position]
        if w.equals != nil { throw fail("unexpected '\(Limits.echo(w.text))': quote a name with '=' in it", at: w) }
        position += 1
        if position < words.count {
            throw fail("unexpected '\(Limits.echo(words[position].text))': quote a name with spaces, as in \(example) \"low tom\"",
                       at: words[position])
        }
        return w.text
    }

    /// Why a text cannot be a track's name, or nil when it can: the timeline shows names on one line.
    static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "the name is empty" }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "a name cannot hold control characters"
        }
        return nil
    }

    /// `G` (linear), `GdB` or `G dB`: a track gain within `CommandParser.trackGainRange`.
    mutating func trackGain() throws -> Double {
        let usage = "track [N] gain G | track [N] gain GdB"
        let word = try next("G", usage: usage)
        if word.equals != nil { throw fail("unexpected '\(Limits.echo(word.text))' (\(usage))", at: word) }
        let count = word.text.unicodeScalars.count
        var value = word
        var decibels = false
        if !word.quoted, count > 2, word.text.lowercased().hasSuffix("db") {
            value = slice(word, 0..<(count - 2))
            decibels = true
        } else if position < words.count, !words[position].quoted, words[position].text.lowercased() == "db" {
            position += 1
            decibels = true
        }
        try end(usage: usage)
        let v = try number(value, "track gain")
        let gain = decibels ? Self.linear(decibels: v) : v
        let range = CommandParser.trackGainRange
        guard gain.isFinite, range.contains(gain) else {
            let shown = decibels ? "\(Self.show(v))dB" : Self.show(v)
            let bounds = "\(Self.show(range.lowerBound))-\(Self.show(range.upperBound))"
            let most = (20 * log10(range.upperBound) * 100).rounded() / 100
            throw fail("track gain: \(shown) is out of range (\(bounds)\(decibels ? ", at most +\(most)dB" : ""))", at: word)
        }
        return gain
    }

    /// 10^(dB/20).
    static func linear(decibels: Double) -> Double { pow(10, decibels / 20) }

    mutating func parseSlot() throws -> Command.Slot {
        let usage = "slot N file=PATH|note=MIDI|sf2=PATH|layer=MIN:MAX[:GAIN:PITCH]:PATH... [program=P] [bank=B] "
            + "[gain=G] [pan=P] [choke=G] [mode=oneshot|gate] [attack=MS] [decay=MS] [release=MS] [midi=CH[:NOTE]|none]"
        let n = try integer(try next("N", usage: usage), "slot", ClipSlot.range)
        // `layer=` may repeat (one word per layer); every other setting is given once.
        var layerWords: [Word] = []
        var clearLayers: Word?
        var rest: [Word] = []
        for w in words[position...] {
            if w.key == "layer", let v = w.value { layerWords.append(v) } else if w.key == "layers" { clearLayers = w } else { rest.append(w) }
        }
        var reader = LineParser(lexer: lexer)
        var filtered = Array(words[..<position])
        filtered.append(contentsOf: rest)
        reader.overrideWords = filtered
        reader.position = position
        let opts = try reader.options(["file", "note", "gain", "mode", "attack", "decay", "release", "name", "sf2",
                                       "program", "bank", "pan", "choke", "midi"], usage: usage)
        position = words.count
        if opts.isEmpty && layerWords.isEmpty && clearLayers == nil {
            throw CommandError("missing settings (\(usage))", column: missingColumn)
        }
        var s = Command.SlotSettings()
        s.file = opts["file"]?.text
        s.name = opts["name"]?.text
        if let w = opts["note"], w.text == "none" {
            s.clearNote = true
        } else {
            s.note = try opts["note"].map { try integer($0, "note", 0...127) }
        }
        s.soundFont = opts["sf2"]?.text
        s.program = try opts["program"].map { try integer($0, "program", ClipSlot.programRange) }
        s.bank = try opts["bank"].map { try integer($0, "bank", ClipSlot.bankRange) }
        s.gain = try opts["gain"].map { try number($0, "gain", { (0...16).contains($0) }, "must be from 0 to 16") }
        if let m = opts["mode"] {
            guard let mode = ClipSlot.Mode(rawValue: m.text) else {
                throw fail("mode must be oneshot or gate, not '\(Limits.echo(m.text))'", at: m)
            }
            s.mode = mode
        }
        let me = self
        func ms(_ w: Word, _ name: String) throws -> Double {
            try me.number(w, name, { (0...60_000).contains($0) }, "must be from 0 to 60000 ms")
        }
        s.attack = try opts["attack"].map { try ms($0, "attack") }
        s.decay = try opts["decay"].map { try ms($0, "decay") }
        s.release = try opts["release"].map { try ms($0, "release") }
        s.pan = try opts["pan"].map { try number($0, "pan", { (-1...1).contains($0) }, "must be from -1 to 1") }
        if let m = opts["midi"] { (s.midiChannel, s.midiNote) = try midiOut(m) }
        if let c = opts["choke"] {
            let groups = ClipSlot.chokeGroups
            s.choke = c.text == "none" && !c.quoted ? 0 : try integer(c, "choke", 0...groups.upperBound)
        }
        if let w = clearLayers {
            guard let v = w.value, v.text == "none", layerWords.isEmpty else {
                throw fail("layers= takes only none (to drop every layer); give layers one by one with layer=", at: w)
            }
            s.layers = []
        }
        if !layerWords.isEmpty {
            if s.file != nil, let f = opts["file"] {
                throw fail("a slot plays either file= or layer=, not both", at: f)
            }
            s.layers = try layerWords.map { try layer($0) }
        }
        return Command.Slot(slot: n, settings: s)
    }

    /// `MIN:MAX:PATH` or `MIN:MAX:GAIN:PITCH:PATH` (PATH may hold colons; with four or more, write the long form).
    func layer(_ w: Word) throws -> ClipSlot.Layer {
        let form = "layer=MIN:MAX:PATH or layer=MIN:MAX:GAIN:PITCH:PATH"
        let parts = w.text.split(separator: ":", maxSplits: 4, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3 else { throw fail("a layer is \(form), not '\(w.text)'", at: w) }
        func value(_ text: String, _ name: String) throws -> Double {
            do {
                return try Expression.evaluate(text)
            } catch let error as CommandError {
                throw fail("layer \(name): \(error.message) (\(form))", at: w)
            }
        }
        let lo = try value(parts[0], "MIN"), hi = try value(parts[1], "MAX")
        guard (0...1).contains(lo), (0...1).contains(hi), lo <= hi else {
            throw fail("a layer's amplitudes must be 0 <= MIN <= MAX <= 1, not \(Self.show(lo))-\(Self.show(hi))", at: w)
        }
        var gain = 1.0, pitch = 0.0, file: String
        if parts.count == 5, let g = try? Expression.evaluate(parts[2]), let p = try? Expression.evaluate(parts[3]) {
            guard (0...16).contains(g) else { throw fail("a layer's gain must be from 0 to 16, not \(Self.show(g))", at: w) }
            guard (-48...48).contains(p) else {
                throw fail("a layer's pitch must be from -48 to 48 semitones, not \(Self.show(p))", at: w)
            }
            gain = g
            pitch = p
            file = parts[4]
        } else {
            file = parts[2...].joined(separator: ":")
        }
        guard !file.isEmpty else { throw fail("a layer needs a file (\(form))", at: w) }
        return ClipSlot.Layer(file: file, min: lo, max: hi, gain: gain, pitch: pitch)
    }

    mutating func parseSelect() throws -> Command.Selection {
        let usage = "select none|all|left|right | at TIME | range A B | pattern \"CODE\" [tracks=all] [add]"
        let kindWord = try next("what to select", usage: usage)
        // Modifiers come last, in any order.
        var last = words.count
        var add = false, allTracks = false
        var seenAdd = false, seenTracks = false
        while last > position {
            let w = words[last - 1]
            if isKeyword(w, "add"), !seenAdd {
                add = true
                seenAdd = true
            } else if w.key == "tracks", !seenTracks, let v = w.value {
                switch v.text {
                case "all": allTracks = true
                case "current", "one": allTracks = false
                default: throw fail("tracks must be all or current, not '\(Limits.echo(v.text))'", at: v)
                }
                seenTracks = true
            } else {
                break
            }
            last -= 1
        }
        let kind: Command.Selection.Kind
        guard !kindWord.quoted, kindWord.equals == nil else {
            throw fail("unexpected '\(Limits.echo(kindWord.text))' (\(usage))", at: kindWord)
        }
        switch kindWord.text {
        case "none", "all", "left", "right":
            if position < last { throw fail("unexpected '\(Limits.echo(words[position].text))' (\(usage))", at: words[position]) }
            kind = kindWord.text == "none" ? .none : kindWord.text == "all" ? .all
                : kindWord.text == "left" ? .left : .right
        case "at":
            guard position < last else { throw CommandError("missing TIME (select at TIME)", column: missingColumn) }
            kind = .at(try number(words[position], "time"))
            if position + 1 < last {
                throw fail("unexpected '\(Limits.echo(words[position + 1].text))' (select at TIME)", at: words[position + 1])
            }
        case "range":
            let rangeUsage = "select range A B"
            guard position + 1 < last else { throw CommandError("missing A B (\(rangeUsage))", column: missingColumn) }
            let a = try number(words[position], "A"), b = try number(words[position + 1], "B")
            if b < a { throw fail("the range must not end before it starts (\(Self.show(a)))", at: words[position + 1]) }
            if position + 2 < last {
                throw fail("unexpected '\(Limits.echo(words[position + 2].text))' (\(rangeUsage))", at: words[position + 2])
            }
            kind = .range(a, b)
        case "pattern":
            kind = .pattern(try code(position, last, usage: "select pattern \"CODE\" [add]"))
        default:
            var message = "unknown selection '\(Limits.echo(kindWord.text))' (\(usage))"
            if let near = Self.nearest(kindWord.text, in: ["none", "all", "left", "right", "at", "range", "pattern"]) {
                message = "unknown selection '\(Limits.echo(kindWord.text))' (did you mean '\(near)'?)"
            }
            throw fail(message, at: kindWord)
        }
        return Command.Selection(kind, allTracks: allTracks, add: add)
    }

    /// The closest name within two edits, for "did you mean".
    static func nearest(_ word: String, in names: [String]) -> String? {
        // Within two edits of a name means at most two characters longer than the longest.
        guard word.unicodeScalars.count <= (names.map(\.count).max() ?? 0) + 2 else { return nil }
        // Names are ASCII, so scalars stand for characters, and compare far faster.
        let w = Array(word.unicodeScalars)
        var best: (String, Int)?
        var row: [Int] = [], next: [Int] = []
        for name in names {
            let n = Array(name.unicodeScalars)
            // Lengths more than two apart are more than two edits apart.
            if abs(n.count - w.count) > 2 { continue }
            row.removeAll(keepingCapacity: true)
            row.append(contentsOf: 0...n.count)
            for i in 1...max(w.count, 1) where !w.isEmpty {
                next.removeAll(keepingCapacity: true)
                next.append(i)
                for j in 1...max(n.count, 1) where !n.isEmpty {
                    next.append(Swift.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (w[i - 1] == n[j - 1] ? 0 : 1)))
                }
                swap(&row, &next)
            }
            let d = row[n.count]
            if d <= 2, d < w.count, best == nil || d < best!.1 { best = (name, d) }
        }
        return best?.0
    }
}

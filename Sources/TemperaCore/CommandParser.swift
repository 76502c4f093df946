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
            return try parser.parse()
        } catch var error as CommandError {
            error.line = line ?? error.line
            throw error
        }
    }

    /// Parses a whole script, one command a line (blank and comment lines skipped). Throws the first bad line's
    /// error, with its 1-based line and column; nothing is returned unless every line reads.
    public static func parseScript(_ text: String) throws -> [(line: Int, command: Command)] {
        var out: [(line: Int, command: Command)] = []
        var number = 0
        // Split on scalars: "\r\n" is one Character, and the lexer treats a trailing "\r" as a space.
        for line in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            if let command = try parse(String(String.UnicodeScalarView(line)), line: number) {
                out.append((number, command))
            }
        }
        return out
    }

    /// Every command form, for help screens and error messages.
    public static let forms: [String] = [
        "track add [NAME]", "track N", "track [N] mute [on|off]", "track [N] solo [on|off]",
        "track [N] gain G | track [N] gain GdB", "track [N] name NAME",
        "length TIME", "loop A B | loop on | loop off", "tempo X", "volume V",
        "slot N file=PATH [gain=G] [mode=oneshot|gate] [attack=MS] [release=MS]",
        "slot N note=MIDI|none [file=PATH] [decay=MS] [name=NAME] ...",
        "slot N sf2=PATH|default [program=P] [bank=B] note=MIDI ...",
        "slot N layer=MIN:MAX[:GAIN:PITCH]:PATH ... | layers=none [pan=P] [choke=G|none]",
        "kit list", "kit load NAME|PATH [from=N]",
        "cursor TIME", "marker add TIME [amp=A] [clip=C]", "pulse period=TIME count=N [start=TIME] [amp=A]",
        "mode clip on|off", "snap on|off", "clip C", "draw [amp=A]", "draw group N", "type \"CODE\"", "fill \"CODE\"", "spread \"CODE\"", "pattern \"CODE\"",
        "select none|all|left|right [tracks=all] [add]", "select at TIME | range A B | pattern \"CODE\" [add]",
        "shift BY", "scale FACTOR [handle=first|last]", "scale handle=K to=TIME", "subdivide N",
        "rotate", "reverse", "delete", "group store N", "group stamp N [times=K]", "undo [K]", "redo [K]",
        "save [PATH]",
        "temper span=TIME top=A:BEATS bottom=B:BEATS [map=I-J,I-J,...|none] [s=X]", "temper slider X",
        "temper stamp [times=K]", "temper group N", "temper apply", "temper morph times=K from=S0 to=S1",
        "temper preset swing|tigrigna|five-seven", "temper amp top|bottom BEAT A",
        "record [on|off]", "record take TIME:SLOT:VELOCITY ...",
        "beat TIME", "meter N", "bpm X", "grid N|off", "click on|off [level=L] | click level=L", "countin BARS",
        "amp A | amp +D | amp -D", "copy | cut | paste", "duplicate",
        "track [N] delete | track [N] duplicate | track [N] move M", "quantize N [strength=S]",
        "section add [NAME] [A B] [x R] [tempo=X]", "section N repeats R", "section N tempo X",
        "section N region A B", "section N name NAME", "section N move M", "section N delete",
        "section N duplicate",
        "song on|off", "song loop on|off", "temper fit [max=N] [span=TIME]",
    ] + GrooveCommand.forms

    /// The command names, for completion and suggestions.
    public static let names = ["track", "length", "loop", "tempo", "volume", "slot", "kit", "cursor", "marker", "pulse",
                               "mode", "snap", "clip", "draw", "type", "fill", "spread", "pattern", "select", "shift", "scale",
                               "subdivide", "rotate", "reverse", "delete", "group", "undo", "redo", "save", "temper",
                               "record", "section", "song",
                               "beat", "meter", "bpm", "grid", "click", "countin", "amp", "copy", "cut", "paste",
                               "duplicate", "quantize"] + GrooveCommand.names

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

/// One line's words and the cursor over them.
struct LineParser {
    typealias Word = CommandLexer.Word

    let lexer: CommandLexer
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
        try number(word, name, { (0...CommandParser.maxTime).contains($0) }, "must be from 0 to 10000000")
    }

    /// A value of the designer's slider, within `Limits.sliderRange`.
    func slider(_ word: Word, _ name: String) throws -> Double {
        let r = Limits.sliderRange
        return try number(word, name, { r.contains($0) }, "must be from \(Self.show(r.lowerBound)) to \(Self.show(r.upperBound))")
    }

    func amp(_ word: Word) throws -> Double {
        try number(word, "amp", { (0...1).contains($0) }, "must be from 0 to 1")
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

    mutating func parse() throws -> Command {
        let head = words[0]
        if head.quoted || head.equals != nil {
            throw fail("a command starts with its name, not '\(Limits.echo(head.text))'", at: head)
        }
        switch head.text {
        case "track": return try parseTrack()
        case "length":
            let usage = "length TIME"
            let v = try number(try next("TIME", usage: usage), "length", { $0 > 0 && $0 <= CommandParser.maxTime },
                               "must be greater than 0 and at most 10000000")
            try end(usage: usage)
            return .length(v)
        case "loop": return try parseLoop()
        case "tempo":
            let usage = "tempo X"
            let range = Transport.tempoRange
            let v = try number(try next("X", usage: usage), "tempo", { range.contains($0) },
                               "must be from \(Self.show(range.lowerBound)) to \(Self.show(range.upperBound))")
            try end(usage: usage)
            return .tempo(v)
        case "volume":
            let usage = "volume V"
            let v = try number(try next("V", usage: usage), "volume", { (0...1).contains($0) }, "must be from 0 to 1")
            try end(usage: usage)
            return .volume(v)
        case "slot": return try parseSlot()
        case "kit": return try parseKit()
        case "cursor":
            let usage = "cursor TIME"
            let v = try time(try next("TIME", usage: usage), "cursor")
            try end(usage: usage)
            return .cursor(v)
        case "marker":
            let usage = "marker add TIME [amp=A] [clip=C]"
            let verb = try next("'add'", usage: usage)
            guard isKeyword(verb, "add") else { throw fail("expected 'add', not '\(Limits.echo(verb.text))' (\(usage))", at: verb) }
            let t = try time(try next("TIME", usage: usage), "time")
            let opts = try options(["amp", "clip"], usage: usage)
            var content: Content?
            if let c = opts["clip"] {
                guard let parsed = Content(code: c.text) else {
                    throw fail("clip must be 1-16, +, - or ?, not '\(c.text)'", at: c)
                }
                content = parsed
            }
            return .markerAdd(time: t, amp: try opts["amp"].map(amp), content: content)
        case "pulse":
            let usage = "pulse period=TIME count=N [start=TIME] [amp=A]"
            let opts = try options(["period", "count", "start", "amp"], usage: usage)
            let period = try number(try required(opts, "period", usage: usage), "period",
                                    { $0 > 0 && $0 <= CommandParser.maxTime }, "must be greater than 0 and at most 10000000")
            let count = try integer(try required(opts, "count", usage: usage), "count", 1...Limits.maxAddedMarkers)
            return .pulse(period: period, count: count, start: try opts["start"].map { try time($0, "start") },
                          amp: try opts["amp"].map(amp))
        case "mode":
            let usage = "mode clip on|off"
            let what = try next("'clip'", usage: usage)
            guard isKeyword(what, "clip") else { throw fail("expected 'clip', not '\(Limits.echo(what.text))' (\(usage))", at: what) }
            let on = try onOff(try next("on or off", usage: usage), usage: usage)
            try end(usage: usage)
            return .clipMode(on)
        case "snap":
            let usage = "snap on|off"
            let on = try onOff(try next("on or off", usage: usage), usage: usage)
            try end(usage: usage)
            return .snap(on)
        case "clip":
            let usage = "clip C"
            let word = try next("C", usage: usage)
            guard let content = Content(code: word.text) else {
                throw fail("unknown clip '\(Limits.echo(word.text))' (clips are 1-16, + hold, - rest, ? random)", at: word)
            }
            try end(usage: usage)
            return .chooseClip(content)
        case "draw":
            if position < words.count, isKeyword(words[position], "group") {
                let usage = "draw group N"
                position += 1
                let n = try integer(try next("N", usage: usage), "group", GroupBank.range)
                try end(usage: usage)
                return .drawGroup(n)
            }
            let opts = try options(["amp"], usage: "draw [amp=A] | draw group N")
            return .draw(amp: try opts["amp"].map(amp))
        case "type":
            return .type(try code(1, words.count, usage: "type \"CODE\""))
        case "fill":
            return .fill(try code(1, words.count, usage: "fill \"CODE\""))
        case "spread":
            return .spread(try code(1, words.count, usage: "spread \"CODE\""))
        case "pattern":
            return .pattern(try code(1, words.count, usage: "pattern \"CODE\"").source)
        case "select": return try parseSelect()
        case "shift":
            let usage = "shift BY"
            let v = try number(try next("BY", usage: usage), "shift", { abs($0) <= CommandParser.maxTime },
                               "must be within 10000000")
            try end(usage: usage)
            return .shift(v)
        case "scale": return try parseScale()
        case "subdivide":
            let usage = "subdivide N"
            let n = try integer(try next("N", usage: usage), "subdivide", 1...10_000)
            try end(usage: usage)
            return .subdivide(n)
        case "rotate", "reverse", "delete":
            try end(usage: head.text)
            return head.text == "rotate" ? .rotate : head.text == "reverse" ? .reverse : .delete
        case "group": return try parseGroup()
        case "undo", "redo":
            let usage = "\(head.text) [K]"
            var k = 1
            if position < words.count { k = try integer(try next("K", usage: usage), "K", 1...Int.max) }
            try end(usage: usage)
            return head.text == "undo" ? .undo(k) : .redo(k)
        case "save":
            let usage = "save [PATH]"
            var path: String?
            if position < words.count {
                let word = try next("PATH", usage: usage)
                if word.text.isEmpty { throw fail("the path is empty", at: word) }
                path = word.text
            }
            try end(usage: usage)
            return .save(path)
        case "temper": return .temper(try parseTemper())
        case "record": return try parseRecord()
        case "section": return try parseSection()
        case "song": return try parseSong()
        case "beat":
            let usage = "beat TIME"
            let range = Transport.beatRange
            let v = try number(try next("TIME", usage: usage), "beat", { range.contains($0) },
                               "must be from \(Self.show(range.lowerBound)) to \(Self.show(range.upperBound)) seconds")
            try end(usage: usage)
            return .beat(v)
        case "meter":
            let usage = "meter N"
            let m = try integer(try next("N", usage: usage), "meter", Transport.meterRange)
            try end(usage: usage)
            return .meter(m)
        case "bpm":
            let usage = "bpm X"
            let v = try number(try next("X", usage: usage), "bpm", { $0 > 0 && $0.isFinite }, "must be greater than 0")
            try end(usage: usage)
            return .bpm(v)
        case "grid":
            let usage = "grid N|off"
            let word = try next("N or off", usage: usage)
            if isKeyword(word, "off") {
                try end(usage: usage)
                return .grid(nil)
            }
            let steps = try integer(word, "grid", Transport.gridRange)
            try end(usage: usage)
            return .grid(steps)
        case "click": return try parseClick()
        case "countin":
            let usage = "countin BARS"
            let bars = try integer(try next("BARS", usage: usage), "countin", Transport.countInRange)
            try end(usage: usage)
            return .countIn(bars)
        case "amp":
            let usage = "amp A | amp +D | amp -D"
            let word = try next("A", usage: usage)
            if word.equals != nil { throw fail("unexpected '\(word.text)' (\(usage))", at: word) }
            let relative = !word.quoted && (word.text.hasPrefix("+") || word.text.hasPrefix("-"))
            let v = relative
                ? try number(word, "amp", { (-1...1).contains($0) }, "must change by -1 to +1")
                : try amp(word)
            try end(usage: usage)
            return .amp(v, relative: relative)
        case "copy", "cut", "paste", "duplicate":
            try end(usage: head.text)
            switch head.text {
            case "copy": return .copy
            case "cut": return .cut
            case "paste": return .paste
            default: return .duplicate
            }
        case "prob", "ratchet", "humanize", "groove": return .groove(try parseGroove(head))
        case "quantize":
            let usage = "quantize N [strength=S]"
            let steps = try integer(try next("N", usage: usage), "quantize", 1...CommandParser.maxQuantize)
            let opts = try options(["strength"], usage: usage)
            let strength = try opts["strength"].map {
                try number($0, "strength", { (0...1).contains($0) }, "must be from 0 to 1")
            } ?? 1
            return .quantize(steps, strength: strength)
        default:
            var message = "unknown command '\(Limits.echo(head.text))'"
            if let near = Self.nearest(head.text, in: CommandParser.names) { message += " (did you mean '\(near)'?)" }
            throw fail(message, at: head)
        }
    }

    /// `record [on|off]` or `record take TIME:SLOT:VELOCITY ...`.
    mutating func parseRecord() throws -> Command {
        let usage = "record [on|off] | record take TIME:SLOT:VELOCITY ..."
        guard position < words.count else { return .recordArm(nil) }
        let word = words[position]
        guard isKeyword(word, "take") else {
            let on = try onOff(try next("on, off or take", usage: usage), usage: usage)
            try end(usage: usage)
            return .recordArm(on)
        }
        position += 1
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
            let velocity = try number(part(2), "hit velocity", { (0...1).contains($0) }, "must be from 0 to 1")
            hits.append(RecordedHit(time: time, slot: slot, velocity: velocity))
        }
        return .recordTake(hits)
    }

    mutating func parseTrack() throws -> Command {
        let usage = "track add [NAME] | track N | track [N] mute|solo [on|off] | track [N] gain G | track [N] name NAME"
            + " | track [N] delete|duplicate | track [N] move M"
        let word = try next("'add', a setting or a track number", usage: usage)
        if isKeyword(word, "add") {
            return .trackAdd(name: try trackName(example: "track add"))
        }
        // `track N` alone makes N current; `track N SETTING ...` addresses N without making it current. A
        // number never reads as a setting's name, so the two cannot be confused.
        var target: Int?
        var verb = word
        if !Self.trackSettings.contains(where: { isKeyword(word, $0) }) {
            if !word.quoted, word.equals == nil, !word.text.isEmpty,
               word.text.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) }) {
                throw fail(unknownTrackSetting(word.text, usage: usage), at: word)
            }
            let n = try integer(word, "track", 1...Int.max)
            guard position < words.count else { return .trackSelect(n) }
            target = n
            verb = words[position]
            position += 1
            guard Self.trackSettings.contains(where: { isKeyword(verb, $0) }) else {
                throw fail(unknownTrackSetting(verb.text, usage: usage), at: verb)
            }
        }
        switch verb.text {
        case "delete", "duplicate":
            try end(usage: "track [N] \(verb.text)")
            return verb.text == "delete" ? .trackDelete(track: target) : .trackDuplicate(track: target)
        case "move":
            let u = "track [N] move M"
            let to = try integer(try next("M", usage: u), "M", 1...Int.max)
            try end(usage: u)
            return .trackMove(track: target, to: to)
        case "mute", "solo":
            let u = "track [N] \(verb.text) [on|off]"
            var on: Bool?
            if position < words.count { on = try onOff(try next("on or off", usage: u), usage: u) }
            try end(usage: u)
            return verb.text == "mute" ? .trackMute(track: target, on: on) : .trackSolo(track: target, on: on)
        case "gain":
            return .trackGain(track: target, gain: try trackGain())
        default:
            let usage = "track [N] name NAME"
            guard let name = try trackName(example: "track name") else {
                throw CommandError("missing NAME (\(usage))", column: missingColumn)
            }
            if let problem = Self.nameProblem(name) { throw fail("track name: \(problem)", at: words[position - 1]) }
            return .trackName(track: target, name: name)
        }
    }

    /// The words after `track` that name a setting.
    static let trackSettings = ["mute", "solo", "gain", "name", "delete", "move", "duplicate"]

    func unknownTrackSetting(_ text: String, usage: String) -> String {
        if let near = Self.nearest(text, in: ["add"] + Self.trackSettings) {
            return "unknown track setting '\(Limits.echo(text))' (did you mean '\(near)'?)"
        }
        return "unknown track setting '\(Limits.echo(text))' (\(usage))"
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

    mutating func parseClick() throws -> Command {
        let usage = "click on|off [level=L] | click level=L"
        var on: Bool?
        if position < words.count, words[position].equals == nil {
            on = try onOff(try next("on or off", usage: usage), usage: usage)
        }
        let opts = try options(["level"], usage: usage)
        let level = try opts["level"].map { try number($0, "level", { (0...1).contains($0) }, "must be from 0 to 1") }
        if on == nil && level == nil { throw CommandError("missing on, off or level= (\(usage))", column: missingColumn) }
        return .click(on: on, level: level)
    }

    mutating func parseLoop() throws -> Command {
        let usage = "loop A B | loop on | loop off"
        let first = try next("A B, on or off", usage: usage)
        if isKeyword(first, "on") || isKeyword(first, "off") {
            try end(usage: usage)
            return .loop(on: first.text == "on")
        }
        let a = try time(first, "loop start")
        let second = try next("B", usage: usage)
        let b = try time(second, "loop end")
        guard b > a else { throw fail("the loop must end after it starts (\(Self.show(a)))", at: second) }
        try end(usage: usage)
        return .loopRange(a, b)
    }

    mutating func parseSlot() throws -> Command {
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
        return .slot(n, s)
    }

    mutating func parseKit() throws -> Command {
        let usage = "kit list | kit load NAME|PATH [from=N]"
        let what = try next("list or load", usage: usage)
        if isKeyword(what, "list") {
            try end(usage: usage)
            return .kitList
        }
        guard isKeyword(what, "load") else { throw fail("expected list or load, not '\(what.text)' (\(usage))", at: what) }
        let name = try next("NAME or PATH", usage: usage)
        if name.equals != nil && !name.quoted { throw fail("missing NAME or PATH before '\(name.text)' (\(usage))", at: name) }
        let opts = try options(["from"], usage: usage)
        let from = try opts["from"].map { try integer($0, "from", ClipSlot.range) } ?? 1
        return .kitLoad(name.text, from: from)
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

    mutating func parseSelect() throws -> Command {
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
        return .select(Command.Selection(kind, allTracks: allTracks, add: add))
    }

    mutating func parseScale() throws -> Command {
        let usage = "scale FACTOR [handle=first|last] | scale handle=K to=TIME"
        let first = try next("FACTOR", usage: usage)
        if first.equals != nil {
            position -= 1
            let opts = try options(["handle", "to"], usage: usage)
            let handle = try required(opts, "handle", usage: usage)
            let to = try required(opts, "to", usage: "scale handle=K to=TIME")
            return .scaleHandle(k: try integer(handle, "handle", 1...Int.max), to: try time(to, "to"))
        }
        let factor = try number(first, "factor", { $0 > 0 }, "must be greater than 0")
        let opts = try options(["handle"], usage: usage)
        var handle = Command.ScaleHandle.last
        if let h = opts["handle"] {
            switch h.text {
            case "first": handle = .first
            case "last": handle = .last
            default: throw fail("handle must be first or last here, not '\(Limits.echo(h.text))' (\(usage))", at: h)
            }
        }
        return .scale(factor: factor, handle: handle)
    }

    mutating func parseGroup() throws -> Command {
        let usage = "group store N | group stamp N [times=K]"
        let verb = try next("store or stamp", usage: usage)
        if isKeyword(verb, "store") {
            let n = try integer(try next("N", usage: "group store N"), "group", GroupBank.range)
            try end(usage: "group store N")
            return .groupStore(n)
        }
        if isKeyword(verb, "stamp") {
            let n = try integer(try next("N", usage: "group stamp N [times=K]"), "group", GroupBank.range)
            let opts = try options(["times"], usage: "group stamp N [times=K]")
            let times = try opts["times"].map { try integer($0, "times", 1...10_000) } ?? 1
            return .groupStamp(n, times: times)
        }
        throw fail("expected store or stamp, not '\(Limits.echo(verb.text))' (\(usage))", at: verb)
    }

    // MARK: - The rhythm designer

    mutating func parseTemper() throws -> TemperCommand {
        let usage = "temper span=TIME top=A:BEATS bottom=B:BEATS [map=I-J,...] [s=X] | temper slider X | "
            + "temper stamp [times=K] | temper group N | temper apply | temper morph times=K from=S0 to=S1 | "
            + "temper preset NAME"
        let verb = try next("a designer command", usage: usage)
        if verb.equals != nil {
            position -= 1
            return try parseTemperDefine()
        }
        switch verb.text {
        case "slider":
            let v = try slider(try next("X", usage: "temper slider X"), "slider")
            try end(usage: "temper slider X")
            return .slider(v)
        case "stamp":
            let opts = try options(["times"], usage: "temper stamp [times=K]")
            return .stamp(times: try opts["times"].map { try integer($0, "times", 1...10_000) } ?? 1)
        case "group":
            let n = try integer(try next("N", usage: "temper group N"), "group", GroupBank.range)
            try end(usage: "temper group N")
            return .group(n)
        case "apply":
            try end(usage: "temper apply")
            return .apply
        case "morph":
            let u = "temper morph times=K from=S0 to=S1"
            let opts = try options(["times", "from", "to"], usage: u)
            let times = try integer(try required(opts, "times", usage: u), "times", 1...10_000)
            return .morph(times: times, from: try slider(try required(opts, "from", usage: u), "from"),
                          to: try slider(try required(opts, "to", usage: u), "to"))
        case "amp":
            let u = "temper amp top|bottom BEAT A"
            let rowWord = try next("top or bottom", usage: u)
            guard let row = Temperament.RowName(rawValue: rowWord.text), !rowWord.quoted else {
                throw fail("expected top or bottom, not '\(Limits.echo(rowWord.text))' (\(u))", at: rowWord)
            }
            let beat = try integer(try next("BEAT", usage: u), "beat", 0...(CommandParser.maxDivision - 1))
            let a = try amp(try next("A", usage: u))
            try end(usage: u)
            return .amp(row: row, beat: beat, amp: a)
        case "fit": return try parseTemperFit()
        case "preset":
            let u = "temper preset swing|tigrigna|five-seven"
            let name = try next("NAME", usage: u)
            guard TemperamentPreset.names.contains(name.text) else {
                throw fail("unknown preset '\(Limits.echo(name.text))' (\(u))", at: name)
            }
            try end(usage: u)
            return .preset(name.text)
        default:
            var message = "unknown designer command '\(Limits.echo(verb.text))'"
            let verbs = ["slider", "stamp", "group", "apply", "morph", "preset", "amp", "fit"]
            if let near = Self.nearest(verb.text, in: verbs) { message += " (did you mean '\(near)'?)" }
            throw fail(message, at: verb)
        }
    }

    mutating func parseTemperDefine() throws -> TemperCommand {
        let usage = "temper span=TIME top=A:BEATS bottom=B:BEATS [map=I-J,...] [s=X]"
        let opts = try options(["span", "top", "bottom", "map", "s"], usage: usage)
        let span = try number(try required(opts, "span", usage: usage), "span",
                              { $0 > 0 && $0 <= CommandParser.maxTime }, "must be greater than 0 and at most 10000000")
        let (a, topBeats) = try row(try required(opts, "top", usage: usage), "top")
        let (b, bottomBeats) = try row(try required(opts, "bottom", usage: usage), "bottom")
        var map: [Temperament.Pair]?
        if let m = opts["map"] { map = try pairs(m, a: a, b: b) }
        let s = try opts["s"].map { try slider($0, "s") }
        return .define(span: span, top: a, topBeats: topBeats, bottom: b, bottomBeats: bottomBeats, map: map,
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
    func row(_ w: Word, _ name: String) throws -> (Int, TemperCommand.BeatChoice) {
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

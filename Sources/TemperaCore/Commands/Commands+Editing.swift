/// Editing the selection: amplitude, the clipboard, duplicate, quantize.
extension Command {
    /// `amp A` sets the selection's amplitude; `amp +D` / `amp -D` (relative) adds to it, clamped to 0...1.
    struct Amp: CommandBody {
        var value: Double
        var relative: Bool
        static let spec = CommandSpec("amp", usage: "amp A | amp +D | amp -D",
                                      help: "the selection's amplitude: set, or change clamped to 0..1", flags: .touchesSelection)
        static let examples = [Amp(value: 0.5, relative: false), Amp(value: 0.1, relative: true), Amp(value: -0.25, relative: true),
                               Amp(value: 0, relative: true)]
        static func parse(_ p: inout LineParser) throws -> Amp {
            let usage = spec.usage
            let word = try p.next("A", usage: usage)
            if word.equals != nil { throw p.fail("unexpected '\(word.text)' (\(usage))", at: word) }
            let relative = !word.quoted && (word.text.hasPrefix("+") || word.text.hasPrefix("-"))
            let v = relative
                ? try p.number(word, "amp", { (-1...1).contains($0) }, "must change by -1 to +1")
                : try p.amp(word)
            try p.end(usage: usage)
            return Amp(value: v, relative: relative)
        }
        var text: String {
            guard relative else { return "amp \(Command.number(value))" }
            return value < 0 || (value == 0 && value.sign == .minus) ? "amp \(Command.number(value))" : "amp +\(Command.number(value))"
        }
        func run(in session: Session) throws -> String? { try session.runAmp(value, relative: relative) }
    }

    /// `copy`: the selection to the clipboard (session state, not an undo step).
    struct Copy: WordsOnly {
        static let spec = CommandSpec("copy", usage: "copy", help: "the selection to the clipboard (a group keeping its span)", flags: .touchesSelection)
        func run(in session: Session) throws -> String? { try session.runCopy() }
    }

    /// `cut`: copy, then delete the selection (one step).
    struct Cut: WordsOnly {
        static let spec = CommandSpec("cut", usage: "cut", help: "copy the selection, then delete it", flags: .touchesSelection)
        func run(in session: Session) throws -> String? { try session.runCut() }
    }

    /// `paste`: the clipboard at the cursor on the current track (one step).
    struct Paste: WordsOnly {
        static let spec = CommandSpec("paste", usage: "paste", help: "the clipboard at the cursor on the current track")
        func run(in session: Session) throws -> String? { try session.runPaste() }
    }

    /// `duplicate`: the selection repeated right after its span.
    struct Duplicate: WordsOnly {
        static let spec = CommandSpec("duplicate", usage: "duplicate", help: "the selection again, right after its span", flags: .touchesSelection)
        func run(in session: Session) throws -> String? { try session.runDuplicate() }
    }

    /// `quantize N [strength=S]`: the selection moves toward the nearest 1/N of a beat by the fraction S.
    struct Quantize: CommandBody {
        var steps: Int
        var strength: Double
        static let spec = CommandSpec("quantize", usage: "quantize N [strength=S]",
                                      help: "the selection toward the nearest 1/N of a beat, by the fraction S (1)", flags: .touchesSelection)
        static let examples = [Quantize(steps: 4, strength: 1), Quantize(steps: 3, strength: 0.5)]
        static func parse(_ p: inout LineParser) throws -> Quantize {
            let usage = spec.usage
            let steps = try p.integer(try p.next("N", usage: usage), "quantize", 1...CommandParser.maxQuantize)
            let opts = try p.options(["strength"], usage: usage)
            let strength = try opts["strength"].map {
                try p.number($0, "strength", in: 0...1)
            } ?? 1
            return Quantize(steps: steps, strength: strength)
        }
        var text: String { "quantize \(steps)" + (strength == 1 ? "" : " strength=\(Command.number(strength))") }
        func run(in session: Session) throws -> String? { try session.runQuantize(steps, strength: strength) }
    }

    public static func amp(_ value: Double, relative: Bool) -> Command { Command(Amp(value: value, relative: relative)) }
    public static var copy: Command { Command(Copy()) }
    public static var cut: Command { Command(Cut()) }
    public static var paste: Command { Command(Paste()) }
    public static var duplicate: Command { Command(Duplicate()) }
    public static func quantize(_ steps: Int, strength: Double) -> Command { Command(Quantize(steps: steps, strength: strength)) }
}

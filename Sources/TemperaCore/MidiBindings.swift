import Foundation

/// What MIDI in's controllers and notes do beyond playing slots: each bound to a command line (`midi learn`,
/// `midi bind`), kept in `~/.config/tempera/midi` (the user's, not a document's: a controller is the studio's).
/// `{value}` in the line becomes the controller's value as 0..1 (CC value / 127), or the note's velocity.
///
/// The file is one binding a line, as `midi bind` takes it: `cc=1:7 volume {value}`, `note=10:36 play`.
public struct MidiBindings: Equatable, Sendable {
    /// A controller or a note on one channel.
    public enum Source: Hashable, Sendable, CustomStringConvertible {
        /// Channel 1...16, controller 0...127.
        case cc(channel: Int, number: Int)
        /// Channel 1...16, note 0...127.
        case note(channel: Int, number: Int)

        /// `cc=1:7`, `note=10:36`.
        public var description: String {
            switch self {
            case .cc(let c, let n): return "cc=\(c):\(n)"
            case .note(let c, let n): return "note=\(c):\(n)"
            }
        }

        /// Reads `cc=CH:NUM` or `note=CH:NUM`; nil when it is neither.
        public init?(_ text: String) {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, ["cc", "note"].contains(parts[0]) else { return nil }
            let numbers = parts[1].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
            guard numbers.count == 2, let c = numbers[0], let n = numbers[1], (1...16).contains(c), (0...127).contains(n)
            else { return nil }
            self = parts[0] == "cc" ? .cc(channel: c, number: n) : .note(channel: c, number: n)
        }
    }

    /// One binding: what it listens to and the command line it runs.
    public struct Binding: Equatable, Sendable {
        public var source: Source
        public var command: String
        public init(source: Source, command: String) {
            self.source = source
            self.command = command
        }
    }

    /// In the order they were made; one per source.
    public private(set) var bindings: [Binding] = []

    public init() {}

    /// Binds `source` to `command` (in place of what it ran before).
    public mutating func bind(_ source: Source, to command: String) {
        if let i = bindings.firstIndex(where: { $0.source == source }) {
            bindings[i].command = command
        } else {
            bindings.append(Binding(source: source, command: command))
        }
    }

    /// Unbinds `source`; false when it was not bound.
    @discardableResult
    public mutating func unbind(_ source: Source) -> Bool {
        guard let i = bindings.firstIndex(where: { $0.source == source }) else { return false }
        bindings.remove(at: i)
        return true
    }

    /// The command line a MIDI message runs: `{value}` replaced by `value` (0...1, shortest form); nil when the
    /// source is not bound.
    public func line(for source: Source, value: Double) -> String? {
        guard let b = bindings.first(where: { $0.source == source }) else { return nil }
        return b.command.replacingOccurrences(of: "{value}", with: DocumentFile.number(min(max(value, 0), 1)))
    }

    /// The file's text: one `SOURCE COMMAND` a line.
    public var text: String { bindings.map { "\($0.source) \($0.command)\n" }.joined() }

    /// The most bindings a file holds (one per controller and note of every channel is far fewer).
    public static let maxBindings = 4_096

    /// Reads the file's text; a bad line throws one line naming it (`midi:3: ...`).
    public static func parse(_ text: String, file: String = "midi") throws -> MidiBindings {
        var out = MidiBindings()
        var number = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let line = raw.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            if line.isEmpty || line.hasPrefix("#") { continue }
            let word = String(line.prefix { $0 != " " && $0 != "\t" })
            guard let source = Source(word) else {
                throw CommandError("\(file):\(number): '\(Limits.echo(word))' is not cc=CH:NUM or note=CH:NUM (channel 1-16, 0-127)")
            }
            let command = line.dropFirst(word.count).trimmingCharacters(in: .whitespaces)
            guard !command.isEmpty else { throw CommandError("\(file):\(number): \(source) binds no command") }
            guard out.bindings.count < maxBindings else { throw CommandError("\(file): more than \(maxBindings) bindings") }
            out.bind(source, to: command)
        }
        return out
    }
}

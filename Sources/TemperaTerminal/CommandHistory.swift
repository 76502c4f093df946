import Foundation

/// The `:` line's history: the lines accepted, oldest first, at most `limit` of them. One value, held by the
/// `Dispatcher` (`Dispatcher.commandHistory`); an open `Prompt` walks it with Up and Down. The editor keeps it between
/// runs in `$XDG_STATE_HOME/tempera/history`, one line each.
public struct CommandHistory: Hashable, Sendable {
    /// The accepted lines, oldest first.
    public private(set) var lines: [String]

    /// How many accepted lines are remembered.
    public static let limit = 200

    public init(_ lines: [String] = []) {
        self.lines = Array(lines.suffix(CommandHistory.limit))
    }

    /// Records an accepted line (blank lines and repeats of the last line are not kept).
    public mutating func remember(_ line: String) {
        let trimmed = line.trimmingCharacters(in: " ")
        guard !trimmed.isEmpty, lines.last != line else { return }
        lines.append(line)
        if lines.count > CommandHistory.limit { lines.removeFirst(lines.count - CommandHistory.limit) }
    }

    public static func file(_ paths: ConfigPaths) -> String { paths.state + "/history" }

    /// The history the last run kept (empty when there is none).
    public static func load(paths: ConfigPaths) -> CommandHistory {
        guard let text = ConfigPaths.read(file(paths)) else { return CommandHistory() }
        return CommandHistory(text.split(separator: "\n").map(String.init))
    }

    /// Best effort: a history that cannot be written is not worth an error on the way out.
    public func save(paths: ConfigPaths) {
        guard !lines.isEmpty else { return }
        try? FileManager.default.createDirectory(atPath: paths.state, withIntermediateDirectories: true)
        let text = lines.joined(separator: "\n") + "\n"
        _ = FileManager.default.createFile(atPath: CommandHistory.file(paths), contents: Data(text.utf8))
    }
}

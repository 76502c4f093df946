import Foundation

/// The `:` line's history, kept between runs in `$XDG_STATE_HOME/tempera/history`, one line each.
public enum CommandHistory {
    public static func file(_ paths: ConfigPaths) -> String { paths.state + "/history" }

    public static func load(paths: ConfigPaths) -> [String] {
        guard let text = ConfigPaths.read(file(paths)) else { return [] }
        return text.split(separator: "\n").map(String.init).suffix(Prompt.historyLimit)
    }

    /// Best effort: a history that cannot be written is not worth an error on the way out.
    public static func save(_ lines: [String], paths: ConfigPaths) {
        guard !lines.isEmpty else { return }
        try? FileManager.default.createDirectory(atPath: paths.state, withIntermediateDirectories: true)
        let text = lines.suffix(Prompt.historyLimit).joined(separator: "\n") + "\n"
        _ = FileManager.default.createFile(atPath: file(paths), contents: Data(text.utf8))
    }
}

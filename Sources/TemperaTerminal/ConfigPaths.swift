import Foundation
import TemperaStudio

/// Where tempera keeps its files, after the XDG base-directory convention: settings in
/// `$XDG_CONFIG_HOME/tempera` (default `~/.config/tempera`), recovery files in `$XDG_STATE_HOME/tempera`
/// (default `~/.local/state/tempera`).
public struct ConfigPaths: Sendable {
    /// Themes (`themes/NAME.theme`), key overrides (`keys`) and settings (`config`).
    public var config: String
    /// Autosaves and the `:` line's history.
    public var state: String

    /// Paths from an environment (the process's by default).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        func base(_ variable: String, _ fallback: String) -> String {
            // The XDG convention ignores relative paths.
            if let v = environment[variable], v.hasPrefix("/") { return v }
            return home + "/" + fallback
        }
        config = base("XDG_CONFIG_HOME", ".config") + "/tempera"
        state = base("XDG_STATE_HOME", ".local/state") + "/tempera"
    }

    public init(config: String, state: String) {
        self.config = config
        self.state = state
    }

    /// The user's key bindings, read after the shipped ones.
    public var keys: String { config + "/keys" }
    /// Settings such as `theme = light`.
    public var settings: String { config + "/config" }

    /// A file's text, or nil when it does not exist or cannot be read.
    public static func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

extension Autosave {
    /// The editor's recovery files: `autosave/` in the state folder.
    public init(paths: ConfigPaths, interval: Double = 5) {
        self.init(directory: paths.state + "/autosave", interval: interval)
    }
}

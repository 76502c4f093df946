/// The user's settings file, `~/.config/tempera/config`: `key = value` lines, `#` comments.
///
/// ```
/// theme = light
/// ```
public struct Settings: Equatable, Sendable {
    /// The theme's name (shipped or in `themes/`).
    public var theme = "dark"
    /// Where the sound goes: `pulse` (PulseAudio), `jack` (a JACK server) or `null` (nowhere).
    public var audio = "pulse"
    public static let audioBackends = ["pulse", "jack", "null"]
    /// How long one slot's sample may be once converted, seconds (nil: the default or the environment's).
    public var maxSampleSeconds: Double?
    /// How much memory one slot's decoding may take, MiB (nil: the default or the environment's).
    public var maxSampleMB: Double?

    public init() {}

    /// Parses a settings file; unknown keys are errors naming the line, so a typo does not pass silently.
    public static func parse(_ text: String, file: String) throws -> Settings {
        var s = Settings()
        var n = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            n += 1
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw ConfigError(file: file, line: n, "expected 'key = value'") }
            let key = parts[0].trimmingSpaces, value = parts[1].trimmingSpaces
            switch key {
            case "theme": s.theme = value
            case "audio":
                guard Self.audioBackends.contains(value) else {
                    throw ConfigError(file: file, line: n, "audio is pulse, jack or null (got '\(value)')")
                }
                s.audio = value
            case "max-sample-seconds", "max-sample-mb":
                guard let v = Double(value), v.isFinite, v > 0, v < 1e9 else {
                    throw ConfigError(file: file, line: n, "\(key) is a positive number (got '\(value)')")
                }
                if key == "max-sample-seconds" { s.maxSampleSeconds = v } else { s.maxSampleMB = v }
            default:
                throw ConfigError(file: file, line: n,
                                  "unknown setting '\(key)' (known: theme, audio, max-sample-seconds, max-sample-mb)")
            }
        }
        return s
    }

    /// The settings in force: the file if there is one, else the defaults.
    public static func load(paths: ConfigPaths) throws -> Settings {
        guard let text = ConfigPaths.read(paths.settings) else { return Settings() }
        return try parse(text, file: paths.settings)
    }
}

import TemperaShipped

/// How every `Role` looks: a foreground, a background and attributes, read from a small text format.
///
/// ```
/// # comment
/// base   = dark                      (optional: roles not given here come from that theme)
/// marker = bright-green on default bold
/// cursor = black on 214
/// ```
/// Colours: `default`, the eight names (`black red green yellow blue magenta cyan white`), their
/// `bright-` forms (`grey` is `bright-black`), or a number 0–255 of the 256-colour palette. Attributes:
/// `bold dim underline reverse italic blink standout`. A terminal with 8 colours gets the nearest of the
/// eight (bright colours become bold); one without colours gets the attributes, with `reverse` for roles
/// that set a background.
public struct Theme: Equatable, Sendable {
    /// A terminal colour: -1 is the terminal's default, 0–255 the palette.
    public struct Color: Hashable, Sendable {
        public var index: Int
        public init(_ index: Int) { self.index = index }
        public static let `default` = Color(-1)
    }

    public struct Attributes: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let bold = Attributes(rawValue: 1)
        public static let dim = Attributes(rawValue: 2)
        public static let underline = Attributes(rawValue: 4)
        public static let reverse = Attributes(rawValue: 8)
        public static let italic = Attributes(rawValue: 16)
        public static let blink = Attributes(rawValue: 32)
        public static let standout = Attributes(rawValue: 64)

        static let names: [(String, Attributes)] = [
            ("bold", .bold), ("dim", .dim), ("underline", .underline), ("reverse", .reverse),
            ("italic", .italic), ("blink", .blink), ("standout", .standout),
        ]
    }

    public struct Style: Hashable, Sendable {
        public var fg: Color
        public var bg: Color
        public var attributes: Attributes

        public init(fg: Color = .default, bg: Color = .default, _ attributes: Attributes = []) {
            self.fg = fg
            self.bg = bg
            self.attributes = attributes
        }

        /// The same style for a terminal with only the eight basic colours.
        public var eightColor: Style {
            var s = Style(fg: Theme.nearestBasic(fg), bg: Theme.nearestBasic(bg), attributes)
            if (8...15).contains(fg.index) { s.attributes.insert(.bold) }
            // Same colour on same colour would hide the text.
            if s.fg == s.bg, s.fg != .default { s.attributes.insert(.reverse); s.bg = .default }
            return s
        }

        /// The attributes alone, for a terminal without colours.
        public var monochrome: Attributes {
            var a = attributes
            if bg != .default { a.insert(.reverse) }
            return a
        }
    }

    public var name: String
    public var styles: [Role: Style]

    public init(name: String, styles: [Role: Style]) {
        self.name = name
        self.styles = styles
    }

    /// The style of a role; roles a theme leaves out look like `normal`.
    public subscript(role: Role) -> Style {
        styles[role] ?? styles[.normal] ?? Style()
    }

    /// Roles this theme does not style.
    public var missingRoles: [Role] { Role.allCases.filter { styles[$0] == nil } }

    // MARK: Reading

    static let colorNames = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]

    /// Reads a colour name or number; nil for anything else.
    public static func color(named text: String) -> Color? {
        let t = text.lowercased()
        if t == "default" || t == "none" { return .default }
        if t == "grey" || t == "gray" { return Color(8) }
        if let i = colorNames.firstIndex(of: t) { return Color(i) }
        if t.hasPrefix("bright-"), let i = colorNames.firstIndex(of: String(t.dropFirst(7))) { return Color(i + 8) }
        let digits = t.hasPrefix("color") ? String(t.dropFirst(5)) : t
        if let n = Int(digits), (0...255).contains(n) { return Color(n) }
        return nil
    }

    /// Parses a theme file. `base` resolves `base = NAME` lines; `file` names the file in errors.
    public static func parse(_ text: String, name: String, file: String,
                             base: (String) -> Theme? = { Theme.shipped($0) }) throws -> Theme {
        var styles: [Role: Style] = [:]
        var lineNumber = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            let halves = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard halves.count == 2 else {
                throw ConfigError(file: file, line: lineNumber, "expected 'role = colour [on colour] [attributes]'")
            }
            let key = halves[0].trimmingSpaces
            let words = halves[1].split(whereSeparator: \.isWhitespace).map(String.init)
            if key == "base" {
                guard words.count == 1, let parent = base(words[0]) else {
                    throw ConfigError(file: file, line: lineNumber, "unknown base theme '\(halves[1].trimmingSpaces)'")
                }
                for (role, style) in parent.styles where styles[role] == nil { styles[role] = style }
                continue
            }
            guard let role = Role(rawValue: key) else {
                throw ConfigError(file: file, line: lineNumber, "unknown role '\(key)'")
            }
            styles[role] = try parseStyle(words, file: file, line: lineNumber)
        }
        return Theme(name: name, styles: styles)
    }

    private static func parseStyle(_ words: [String], file: String, line: Int) throws -> Style {
        var style = Style()
        var i = 0
        func colour(_ w: String) throws -> Color {
            guard let c = color(named: w) else { throw ConfigError(file: file, line: line, "unknown colour '\(w)'") }
            return c
        }
        if i < words.count, Attributes.names.first(where: { $0.0 == words[i] }) == nil, words[i] != "on" {
            style.fg = try colour(words[i])
            i += 1
        }
        if i < words.count, words[i] == "on" {
            guard i + 1 < words.count else { throw ConfigError(file: file, line: line, "missing colour after 'on'") }
            style.bg = try colour(words[i + 1])
            i += 2
        }
        while i < words.count {
            guard let attr = Attributes.names.first(where: { $0.0 == words[i] }) else {
                throw ConfigError(file: file, line: line, "unknown attribute '\(words[i])'")
            }
            style.attributes.insert(attr.1)
            i += 1
        }
        return style
    }

    // MARK: Shipped and user themes

    /// The themes in the top-level `Themes/`, compiled in so the program finds them from any directory.
    public static let shippedNames = ["dark", "light", "high-contrast"]

    /// A shipped theme by name.
    public static func shipped(_ name: String) -> Theme? { shippedThemes[name] }

    /// The shipped themes, read once: a theme file may name its base on many lines, and each would otherwise
    /// read the base again.
    private static let shippedThemes: [String: Theme] = ShippedFiles.themes.reduce(into: [:]) { themes, entry in
        themes[entry.key] = try? parse(entry.value, name: entry.key, file: "Themes/\(entry.key).theme",
                                       base: { _ in nil })
    }

    /// The default theme.
    public static var dark: Theme { shipped("dark")! }

    /// A theme by name: `~/.config/tempera/themes/NAME.theme` first (a user may restyle a shipped theme), then
    /// the shipped ones. Throws for a malformed user theme; nil if no theme has that name.
    public static func named(_ name: String, paths: ConfigPaths = ConfigPaths()) throws -> Theme? {
        let userFile = paths.config + "/themes/" + name + ".theme"
        if let text = ConfigPaths.read(userFile) {
            // Roles a user theme leaves out come from the dark theme, so a short file can restyle a few roles.
            var theme = try parse(text, name: name, file: userFile)
            for (role, style) in (shipped(name) ?? dark).styles where theme.styles[role] == nil {
                theme.styles[role] = style
            }
            return theme
        }
        return shipped(name)
    }

    /// The basic colour (0–7) nearest a palette colour.
    static func nearestBasic(_ c: Color) -> Color {
        let i = c.index
        if i < 0 { return c }
        if i < 8 { return c }
        if i < 16 { return Color(i - 8) }
        let (r, g, b) = rgb(i)
        var best = 0, bestDistance = Int.max
        for k in 0..<8 {
            let (kr, kg, kb) = (k & 1 != 0 ? 205 : 0, k & 2 != 0 ? 205 : 0, k & 4 != 0 ? 205 : 0)
            let d = (r - kr) * (r - kr) + (g - kg) * (g - kg) + (b - kb) * (b - kb)
            if d < bestDistance { bestDistance = d; best = k }
        }
        return Color(best)
    }

    /// The xterm palette's RGB for colours 16–255.
    static func rgb(_ i: Int) -> (Int, Int, Int) {
        if i >= 232 {
            let v = 8 + (i - 232) * 10
            return (v, v, v)
        }
        let n = i - 16
        let steps = [0, 95, 135, 175, 215, 255]
        return (steps[n / 36], steps[(n / 6) % 6], steps[n % 6])
    }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}

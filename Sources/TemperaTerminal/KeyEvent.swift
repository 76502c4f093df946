/// A key as the key map names it: `a`, `A`, `?`, `space`, `enter`, `C-z`, `S-left`, `M-x`, `F1`.
///
/// Names are canonical, so a key read from the terminal and a key written in a key-map file compare equal:
/// modifiers come first in the order `C-`, `M-`, `S-`; a shifted letter is the capital letter; a control
/// letter is lower case (`C-z`).
public struct Key: Hashable, Sendable, CustomStringConvertible {
    /// The canonical name.
    public let name: String

    /// Named keys other than printable characters.
    public static let specialNames: Set<String> = Set([
        "space", "enter", "esc", "tab", "backspace", "delete", "insert", "home", "end", "pgup", "pgdn",
        "up", "down", "left", "right",
    ] + (1...12).map { "F\($0)" })

    private static let aliases: [String: String] = [
        "spc": "space", "return": "enter", "ret": "enter", "escape": "esc", "del": "delete", "ins": "insert",
        "pageup": "pgup", "pagedown": "pgdn", "bs": "backspace", "bksp": "backspace",
    ]

    private init(canonical: String) { name = canonical }

    /// A printable character typed without modifiers (space becomes `space`).
    public init(_ character: Character) {
        name = character == " " ? "space" : String(character)
    }

    /// Reads a key name as written in a key-map file; nil for a name tempera does not know.
    public init?(name text: String) {
        guard !text.isEmpty else { return nil }
        var rest = Substring(text)
        var ctrl = false, meta = false, shift = false
        // A lone "-" or "C--" must keep its dash, so only strip a prefix when something follows it.
        while rest.count > 2, rest.dropFirst().first == "-" {
            switch rest.first! {
            case "C", "c": ctrl = true
            case "M", "m", "A", "a": meta = true
            case "S", "s": shift = true
            default: return nil
            }
            rest = rest.dropFirst(2)
        }
        var base = String(rest)
        if base.count == 1 {
            let ch = base.first!
            if ch == " " { base = "space" }
            if shift, ch.isLetter, ch.isLowercase {
                base = ch.uppercased()
                shift = false
            }
            if ctrl, ch.isLetter { base = ch.lowercased() }
        } else {
            let lower = base.lowercased()
            let named = Key.aliases[lower] ?? lower
            if lower.count >= 2, lower.first == "f", let n = Int(lower.dropFirst()), (1...12).contains(n) {
                base = "F\(n)"
            } else if Key.specialNames.contains(named) {
                base = named
            } else {
                return nil
            }
        }
        self.init(canonical: Key.compose(ctrl: ctrl, meta: meta, shift: shift, base: base))
    }

    /// A key from its parts; `base` must already be canonical.
    public init(base: String, ctrl: Bool = false, meta: Bool = false, shift: Bool = false) {
        self.init(canonical: Key.compose(ctrl: ctrl, meta: meta, shift: shift, base: base))
    }

    private static func compose(ctrl: Bool, meta: Bool, shift: Bool, base: String) -> String {
        (ctrl ? "C-" : "") + (meta ? "M-" : "") + (shift ? "S-" : "") + base
    }

    /// The character this key types into a text field, if it types one.
    public var character: Character? {
        if name == "space" { return " " }
        return name.count == 1 ? name.first : nil
    }

    public var description: String { name }

    public static let enter = Key(canonical: "enter")
    public static let esc = Key(canonical: "esc")
    public static let space = Key(canonical: "space")
    public static let tab = Key(canonical: "tab")
    public static let backspace = Key(canonical: "backspace")
    public static let delete = Key(canonical: "delete")
    public static let up = Key(canonical: "up")
    public static let down = Key(canonical: "down")
    public static let left = Key(canonical: "left")
    public static let right = Key(canonical: "right")
    public static let home = Key(canonical: "home")
    public static let end = Key(canonical: "end")

    /// Parses a space-separated list of key names (for tests and scripted input): `"space C-z 3 enter"`.
    public static func sequence(_ text: String) -> [Key] {
        text.split(separator: " ").map { word in
            guard let key = Key(name: String(word)) else { preconditionFailure("unknown key name '\(word)'") }
            return key
        }
    }
}

/// A mouse report in screen cells (0-based).
public struct MouseEvent: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case press
        case release
        /// Motion with a button held.
        case drag
        case wheelUp
        case wheelDown
    }

    public var kind: Kind
    /// 1 left, 2 middle, 3 right; 0 when unknown (a release some terminals report without its button).
    public var button: Int
    public var x: Int
    public var y: Int
    public var shift: Bool
    public var ctrl: Bool
    public var alt: Bool

    public init(_ kind: Kind, x: Int, y: Int, button: Int = 1, shift: Bool = false, ctrl: Bool = false, alt: Bool = false) {
        self.kind = kind
        self.button = button
        self.x = x
        self.y = y
        self.shift = shift
        self.ctrl = ctrl
        self.alt = alt
    }
}

/// What a screen hands the editor.
public enum InputEvent: Hashable, Sendable {
    case key(Key)
    case mouse(MouseEvent)
    /// The terminal changed size; read the screen's size again.
    case resize
    /// No more input will come (the scripted input of a test ran out, or the terminal went away).
    case closed
}

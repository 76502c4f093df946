/// Helpers the commands' textual forms share.
extension Command {
    /// A number as the command language reads it back exactly (shortest round trip).
    static func number(_ v: Double) -> String { DocumentFile.number(v) }

    /// `track ` or `track N ` before a track setting.
    static func trackPrefix(_ track: Int?) -> String { track.map { "track \($0) " } ?? "track " }

    /// ` on`, ` off`, or nothing for a toggle.
    static func onOff(_ on: Bool?) -> String { on.map { $0 ? " on" : " off" } ?? "" }

    /// A section's name as `section add` reads it back: quoted when it could be read as a region bound or a
    /// repeat count (`"2"`, `"x3"`).
    static func quoteName(_ s: String) -> String {
        let plain = quote(s)
        guard plain == s else { return plain }
        if (try? Expression.evaluate(s)) != nil || LineParser.repeatCount(s) != nil { return "\"" + s + "\"" }
        return s
    }

    /// A word as the lexer reads it back: bare when it can be, else in quotes with `\"` and `\\` escaped.
    public static func quote(_ s: String) -> String {
        let plain = !s.isEmpty && s.unicodeScalars.allSatisfy { c in
            c.value > 0x20 && c != "\"" && c != "\\" && c != "#" && c != "=" && c != "(" && c != ")"
        }
        if plain { return s }
        var out = "\""
        for c in s.unicodeScalars {
            if c == "\"" || c == "\\" { out += "\\" }
            out.unicodeScalars.append(c)
        }
        return out + "\""
    }
}

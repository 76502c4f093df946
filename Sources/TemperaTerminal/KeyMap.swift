import TemperaShipped

/// Key bindings as data, after cmus: per context, a key names an action. The default map ships as the text
/// file `Sources/TemperaShipped/Keymaps/default.keys`; a user's `~/.config/tempera/keys` is read after it in the same format, so
/// later lines win.
///
/// ```
/// # context   key     action          [argument]
/// global      space   play
/// timeline    D       run delete
/// timeline    x       none            (unbinds)
/// ```
/// Contexts: `global` (always, after the others), `timeline` (keys on the timeline), `tab` (keys in the tab
/// area), `clips` and `groups` (those tabs, before `tab`), `designer` (the rhythm designer tab, before `tab`), `song` and
/// `pads` (those tabs, before `tab`), `prompt` (the `:` line and other prompts). The most specific context that
/// binds a key wins: a tab's own `E` comes before the global `E`.
public struct KeyMap: Hashable, Sendable {
    public enum Context: String, CaseIterable, Hashable, Sendable {
        case global, timeline, tab, clips, groups, designer, song, pads, prompt
    }

    /// One binding with where it came from.
    public struct Binding: Hashable, Sendable {
        public var context: Context
        public var key: Key
        public var action: Action
    }

    private var table: [Context: [Key: Action]] = [:]
    /// Bindings in force, in the order they were first defined (for help and hints).
    private var order: [Context: [Key]] = [:]

    public init() {}

    /// The shipped default map.
    // The shipped file is tested to parse; a failure here is a build defect, not user input.
    public static let standard = try! KeyMap().merging(ShippedFiles.defaultKeys, file: "Sources/TemperaShipped/Keymaps/default.keys")

    /// The default map plus the user's overrides, if the user has a keys file.
    public static func load(paths: ConfigPaths) throws -> KeyMap {
        var map = standard
        if let text = ConfigPaths.read(paths.keys) {
            map = try map.merging(text, file: paths.keys)
        }
        return map
    }

    /// This map with the lines of `text` applied on top. Throws a `ConfigError` naming `file` and the line
    /// for an unknown context, key or action; nothing is applied then.
    public func merging(_ text: String, file: String) throws -> KeyMap {
        var map = self
        var lineNumber = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = raw.drop(while: \.isWhitespace)
            // `#` starts a comment only at the start of a line, so `#` can itself be bound.
            if line.isEmpty || line.hasPrefix("#") { continue }
            var rest = Substring(line)
            func word() -> String? {
                rest = rest.drop(while: \.isWhitespace)
                guard !rest.isEmpty else { return nil }
                let w = rest.prefix(while: { !$0.isWhitespace })
                rest = rest.dropFirst(w.count)
                return String(w)
            }
            guard let contextName = word(), let keyName = word(), let actionName = word() else {
                throw ConfigError(file: file, line: lineNumber, "expected 'context key action [argument]'")
            }
            guard let context = Context(rawValue: contextName) else {
                throw ConfigError(file: file, line: lineNumber,
                                  "unknown context '\(contextName)' (global, timeline, tab, clips, groups, designer, song, pads, prompt)")
            }
            guard let key = Key(name: keyName) else {
                throw ConfigError(file: file, line: lineNumber, "unknown key '\(keyName)'")
            }
            let argument = String(rest.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
            guard let action = Action(named: actionName, argument) else {
                throw ConfigError(file: file, line: lineNumber, "unknown action '\(actionName)'")
            }
            if actionName == "run", argument.isEmpty {
                throw ConfigError(file: file, line: lineNumber, "'run' needs a command to run")
            }
            map.bind(key, to: action, in: context)
        }
        return map
    }

    /// Binds a key (the action `none` unbinds it).
    public mutating func bind(_ key: Key, to action: Action, in context: Context) {
        if action.name == "none" {
            table[context]?[key] = nil
            order[context]?.removeAll { $0 == key }
            return
        }
        if table[context, default: [:]][key] == nil { order[context, default: []].append(key) }
        table[context, default: [:]][key] = action
    }

    /// The action of a key in one context only.
    public func action(for key: Key, in context: Context) -> Action? { table[context]?[key] }

    /// The action of a key looked up through contexts in order (the first that binds it wins).
    public func action(for key: Key, in contexts: [Context]) -> Action? {
        for c in contexts { if let a = table[c]?[key] { return a } }
        return nil
    }

    /// Every binding in force, by context in declaration order.
    public var bindings: [Binding] {
        Context.allCases.flatMap { c in
            (order[c] ?? []).compactMap { k in table[c]?[k].map { Binding(context: c, key: k, action: $0) } }
        }
    }

    /// The keys bound to an action (with no argument) in a context.
    public func keys(for actionName: String, in context: Context) -> [Key] {
        (order[context] ?? []).filter { table[context]?[$0] == Action(actionName) }
    }

    /// A short label for each action's key, for the screen (`tool.shift` → `m`, `play` → `Space`): the first
    /// key bound in the timeline, global, tab, clips or designer context, in that order.
    public var hints: [String: String] {
        var out: [String: String] = [:]
        for c in [Context.timeline, .global, .tab, .clips, .designer, .song, .pads] {
            for k in order[c] ?? [] {
                guard let a = table[c]?[k] else { continue }
                // A key that runs a command line is that command's key (`run undo`: the undo key).
                let name = a.verb == .run ? a.argument : a.argument.isEmpty ? a.name : ""
                guard !name.isEmpty, out[name] == nil else { continue }
                out[name] = KeyMap.label(k)
            }
        }
        // The subdivision count has a pair of keys: shown together, down then up.
        if let down = out["subdivision.down"], let up = out["subdivision.up"] { out["subdivision"] = down + up }
        return out
    }

    /// How a key is written on screen: names of special keys capitalised (`Space`, `Enter`, `S-Left`).
    public static func label(_ key: Key) -> String {
        var parts = splitModifiers(key.name)
        guard var last = parts.popLast() else { return key.name }
        if last.count > 1, !last.hasPrefix("F") { last = last.prefix(1).uppercased() + last.dropFirst() }
        return (parts + [last]).joined(separator: "-")
    }
}

/// Splits `C-S-left` into modifiers and the key, keeping a final `-` key (`C--`).
private func splitModifiers(_ name: String) -> [String] {
    var parts: [String] = []
    var rest = Substring(name)
    while rest.count > 2, rest.dropFirst().first == "-" {
        parts.append(String(rest.prefix(1)))
        rest = rest.dropFirst(2)
    }
    parts.append(String(rest))
    return parts
}

import TemperaCore

/// What a key means: a typed `Verb` and, for `run` and `command`, an argument (`run delete`,
/// `command fill "`). Key maps bind keys to actions by the verb's name (the key map file format); the
/// dispatcher switches on the verb.
public struct Action: Hashable, Sendable, CustomStringConvertible {
    public var verb: Verb
    /// The rest of the key-map line after the name; empty for most actions.
    public var argument: String

    public init(_ verb: Verb, _ argument: String = "") {
        self.verb = verb
        self.argument = argument
    }

    /// The action named `name` in the key-map language: a verb (`play`, `tool.shift`), or a command of the
    /// command table (`undo`, `select all`, `w`), which becomes `run` with the command line; nil for a name
    /// that is neither.
    public init?(named name: String, _ argument: String = "") {
        if let verb = Verb(name: name) {
            self.init(verb, argument)
        } else if let line = Action.commandLines[name] {
            self.init(.run, argument.isEmpty ? line : line + " " + argument)
        } else if CommandTable.entry(named: name) != nil {
            self.init(.run, argument.isEmpty ? name : name + " " + argument)
        } else {
            return nil
        }
    }

    /// Key-map names of earlier versions whose keys only ran a command: a key file naming them still works,
    /// binding the key to `run` with the command line.
    static let commandLines: [String: String] = [
        "select.all": "select all", "select.none": "select none", "select.left": "select left",
        "select.right": "select right", "select.tracks": "select all tracks=all",
        "track.add": "track add", "track.mute": "track mute", "track.solo": "track solo",
    ]

    /// The action of a name known to exist (`Action("play")`); a name no verb has is a programming error.
    public init(_ name: String, _ argument: String = "") {
        guard let action = Action(named: name, argument) else { preconditionFailure("no action named '\(name)'") }
        self = action
    }

    /// The name in the key-map language (`tool.shift`).
    public var name: String { verb.name }

    public var description: String { argument.isEmpty ? name : name + " " + argument }

    /// Every action's name with its one-line description, in the order the help overlay lists them.
    public static var catalog: [(name: String, help: String)] { Verb.table.map { ($0.name, $0.help) } }

    /// The description of an action name, nil for unknown names.
    public static func describe(_ name: String) -> String? { Verb(name: name).map { Verb.helpText[$0]! } }

    /// What the rhythm designer's actions do, by key-map name, for the help overlay.
    static let designerHelp: [String: String] = Dictionary(
        DesignerAction.allCases.map { ($0.rawValue, $0.help) } + [("designer.edit", "edit the definition on the : line")],
        uniquingKeysWith: { a, _ in a })
}

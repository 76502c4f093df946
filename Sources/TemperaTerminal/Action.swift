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

    /// The action named `name` in the key-map language; nil for a name no verb has.
    public init?(named name: String, _ argument: String = "") {
        guard let verb = Verb(name: name) else { return nil }
        self.init(verb, argument)
    }

    /// The action of a name known to exist (`Action("play")`); a name no verb has is a programming error.
    public init(_ name: String, _ argument: String = "") {
        guard let verb = Verb(name: name) else { preconditionFailure("no action named '\(name)'") }
        self.init(verb, argument)
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

/// Undo, redo and save. On a shared document the host runs undo and redo per participant and saves
/// the shared file (`SharedDocument`).
extension Command {
    public struct Undo: CommandBody {
        public var count: Int
        public static let spec = CommandSpec("undo", usage: "undo [K]", help: "undo the last K steps (1)")
        public static let examples = [Undo(count: 1), Undo(count: 3)]
        public static func parse(_ p: inout LineParser) throws -> Undo { Undo(count: try p.count(usage: "undo [K]")) }
        public var text: String { count == 1 ? "undo" : "undo \(count)" }
        public func run(in session: Session) throws -> String? { try session.undo(count) }
    }

    public struct Redo: CommandBody {
        public var count: Int
        public static let spec = CommandSpec("redo", usage: "redo [K]", help: "redo the last K undone steps (1)")
        public static let examples = [Redo(count: 1), Redo(count: 2)]
        public static func parse(_ p: inout LineParser) throws -> Redo { Redo(count: try p.count(usage: "redo [K]")) }
        public var text: String { count == 1 ? "redo" : "redo \(count)" }
        public func run(in session: Session) throws -> String? { try session.redo(count) }
    }

    public struct Save: CommandBody {
        public var path: String?
        public static let spec = CommandSpec("save", usage: "save [PATH]",
                                             help: "save the document (to PATH: a copy there, the document staying on its file; a script writes it at the end)",
                                             aliases: ["w", "write"])
        public static let examples = [Save(path: nil), Save(path: "my song.tempera")]
        public static func parse(_ p: inout LineParser) throws -> Save {
            let usage = "save [PATH]"
            var path: String?
            if p.position < p.words.count {
                let word = try p.next("PATH", usage: usage)
                if word.text.isEmpty { throw p.fail("the path is empty", at: word) }
                path = word.text
            }
            try p.end(usage: usage)
            return Save(path: path)
        }
        public var text: String { path.map { "save \(Command.quote($0))" } ?? "save" }
        /// With a host (the editor) the host saves, asking what it asks (a file changed on disk, no file name yet).
        public func run(in session: Session) throws -> String? {
            if let host = session.host { return try host.save(path, thenQuit: false) }
            return try session.save(to: path)
        }
    }

    public static func undo(_ count: Int) -> Command { Command(Undo(count: count)) }
    public static func redo(_ count: Int) -> Command { Command(Redo(count: count)) }
    public static func save(_ path: String?) -> Command { Command(Save(path: path)) }
}

/// Why a command could not apply, or a line could not be read: one line for the user, naming where.
public struct CommandError: Error, Equatable, CustomStringConvertible, Sendable {
    public var message: String
    /// 1-based line of a script, when known.
    public var line: Int?
    /// 1-based column of the offending token, when known.
    public var column: Int?

    public init(_ message: String, line: Int? = nil, column: Int? = nil) {
        self.message = message
        self.line = line
        self.column = column
    }

    /// `line 3, column 9: unknown clip '17' (clips are 1-16)`.
    public var description: String {
        switch (line, column) {
        case let (l?, c?): return "line \(l), column \(c): \(message)"
        case let (l?, nil): return "line \(l): \(message)"
        case let (nil, c?): return "column \(c): \(message)"
        case (nil, nil): return message
        }
    }
}

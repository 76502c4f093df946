/// A mistake in a theme or key-map file: one line naming the file and the line, `keys:12: unknown action 'plya'`.
public struct ConfigError: Error, Equatable, CustomStringConvertible, Sendable {
    public var file: String
    public var line: Int
    public var message: String

    public init(file: String, line: Int, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { "\(file):\(line): \(message)" }
}

/// The command language (one command a line, `#` comments) read into `Command` values.
public enum CommandParser {
    /// Parses one line; nil for a blank or comment line. Errors name the column (and `line` when given).
    public static func parse(_ text: String, line: Int? = nil) throws -> Command? {
        throw CommandError("not available yet", line: line)
    }
}

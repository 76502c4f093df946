/// The document as a versioned, human-readable JSON file; saving is atomic.
public enum DocumentFile {
    /// The file's text.
    public static func encode(_ document: Document) -> String {
        fatalError("not available yet")
    }

    /// Reads a file's text; throws a one-line `CommandError` for malformed input or a newer version.
    public static func decode(_ text: String) throws -> Document {
        throw CommandError("not available yet")
    }

    /// Writes atomically: beside the target, fsync, rename.
    public static func save(_ document: Document, to path: String) throws {
        throw CommandError("not available yet")
    }

    public static func load(_ path: String) throws -> Document {
        throw CommandError("not available yet")
    }
}

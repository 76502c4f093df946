/// An editing session: one document, the cursor, the selection and the modes, and the undo history.
/// Every edit, from a key, the `:` line, a script or a test, goes through `run(_:)`.
///
/// - Warning: main (editor) thread only.
public final class Session {
    public private(set) var document: Document
    /// Where `save` without a path writes.
    public var path: String?
    /// Bumped on every change of the document (undo and redo included); listeners recompile when it moves.
    public private(set) var revision: Int = 0
    /// The cursor's time in seconds (tempo x1).
    public var cursor: Double = 0
    /// 0-based index of the current track.
    public var currentTrack: Int = 0
    /// Selected markers, per 0-based track index.
    public var selection: [Int: Set<MarkerID>] = [:]
    public var clipMode = false
    public var snap = true
    /// What drawing places.
    public var chosenClip: Content = .clip(1)

    public init(document: Document, path: String? = nil) {
        self.document = document
        self.path = path
    }

    /// Runs one command. Document changes become one undo step; a command that cannot apply throws and
    /// changes nothing. Returns a message for the user when there is something to say.
    @discardableResult
    public func run(_ command: Command) throws -> String? {
        throw CommandError("not available yet")
    }
}

/// A screen in memory: input comes from a script, frames are kept for inspection. What the editor's tests
/// drive, so that every pane and every key binding is testable as text.
///
/// - Warning: main (editor) thread only.
public final class MemoryScreen: Screen {
    public private(set) var width: Int
    public private(set) var height: Int
    public var unicode: Bool
    /// The last frame presented.
    public private(set) var canvas: Canvas
    /// Where the last frame put the cursor.
    public private(set) var cursor: (x: Int, y: Int)?
    /// How many frames were presented.
    public private(set) var frames = 0
    private var pending: [InputEvent] = []
    private var next = 0

    public init(width: Int = 100, height: Int = 30, unicode: Bool = true) {
        self.width = width
        self.height = height
        self.unicode = unicode
        canvas = Canvas(width: width, height: height)
    }

    /// Queues input events; they are read in order.
    public func feed(_ events: [InputEvent]) { pending.append(contentsOf: events) }

    /// Queues keys by name: `feed(keys: "space C-z 3 enter")`.
    public func feed(keys: String) { feed(Key.sequence(keys).map { .key($0) }) }

    /// Queues the characters of a string as typed keys.
    public func feed(typing text: String) { feed(text.map { .key(Key($0)) }) }

    /// Changes the size and queues the resize event a terminal would send.
    public func resize(width: Int, height: Int) {
        self.width = width
        self.height = height
        pending.append(.resize)
    }

    /// Events not read yet.
    public var unread: Int { pending.count - next }

    public func present(_ canvas: Canvas, cursor: (x: Int, y: Int)?) {
        self.canvas = canvas
        self.cursor = cursor
        frames += 1
    }

    /// The next scripted event; `.closed` once the script has run out, so an editor loop ends.
    public func readInput(timeout: Int) -> InputEvent? {
        guard next < pending.count else { return .closed }
        defer { next += 1 }
        return pending[next]
    }

    /// The last frame as text.
    public var text: String { canvas.text }
}

/// Made and used on one thread (the editor's): the compiler refuses to let it cross to another (a `@Sendable`
/// closure, a queue, a thread, a task), and nothing may declare it `Sendable` later.
@available(*, unavailable)
extension MemoryScreen: Sendable {}

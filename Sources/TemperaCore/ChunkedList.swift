/// A list that grows at its end and drops from either end in constant time, kept in chunks of 1,024 elements:
/// what an undo history needs (a full history drops its oldest step on every new one, where an array would move
/// every other step each time), and it never copies itself to grow, so a long history's peak is the history.
/// Indices run from 0 (the oldest) to `count - 1` (the newest).
public struct ChunkedList<Element>: RandomAccessCollection {
    static var chunkSize: Int { 1_024 }
    /// Full chunks but the first (elements from `head` on) and the last (up to `head + count`); `nil` elsewhere.
    private var chunks: [ContiguousArray<Element?>] = []
    /// Where element 0 is in the first chunk.
    private var head = 0
    public private(set) var count = 0

    public init() {}

    public init<S: Sequence>(_ elements: S) where S.Element == Element {
        for e in elements { append(e) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(i: Int) -> Element {
        get {
            precondition(i >= 0 && i < count, "ChunkedList index out of range")
            let j = head + i
            return chunks[j / Self.chunkSize][j % Self.chunkSize]!
        }
        set {
            precondition(i >= 0 && i < count, "ChunkedList index out of range")
            let j = head + i
            chunks[j / Self.chunkSize][j % Self.chunkSize] = newValue
        }
    }

    /// Adds `e` after the newest element.
    public mutating func append(_ e: Element) {
        let j = head + count
        if j / Self.chunkSize == chunks.count {
            chunks.append(ContiguousArray(repeating: nil, count: Self.chunkSize))
        }
        chunks[j / Self.chunkSize][j % Self.chunkSize] = e
        count += 1
    }

    /// Removes and returns the newest element; nil when there is none.
    public mutating func popLast() -> Element? {
        guard count > 0 else { return nil }
        count -= 1
        let j = head + count
        let e = chunks[j / Self.chunkSize][j % Self.chunkSize]
        chunks[j / Self.chunkSize][j % Self.chunkSize] = nil
        if count == 0 {
            removeAll()
        } else if j % Self.chunkSize == 0 {
            chunks.removeLast()
        }
        return e
    }

    /// Removes the newest element (there must be one).
    public mutating func removeLast() {
        precondition(popLast() != nil, "removeLast on an empty ChunkedList")
    }

    /// Removes the `k` oldest elements, releasing what they hold at once.
    public mutating func removeFirst(_ k: Int) {
        precondition(k >= 0 && k <= count, "ChunkedList.removeFirst beyond its count")
        guard k < count else { return removeAll() }
        for j in head..<(head + k) { chunks[j / Self.chunkSize][j % Self.chunkSize] = nil }
        head += k
        count -= k
        let emptied = head / Self.chunkSize
        if emptied > 0 {
            chunks.removeFirst(emptied)
            head -= emptied * Self.chunkSize
        }
    }

    /// Removes every element, and the chunks with them.
    public mutating func removeAll() {
        chunks = []
        head = 0
        count = 0
    }
}

extension ChunkedList: Sendable where Element: Sendable {}

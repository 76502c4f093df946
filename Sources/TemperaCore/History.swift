/// Undo and redo as a list of named steps, each holding the before and after state of only what it touched: a
/// track's changed markers, a slot, a group, the transport, the designer, the pattern text, the tracks it added
/// and the next marker id. Memory grows with the edits made, never with the document's size, up to `maxBytes`:
/// past that the oldest steps are dropped (`dropped` counts them; `takeNotice` says so once).
///
/// - Warning: main (editor) thread only (owned by a `Session`).
public struct History {
    /// One track's markers that a step changed: their states before (removed on redo) and after (removed on
    /// undo). A marker only in `after` was added; only in `before`, deleted.
    public struct TrackChange: Sendable {
        public var track: Int
        public var before: [Marker]
        public var after: [Marker]
    }

    /// A changed value of an indexed part of the document (a slot or a group counted from 1, a track from 0).
    public struct ValueChange<Value: Sendable>: Sendable {
        public var index: Int
        public var before: Value
        public var after: Value
    }

    /// Takes a track from holding the markers `old` to holding `new` (the same ids may appear in both).
    static func move(_ list: inout MarkerList, from old: [Marker], to new: [Marker]) {
        var incoming = [MarkerID: Marker](minimumCapacity: new.count)
        for m in new { incoming[m.id] = m }
        var removed: [MarkerID] = []
        var moves: [(old: Marker, new: Marker)] = []
        for m in old {
            guard let n = incoming.removeValue(forKey: m.id) else {
                removed.append(m.id)
                continue
            }
            moves.append((m, n))
        }
        let upserts = MarkerList.updateOrder(moves) + new.filter { incoming[$0.id] != nil }
        list.apply(removing: removed, upserting: upserts)
    }

    /// Steps that can be undone, oldest first. A full history drops its oldest on every new step: a list that
    /// drops from its front in constant time keeps that cheap.
    public private(set) var undoSteps = ChunkedList<Step>()
    /// Steps that can be redone, the next one last.
    public private(set) var redoSteps = ChunkedList<Step>()
    private var nextSerial = 1
    /// The bytes every step held costs (`Step.bytes`, undo and redo).
    public private(set) var bytes = 0
    /// The most bytes the steps may hold; past it the oldest are dropped (the newest step always stays).
    public let maxBytes: Int
    /// Steps dropped so far to keep within `maxBytes`.
    public private(set) var dropped = 0
    private var told = false

    public init(maxBytes: Int = Limits.maxHistoryBytes) {
        self.maxBytes = maxBytes
    }

    /// The one line to tell the user the first time steps are dropped; nil otherwise (and ever after).
    public mutating func takeNotice() -> String? {
        guard dropped > 0, !told else { return nil }
        told = true
        return "undo keeps the latest \(Limits.bytes(maxBytes)) of steps: the oldest are dropped from now on "
            + "(\(Limits.count(dropped)) so far)"
    }

    /// The serial of the state the document is in (0: the state it was loaded in).
    public var currentSerial: Int { undoSteps.last?.serial ?? 0 }

    /// Records a new step; whatever could be redone is dropped.
    mutating func push(_ step: Step) {
        var step = step
        step.serial = nextSerial
        nextSerial += 1
        undoSteps.append(step)
        bytes += step.bytes - redoSteps.reduce(0) { $0 + $1.bytes }
        redoSteps.removeAll()
        let k = History.oldestBeyond(maxBytes, in: undoSteps, total: bytes)
        guard k > 0 else { return }
        bytes -= undoSteps[..<k].reduce(0) { $0 + $1.bytes }
        undoSteps.removeFirst(k)
        dropped += k
    }

    /// How many of the oldest of `steps` (oldest first, costing `total` bytes together) to drop so that the rest
    /// cost at most `maxBytes`; the newest always stays.
    public static func oldestBeyond<C: RandomAccessCollection>(_ maxBytes: Int, in steps: C, total: Int) -> Int
        where C.Element == Step, C.Index == Int {
        var k = 0, left = total
        while k < steps.count - 1 && left > maxBytes {
            left -= steps[k].bytes
            k += 1
        }
        return k
    }

    /// Drops the oldest of `steps` (oldest first, costing `total` bytes together) beyond `maxBytes`: another
    /// stack of steps (a participant's own undo on a shared document) kept within the same bound. Returns the
    /// bytes dropped.
    @discardableResult
    public static func trim(_ steps: inout ChunkedList<Step>, total: Int, to maxBytes: Int = Limits.maxHistoryBytes) -> Int {
        let k = oldestBeyond(maxBytes, in: steps, total: total)
        let gone = steps[..<k].reduce(0) { $0 + $1.bytes }
        steps.removeFirst(k)
        return gone
    }

    /// How many steps were ever recorded: it moves on every new step, even when the oldest are dropped.
    public var recorded: Int { nextSerial - 1 }

    /// Undoes the last step; false when there is none.
    mutating func undo(_ doc: inout Document) -> Bool {
        guard let step = undoSteps.popLast() else { return false }
        step.undo(&doc)
        redoSteps.append(step)
        return true
    }

    /// Redoes the last undone step; false when there is none.
    mutating func redo(_ doc: inout Document) -> Bool {
        guard let step = redoSteps.popLast() else { return false }
        step.redo(&doc)
        undoSteps.append(step)
        return true
    }

    /// Markers held by every step, undo and redo: the history's memory in marker records.
    public var storedMarkers: Int {
        undoSteps.reduce(0) { $0 + $1.storedMarkers } + redoSteps.reduce(0) { $0 + $1.storedMarkers }
    }
}

import TemperaCore

extension Wire {
    /// Selected markers beyond which a reply's view goes out as a stream of pieces made as the connection takes
    /// them (`replyPieces`), rather than one line held whole in the participant's queue.
    public static let streamedSelection = 20_000

    /// The bytes of a cut line's piece, its mark and newline aside: a piece made here is never cut again.
    static let pieceBytes = 64 * 1024 - 2

    /// A reply with a view (as `reply(id:_:view:)` writes it) made in pieces as they are asked for: the line
    /// cut as the host cuts any long line (`+…`, the last `=…`), each piece made only when the connection is
    /// ready for it. `select all` over millions of markers then costs the participant's queue a few pieces at a
    /// time, not tens of megabytes at once (which made its sender count as fallen behind). The selection is
    /// sorted when the writer is made (on the document's queue); the pieces are made on the connection's.
    public struct ReplyWriter: Sendable {
        private var pending: [UInt8]
        private let tracks: [(Int, [MarkerID])]
        private var track = 0, index = 0, exhausted = false, done = false

        public init(id: Int?, _ outcome: SharedDocument.Outcome, view: Session.View) {
            var bare = view
            bare.selection = [:]
            let whole = Array(Wire.reply(id: id, outcome, view: bare).utf8)
            let tail = Array("[]}}".utf8)
            precondition(whole.suffix(tail.count).elementsEqual(tail), "a reply ends with its view's selection")
            pending = Array(whole.dropLast(tail.count - 1))
            tracks = view.selection.keys.sorted().map { ($0, view.selection[$0]!.sorted()) }
        }

        /// Adds the next run of the selection's text to `pending`; false once all of it (and the end) is there.
        private mutating func more() -> Bool {
            guard track < tracks.count else {
                if !exhausted {
                    pending += Array("]}}".utf8)
                    exhausted = true
                }
                return false
            }
            let (t, ids) = tracks[track]
            if index == 0 { pending += Array(((track > 0 ? "," : "") + "[\(t),[").utf8) }
            let end = min(ids.count, index + 4096)
            for k in index..<end {
                if k > 0 { pending.append(UInt8(ascii: ",")) }
                pending += Array(String(ids[k]).utf8)
            }
            index = end
            if index == ids.count {
                pending += Array("]]".utf8)
                track += 1
                index = 0
            }
            return true
        }

        /// The next piece, with its mark and newline; nil after the last.
        public mutating func next() -> [UInt8]? {
            guard !done else { return nil }
            while pending.count <= Wire.pieceBytes, more() {}
            let last = exhausted && pending.count <= Wire.pieceBytes
            let n = min(pending.count, Wire.pieceBytes)
            var out = [last ? UInt8(ascii: "=") : UInt8(ascii: "+")]
            out.reserveCapacity(n + 2)
            out += pending[..<n]
            out.append(0x0A)
            pending.removeFirst(n)
            done = last
            return out
        }
    }

    /// The reply's pieces, made as the connection takes them.
    public static func stream(_ writer: ReplyWriter) -> () -> [UInt8]? {
        var writer = writer
        return { writer.next() }
    }
}

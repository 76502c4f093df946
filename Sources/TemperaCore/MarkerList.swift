/// The markers of one track, always sorted by (time, id).
///
/// Stored as a chunked sorted array: runs of at most `chunkMax` markers, the position where each run starts,
/// and an id -> time index. Random access and binary search by time are O(log n); an insertion or removal
/// moves at most one chunk's elements plus one integer per chunk, so on a 100,000-marker track an edit that
/// touches ten markers costs about what it costs on a short track. The id index is split into buckets of
/// consecutive ids, so a copy of the list (the document is a value) shares every chunk and bucket an edit does
/// not touch.
///
/// Equality and hashing look at the markers in order only, never at how they happen to be chunked.
public struct MarkerList: RandomAccessCollection, Hashable, Sendable {
    /// Chunks are split when they grow past this many markers.
    @usableFromInline static let chunkMax = 1024
    /// Size of the chunks a bulk build makes (half of `chunkMax`, so inserts rarely split at once).
    @usableFromInline static let chunkTarget = 512
    /// A chunk this small is merged into a neighbour when the two fit in one chunk.
    @usableFromInline static let chunkMin = 128
    /// Ids per bucket of the id index: three quarters of a power of two, so a full bucket of consecutive ids
    /// (a loaded or pulsed track) fills its dictionary to the most it holds before growing, 16 bytes an id.
    @usableFromInline static let idsPerBucket: MarkerID = 384

    /// Non-empty sorted runs; their concatenation is the list.
    @usableFromInline var chunks: [[Marker]] = []
    /// `starts[c]` is the position of `chunks[c][0]`.
    @usableFromInline var starts: [Int] = []
    @usableFromInline var total = 0
    /// id -> time, bucketed by `id / idsPerBucket`.
    @usableFromInline var idTimes: [[MarkerID: Double]] = []

    public init() {}

    /// Builds a list from markers in any order. Ids should be unique; markers that share an id are all kept
    /// (in the order given among equals) so that a caller can renumber them, as `Document` does with markers
    /// built before they had ids, but such a list fails `checkInvariants` until then.
    public init<S: Sequence>(_ markers: S) where S.Element == Marker {
        var sorted = Array(markers)
        // Markers already in order (a loaded file, a rebuilt track) cost one pass, not a sort.
        var inOrder = true
        for i in sorted.indices.dropFirst() where !sorted[i - 1].precedes(sorted[i]) {
            inOrder = false
            break
        }
        if !inOrder { sorted.sort { $0.precedes($1) } }
        var c = 0
        while c < sorted.count {
            let end = Swift.min(c + Self.chunkTarget, sorted.count)
            starts.append(c)
            chunks.append(Array(sorted[c..<end]))
            c = end
        }
        total = sorted.count
        // Each bucket of the id index sized once, so no dictionary grows (and rehashes) while it fills.
        var bucketSizes: [Int] = []
        for m in sorted {
            let b = Self.bucket(m.id)
            if b >= bucketSizes.count {
                bucketSizes.append(contentsOf: repeatElement(0, count: b - bucketSizes.count + 1))
            }
            bucketSizes[b] += 1
        }
        idTimes = bucketSizes.map { [MarkerID: Double](minimumCapacity: $0) }
        for m in sorted { setTime(m.time, for: m.id) }
    }

    /// The list's runs, in order (each non-empty and sorted): a way to walk a long list a run at a time, as a
    /// snapshot streamed to a joining participant does.
    public var runs: [[Marker]] { chunks }

    /// Appends markers that all come after the last one, in order (a list built as it arrives, a run at a
    /// time, without holding the whole list twice). False, and nothing appended, when they are not in order.
    public mutating func append(inOrder run: [Marker]) -> Bool {
        guard !run.isEmpty else { return true }
        if let last = chunks.last?.last, !last.precedes(run[0]) { return false }
        for i in run.indices.dropFirst() where !run[i - 1].precedes(run[i]) { return false }
        var c = 0
        // The last run is topped up to the bulk size first, so runs arriving small do not make small chunks.
        if let last = chunks.indices.last, chunks[last].count < Self.chunkTarget {
            let take = Swift.min(Self.chunkTarget - chunks[last].count, run.count)
            chunks[last].append(contentsOf: run[0..<take])
            c = take
        }
        while c < run.count {
            let end = Swift.min(c + Self.chunkTarget, run.count)
            starts.append(total + c)
            chunks.append(Array(run[c..<end]))
            c = end
        }
        total += run.count
        for m in run { setTime(m.time, for: m.id) }
        return true
    }

    // MARK: Collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { total }
    public var count: Int { total }

    public subscript(position: Int) -> Marker {
        precondition(position >= 0 && position < total, "marker position out of range")
        let c = chunk(containing: position)
        return chunks[c][position - starts[c]]
    }

    /// Walks chunk by chunk, without a search per element.
    public struct Iterator: IteratorProtocol {
        @usableFromInline let chunks: [[Marker]]
        @usableFromInline var c = 0
        @usableFromInline var i = 0

        @inlinable init(_ chunks: [[Marker]]) { self.chunks = chunks }

        @inlinable
        public mutating func next() -> Marker? {
            while c < chunks.count {
                if i < chunks[c].count {
                    defer { i += 1 }
                    return chunks[c][i]
                }
                c += 1
                i = 0
            }
            return nil
        }
    }

    public func makeIterator() -> Iterator { Iterator(chunks) }

    public static func == (a: MarkerList, b: MarkerList) -> Bool {
        guard a.total == b.total else { return false }
        var x = a.makeIterator(), y = b.makeIterator()
        while let m = x.next() {
            if m != y.next() { return false }
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(total)
        for m in self { hasher.combine(m) }
    }

    // MARK: Search

    /// The first position whose marker has time >= `time` (endIndex if none).
    public func lowerBound(time: Double) -> Int {
        position { $0.time < time }
    }

    /// The first position whose marker has time > `time` (endIndex if none).
    public func upperBound(time: Double) -> Int {
        position { $0.time <= time }
    }

    /// The position of the marker with this id, if the track holds it. O(log n).
    public func index(of id: MarkerID) -> Int? {
        locate(id).map { starts[$0.chunk] + $0.offset }
    }

    /// The marker with this id, if the track holds it.
    public func marker(id: MarkerID) -> Marker? {
        locate(id).map { chunks[$0.chunk][$0.offset] }
    }

    /// The markers with these ids that the list holds. Many ids are found in one pass over the list instead
    /// of one search each.
    public func markers<C: Collection>(ids: C) -> [MarkerID: Marker] where C.Element == MarkerID {
        var found = [MarkerID: Marker](minimumCapacity: ids.count)
        if ids.count > Swift.max(64, total / 8) {
            let wanted = Set(ids)
            for m in self where wanted.contains(m.id) { found[m.id] = m }
        } else {
            for id in ids { if let m = marker(id: id) { found[id] = m } }
        }
        return found
    }

    /// Where the marker with this id is stored: its time from the id index, then one search by (time, id).
    @usableFromInline
    func locate(_ id: MarkerID) -> (chunk: Int, offset: Int)? {
        guard let t = time(of: id) else { return nil }
        let key = Marker(id: id, time: t)
        let c = chunkIndex { $0.precedes(key) }
        guard c < chunks.count else { return nil }
        return (c, Self.partition(chunks[c]) { $0.precedes(key) })
    }

    /// True when the track holds a marker with this id.
    public func contains(id: MarkerID) -> Bool {
        time(of: id) != nil
    }

    /// The time of the marker with this id. O(1).
    public func time(of id: MarkerID) -> Double? {
        let b = Self.bucket(id)
        return b < idTimes.count ? idTimes[b][id] : nil
    }

    /// The position of the marker nearest `time` among those satisfying `accept` (earlier wins a tie),
    /// searching outwards from `time`, so the cost is that of the markers skipped.
    public func nearest(to time: Double, where accept: (Marker) -> Bool = { _ in true }) -> Int? {
        let p = lowerBound(time: time)
        var right = p
        while right < total, !accept(self[right]) { right += 1 }
        var left = p - 1
        while left >= 0, !accept(self[left]) { left -= 1 }
        switch (left >= 0, right < total) {
        case (false, false): return nil
        case (true, false): return left
        case (false, true): return right
        case (true, true): return time - self[left].time <= self[right].time - time ? left : right
        }
    }

    // MARK: Mutation

    /// Inserts a marker at its sorted place and returns that position. A marker with the same id already in
    /// the list is replaced.
    @discardableResult
    public mutating func insert(_ marker: Marker) -> Int {
        if contains(id: marker.id) { remove(id: marker.id) }
        if chunks.isEmpty {
            chunks = [[marker]]
            starts = [0]
            total = 1
            setTime(marker.time, for: marker.id)
            return 0
        }
        // The first chunk whose last marker does not precede the new one; past the end: the last chunk.
        var c = chunkIndex { $0.precedes(marker) }
        if c == chunks.count { c -= 1 }
        let i = Self.partition(chunks[c]) { $0.precedes(marker) }
        chunks[c].insert(marker, at: i)
        total += 1
        for k in (c + 1)..<starts.count { starts[k] += 1 }
        setTime(marker.time, for: marker.id)
        let position = starts[c] + i
        if chunks[c].count > Self.chunkMax { split(c) }
        return position
    }

    /// Removes the marker with this id and returns it.
    @discardableResult
    public mutating func remove(id: MarkerID) -> Marker? {
        guard let (c, i) = locate(id) else { return nil }
        let removed = chunks[c].remove(at: i)
        total -= 1
        for k in (c + 1)..<starts.count { starts[k] -= 1 }
        idTimes[Self.bucket(id)][id] = nil
        if chunks[c].isEmpty {
            chunks.remove(at: c)
            starts.remove(at: c)
        } else if chunks[c].count < Self.chunkMin {
            mergeSmall(c)
        }
        return removed
    }

    /// Replaces the marker with the same id (its time may change; the order is kept). A marker not in the
    /// list is inserted. A marker that stays between its neighbours is replaced where it is, so moving a run
    /// of markers together (processed from the end they move towards) never shifts a chunk.
    public mutating func update(_ marker: Marker) {
        guard let (c, i) = locate(marker.id) else {
            insert(marker)
            return
        }
        let previous = i > 0 ? chunks[c][i - 1] : c > 0 ? chunks[c - 1].last : nil
        let next = i + 1 < chunks[c].count ? chunks[c][i + 1] : c + 1 < chunks.count ? chunks[c + 1].first : nil
        if previous.map({ $0.precedes(marker) }) ?? true, next.map({ marker.precedes($0) }) ?? true {
            chunks[c][i] = marker
            setTime(marker.time, for: marker.id)
        } else {
            remove(id: marker.id)
            insert(marker)
        }
    }

    /// The new states of markers the list holds, in the order that lets a run moved together be replaced in
    /// place by `update`: those moving later from the latest, those moving earlier from the earliest.
    static func updateOrder(_ moves: [(old: Marker, new: Marker)]) -> [Marker] {
        var later: [(old: Marker, new: Marker)] = [], earlier: [(old: Marker, new: Marker)] = []
        for move in moves {
            if move.new.time > move.old.time { later.append(move) } else { earlier.append(move) }
        }
        later.sort { $1.old.precedes($0.old) }
        earlier.sort { $0.old.precedes($1.old) }
        return later.map(\.new) + earlier.map(\.new)
    }

    /// Removes the markers with ids in `removed`, then puts each of `upserts` in (replacing the marker with
    /// its id, or inserting it). A batch that touches a large part of the list rebuilds it with one sort,
    /// cheaper than as many single moves; a small one is applied marker by marker, in the order given.
    public mutating func apply(removing removed: [MarkerID], upserting upserts: [Marker]) {
        if removed.count + upserts.count > Swift.max(64, total / 8) {
            var incoming = [MarkerID: Marker](minimumCapacity: upserts.count)
            for m in upserts { incoming[m.id] = m }
            let gone = Set(removed)
            var all: [Marker] = []
            all.reserveCapacity(total + upserts.count)
            for m in self {
                if let n = incoming.removeValue(forKey: m.id) {
                    all.append(n)
                } else if !gone.contains(m.id) {
                    all.append(m)
                }
            }
            for m in upserts where incoming[m.id] != nil { all.append(m) }
            self = MarkerList(all)
        } else {
            for id in removed { remove(id: id) }
            for m in upserts { update(m) }
        }
    }

    // MARK: Invariants

    /// Why the list breaks its invariants, for tests to call after every mutation.
    public struct InvariantViolation: Error, CustomStringConvertible {
        public var description: String
    }

    /// Throws when the storage is inconsistent: an empty or oversized chunk, a wrong chunk start, markers out
    /// of (time, id) order, or an id index that disagrees with the markers.
    public func checkInvariants() throws {
        func fail(_ s: String) -> InvariantViolation { InvariantViolation(description: s) }
        guard chunks.count == starts.count else { throw fail("\(chunks.count) chunks but \(starts.count) starts") }
        var position = 0
        var previous: Marker?
        var seen = 0
        for (c, chunk) in chunks.enumerated() {
            if chunk.isEmpty { throw fail("chunk \(c) is empty") }
            if chunk.count > Self.chunkMax { throw fail("chunk \(c) holds \(chunk.count) > \(Self.chunkMax)") }
            if starts[c] != position { throw fail("chunk \(c) starts at \(starts[c]), expected \(position)") }
            for m in chunk {
                if let p = previous, !p.precedes(m) {
                    throw fail("marker \(m.id) at \(m.time) is not after marker \(p.id) at \(p.time)")
                }
                guard time(of: m.id) == m.time else { throw fail("id index disagrees for marker \(m.id)") }
                previous = m
            }
            position += chunk.count
        }
        if position != total { throw fail("count \(total), but chunks hold \(position)") }
        for bucket in idTimes { seen += bucket.count }
        if seen != total { throw fail("id index holds \(seen) ids for \(total) markers") }
    }

    // MARK: Storage

    /// The chunk holding `position` (which must be valid).
    @usableFromInline
    func chunk(containing position: Int) -> Int {
        var lo = 0, hi = starts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if starts[mid] <= position { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// The first chunk whose last marker does not satisfy `before` (chunks.count if all do).
    @usableFromInline
    func chunkIndex(_ before: (Marker) -> Bool) -> Int {
        var lo = 0, hi = chunks.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if before(chunks[mid][chunks[mid].count - 1]) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The first position whose marker does not satisfy `before`, a predicate true for a prefix of the list.
    @usableFromInline
    func position(_ before: (Marker) -> Bool) -> Int {
        let c = chunkIndex(before)
        if c == chunks.count { return total }
        return starts[c] + Self.partition(chunks[c], before)
    }

    @usableFromInline
    static func partition(_ chunk: [Marker], _ before: (Marker) -> Bool) -> Int {
        var lo = 0, hi = chunk.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if before(chunk[mid]) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The bucket of the id index holding `id`.
    @inlinable static func bucket(_ id: MarkerID) -> Int { Int(id / idsPerBucket) }

    mutating func setTime(_ time: Double, for id: MarkerID) {
        let b = Self.bucket(id)
        if b >= idTimes.count { idTimes.append(contentsOf: repeatElement([:], count: b - idTimes.count + 1)) }
        idTimes[b][id] = time
    }

    mutating func split(_ c: Int) {
        let half = chunks[c].count / 2
        // Both halves copied to arrays of their own size: cutting the old one short would keep its capacity,
        // up to four times what the half holds.
        let head = Array(chunks[c][..<half]), tail = Array(chunks[c][half...])
        chunks[c] = head
        chunks.insert(tail, at: c + 1)
        starts.insert(starts[c] + half, at: c + 1)
    }

    mutating func mergeSmall(_ c: Int) {
        if c + 1 < chunks.count, chunks[c].count + chunks[c + 1].count <= Self.chunkMax {
            let next = chunks.remove(at: c + 1)
            starts.remove(at: c + 1)
            chunks[c].append(contentsOf: next)
        } else if c > 0, chunks[c - 1].count + chunks[c].count <= Self.chunkMax {
            let this = chunks.remove(at: c)
            starts.remove(at: c)
            chunks[c - 1].append(contentsOf: this)
        }
    }
}

extension MarkerList: CustomStringConvertible {
    /// `[id@time ...]`, cut short for long lists: readable in a failing test.
    public var description: String {
        let shown = prefix(12).map { "\($0.id)@\($0.time)\($0.content.map { ":" + $0.code } ?? "")" }
        return "[" + shown.joined(separator: " ") + (count > 12 ? " ... \(count) markers" : "") + "]"
    }
}

extension MarkerList {
    /// True when the markers with times in [a, b) are certainly the same in `other`: both have none there, or
    /// the chunks holding them are the very same storage (an edit copies a chunk it changes while another list
    /// still shares it). False means "maybe changed". Costs two binary searches and one comparison per chunk
    /// of the range, whatever the markers' number: how a player recompiles only the regions an edit touched.
    public func sharesMarkers(with other: MarkerList, from a: Double, to b: Double) -> Bool {
        let mine = chunkRange(from: a, to: b), theirs = other.chunkRange(from: a, to: b)
        guard let mine, let theirs else { return mine == nil && theirs == nil }
        guard mine.count == theirs.count else { return false }
        for (x, y) in zip(mine, theirs) where !Self.sameStorage(chunks[x], other.chunks[y]) { return false }
        return true
    }

    /// The chunks holding the markers with times in [a, b); nil when there are none.
    func chunkRange(from a: Double, to b: Double) -> ClosedRange<Int>? {
        let lo = lowerBound(time: a), hi = lowerBound(time: b)
        guard lo < hi else { return nil }
        return chunk(containing: lo)...chunk(containing: hi - 1)
    }

    static func sameStorage(_ x: [Marker], _ y: [Marker]) -> Bool {
        x.withUnsafeBufferPointer { xs in y.withUnsafeBufferPointer { ys in xs.baseAddress == ys.baseAddress } }
            && x.count == y.count
    }
}

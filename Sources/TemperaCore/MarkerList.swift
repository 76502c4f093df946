/// The markers of one track, always sorted by (time, id).
///
/// The interface is what the rest of tempera relies on: random access by position, binary search by time,
/// lookup by id, insertion and removal that keep the order. Costs grow with what an edit touches, not with
/// the length of the track.
public struct MarkerList: RandomAccessCollection, Hashable, Sendable {
    @usableFromInline var storage: [Marker] = []

    public init() {}

    /// Builds a list from markers in any order.
    public init<S: Sequence>(_ markers: S) where S.Element == Marker {
        storage = markers.sorted { $0.precedes($1) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count }
    public subscript(position: Int) -> Marker { storage[position] }

    /// The first position whose marker has time >= `time` (endIndex if none).
    public func lowerBound(time: Double) -> Int {
        var lo = 0, hi = storage.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if storage[mid].time < time { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The first position whose marker has time > `time` (endIndex if none).
    public func upperBound(time: Double) -> Int {
        var lo = 0, hi = storage.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if storage[mid].time <= time { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The position of the marker with this id, if the track holds it.
    public func index(of id: MarkerID) -> Int? {
        storage.firstIndex { $0.id == id }
    }

    /// Inserts a marker at its sorted place and returns that position.
    @discardableResult
    public mutating func insert(_ marker: Marker) -> Int {
        var lo = 0, hi = storage.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if storage[mid].precedes(marker) { lo = mid + 1 } else { hi = mid }
        }
        storage.insert(marker, at: lo)
        return lo
    }

    /// Removes the marker with this id and returns it.
    @discardableResult
    public mutating func remove(id: MarkerID) -> Marker? {
        guard let i = index(of: id) else { return nil }
        return storage.remove(at: i)
    }

    /// Replaces the marker with the same id (its time may change; the order is kept).
    public mutating func update(_ marker: Marker) {
        remove(id: marker.id)
        insert(marker)
    }
}

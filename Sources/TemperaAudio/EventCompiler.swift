import TemperaCore

/// Turns documents into the flat, sorted events the mixer reads, recompiling only the tracks that changed since
/// the previous document: an edit costs what it touches plus a linear merge, not a sort of the whole document.
/// The result is exactly `Schedule(document:sampleRate:).events`, flattened. Editor thread only.
final class EventCompiler {
    private struct Entry {
        var track: Track
        var start: Double
        var end: Double
        var events: [MixEvent]
    }

    private var entries: [Entry?] = []
    /// The last merge and which tracks went into it: reused when an edit changed no track's events (a tempo,
    /// volume or slot change).
    private var merged: [MixEvent] = []
    private var mergedTracks: [Bool] = []

    /// The document's events in schedule order.
    func events(for doc: Document) -> [MixEvent] {
        let (a, b) = Schedule.region(of: doc.transport)
        let gains = Schedule.trackGains(of: doc.tracks)
        if entries.count > doc.tracks.count { entries.removeLast(entries.count - doc.tracks.count) }
        while entries.count < doc.tracks.count { entries.append(nil) }
        var lists: [[MixEvent]] = []
        var changed: [Int] = []
        for (ti, track) in doc.tracks.enumerated() {
            if let e = entries[ti], e.start == a, e.end == b, e.track == track {
                if gains[ti] > 0 { lists.append(e.events) }
                continue
            }
            changed.append(ti)
            let compiled = Schedule.events(of: track, index: ti, start: a, end: b).map(MixEvent.init)
            entries[ti] = Entry(track: track, start: a, end: b, events: compiled)
            if gains[ti] > 0 { lists.append(compiled) }
        }
        let audible = gains.map { $0 > 0 }
        if audible == mergedTracks && changed.count <= 4 {
            // A few tracks edited: take their old events out and merge their new ones in, in linear time.
            guard !changed.isEmpty else { return merged }
            var isChanged = [Bool](repeating: false, count: doc.tracks.count)
            for ti in changed { isChanged[ti] = true }
            var result = merged.filter { !isChanged[Int($0.track)] }
            for ti in changed where audible[ti] { result = Self.merge(result, entries[ti]!.events) }
            merged = result
        } else {
            merged = Self.merge(lists)
            mergedTracks = audible
        }
        return merged
    }

    /// Merges two lists sorted in schedule order that share no track.
    static func merge(_ x: [MixEvent], _ y: [MixEvent]) -> [MixEvent] {
        if x.isEmpty { return y }
        if y.isEmpty { return x }
        var out: [MixEvent] = []
        out.reserveCapacity(x.count + y.count)
        x.withUnsafeBufferPointer { xs in
            y.withUnsafeBufferPointer { ys in
                var i = 0, j = 0
                while i < xs.count && j < ys.count {
                    if precedes(ys[j], xs[i]) { out.append(ys[j]); j += 1 } else { out.append(xs[i]); i += 1 }
                }
                out.append(contentsOf: xs[i...])
                out.append(contentsOf: ys[j...])
            }
        }
        return out
    }

    /// Merges lists each sorted in schedule order (and each from one track) with a binary heap of list heads.
    static func merge(_ lists: [[MixEvent]]) -> [MixEvent] {
        let nonEmpty = lists.filter { !$0.isEmpty }
        if nonEmpty.count <= 1 { return nonEmpty.first ?? [] }
        var out: [MixEvent] = []
        out.reserveCapacity(nonEmpty.reduce(0) { $0 + $1.count })
        var position = [Int](repeating: 0, count: nonEmpty.count)
        var heap = Array(nonEmpty.indices)
        func less(_ i: Int, _ j: Int) -> Bool { precedes(nonEmpty[i][position[i]], nonEmpty[j][position[j]]) }
        func siftDown(_ start: Int) {
            var k = start
            while true {
                let l = 2 * k + 1, r = l + 1
                var m = k
                if l < heap.count && less(heap[l], heap[m]) { m = l }
                if r < heap.count && less(heap[r], heap[m]) { m = r }
                if m == k { return }
                heap.swapAt(k, m)
                k = m
            }
        }
        for k in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(k) }
        while !heap.isEmpty {
            let i = heap[0]
            out.append(nonEmpty[i][position[i]])
            position[i] += 1
            if position[i] == nonEmpty[i].count {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            if !heap.isEmpty { siftDown(0) }
        }
        return out
    }

    /// `Schedule.precedes` on the flat events.
    @inline(__always)
    static func precedes(_ x: MixEvent, _ y: MixEvent) -> Bool {
        if x.time != y.time { return x.time < y.time }
        if x.track != y.track { return x.track < y.track }
        return x.isCut && !y.isCut
    }
}

extension MixEvent {
    init(_ e: Schedule.Event) {
        self.init(time: e.time, gateEnd: e.gateEnd, amp: e.amp, track: Int32(e.track), clip: Int32(e.clip),
                  randomKey: e.randomKey, isCut: e.kind == .cut, marker: e.marker)
    }
}

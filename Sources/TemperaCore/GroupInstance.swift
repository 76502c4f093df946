/// A linked instance of a group: the group (a pattern) placed on the timeline, playing the group's content
/// wherever it stands. Linked means one truth: the group's markers are stored once, in the groups bank; an
/// instance stores only where it starts, on which track (the group's first track; a multi-track group reaches
/// down from there) and how many times it plays end to end. Editing the group changes every instance.
///
/// Instances belong to the arrangement, so they are kept with the song (`Song.instances`): placing, moving or
/// unlinking one is one undo step of the song.
public struct GroupInstance: Hashable, Sendable {
    /// The group, 1...16.
    public var group: Int
    /// Seconds at x1 where the first pass starts.
    public var start: Double
    /// The track (from 0) the group's first track plays on.
    public var track: Int
    /// Passes end to end, at least 1.
    public var times: Int

    public init(group: Int, start: Double, track: Int, times: Int = 1) {
        self.group = group
        self.start = start
        self.track = track
        self.times = times
    }

    /// The most passes an instance plays.
    public static let maxTimes = 10_000

    /// How long the instance lasts with the group's content `g`: its span, `times` over.
    public func length(of g: Group) -> Double { Double(times) * max(g.span, 0) }

    /// Where the instance ends with the group's content `g`.
    public func end(of g: Group) -> Double { start + length(of: g) }

    /// The tracks the instance plays on with the group's content `g`: from its track down as far as the group
    /// reaches.
    public func tracks(of g: Group) -> ClosedRange<Int> {
        track...(track + (g.elements.map(\.trackOffset).max() ?? 0))
    }
}

extension Document {
    /// The document as it plays: every track's markers with those its linked instances place added, as plain
    /// markers under ids past the document's own (nothing else changes). A document without instances is
    /// returned as it is. `cache` keeps each group's elements sorted by track, so a publish after an edit sorts
    /// only the groups that changed.
    ///
    /// While a group is open as the timeline (`group edit`), the loop plays the group as shown, and the song
    /// plays the arrangement with the edit in every instance (`closingGroupEdit`).
    public func expandingInstances(cache: InstanceCache? = nil) -> Document {
        if song.editing != nil {
            return song.plays ? closingGroupEdit.expandingInstances(cache: cache) : self
        }
        guard !song.instances.isEmpty else { return self }
        var doc = self
        var added: [Int: [Marker]] = [:]
        var id = nextMarkerID
        let cache = cache ?? InstanceCache()
        for inst in song.instances where GroupBank.range.contains(inst.group) {
            let g = groups[inst.group]
            guard g.span > 0 || inst.times == 1 else { continue }
            for (offset, elements) in cache.elements(of: inst.group, g) {
                let t = inst.track + offset
                guard t >= 0, t < tracks.count else { continue }
                for k in 0..<max(inst.times, 1) {
                    let base = inst.start + Double(k) * g.span
                    for e in elements {
                        var m = Marker(id: id, time: base + e.offset, amp: e.amp, content: e.content)
                        m.extras = e.extras
                        id &+= 1
                        added[t, default: []].append(m)
                    }
                }
            }
        }
        for (t, markers) in added {
            doc.tracks[t].markers = MarkerList(Array(tracks[t].markers) + markers)
        }
        doc.nextMarkerID = id
        return doc
    }
}

/// Each group's elements by track offset, kept until the group changes: the event compiler holds one, so an edit
/// of one group re-sorts that group only.
///
/// - Warning: one thread at a time (the editor's, or the compiler's).
public final class InstanceCache: @unchecked Sendable {
    private var entries: [Int: (group: Group, byTrack: [(Int, [GroupElement])])] = [:]

    public init() {}

    /// Group `n`'s elements (content `g`) grouped by track offset, each list in time order.
    func elements(of n: Int, _ g: Group) -> [(Int, [GroupElement])] {
        if let e = entries[n], e.group == g { return e.byTrack }
        var by: [Int: [GroupElement]] = [:]
        for e in g.elements { by[e.trackOffset, default: []].append(e) }
        let list = by.keys.sorted().map { ($0, by[$0]!.sorted { $0.offset < $1.offset }) }
        entries[n] = (g, list)
        return list
    }
}

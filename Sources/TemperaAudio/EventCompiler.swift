import TemperaCore

/// Turns documents into the flat, sorted events the mixer reads, recompiling only what changed since the previous
/// document: per region played (the loop region, or each distinct region of the song's sections) and per track,
/// a region is recompiled for a track only when that track's markers inside it changed (judged by shared chunk
/// storage, see `MarkerList.sharesMarkers`), then merged with the other tracks' lists in linear time. An edit
/// so costs what it touches plus the merge of the regions holding it, not a sort of the whole document.
/// The loop's result is exactly `Schedule(document:sampleRate:).events`; a song region's is
/// `SongSchedule.regionEvents`, flattened. Editor thread only.
final class EventCompiler {
    private struct Entry {
        var track: Track
        var events: [MixEvent]
    }

    /// One region's compiled tracks and their merge.
    private struct RegionCache {
        var entries: [Entry?] = []
        /// The last merge and which tracks went into it: reused when an edit changed no track's events here.
        var merged: [MixEvent] = []
        var mergedTracks: [Bool] = []
        /// `merged` in raw memory for snapshots, made when first asked for after `merged` changed.
        var buffer: RegionEvents?
    }

    private var regions: [SongSchedule.Region: RegionCache] = [:]

    /// A cycle track compiled: the track as it was (to tell whether its markers changed) and its events.
    private struct CycleEntry {
        var track: Track
        var compiled: CycleEvents?
    }

    /// Which cycle track: a track and the stretch of the timeline it cycles over (its own cycle, else the region).
    private struct CycleKey: Hashable {
        var track: Int
        var start: Double
        var end: Double
    }

    /// The cycle tracks compiled, each recompiled only when its markers in its cycle, its cycle or its ratio
    /// changed: a track with its own cycle is compiled once for every region that plays it.
    private var cycleCache: [CycleKey: CycleEntry] = [:]
    /// Every slot's layer ranges when the cached events chose their layers: when they change, every event is
    /// compiled afresh (a slot edit, rare next to marker edits).
    private var layerRanges: [[Double]] = []
    /// Each group's elements sorted for expanding its linked instances (`Document.expandingInstances`).
    private let instanceCache = InstanceCache()

    /// Drops the compiled events when a slot's velocity layers changed since they were compiled.
    private func checkLayers(_ doc: Document) {
        let ranges = doc.slots.map { $0.layers.flatMap { [$0.min, $0.max] } }
        if ranges != layerRanges {
            regions.removeAll()
            cycleCache.removeAll()
            layerRanges = ranges
        }
    }

    /// The loop's events in schedule order (the region of `Schedule.region(of:)`).
    func events(for doc: Document) -> [MixEvent] {
        checkLayers(doc)
        let (a, b) = Schedule.region(of: doc.transport)
        let key = SongSchedule.Region(start: a, end: b)
        let events = regionEvents(doc, key, Schedule.trackGains(of: doc.tracks))
        regions = regions.filter { $0.key == key }
        return events
    }

    /// A region's events in raw memory: the same buffer as last time when nothing in the region changed, so a
    /// publish copies only the regions an edit touched.
    private func regionBuffer(_ doc: Document, _ key: SongSchedule.Region, _ gains: [Double]) -> RegionEvents {
        let events = regionEvents(doc, key, gains)
        if let buffer = regions[key]?.buffer { return buffer }
        let buffer = RegionEvents(events)
        regions[key]!.buffer = buffer
        return buffer
    }

    /// What the document plays: the loop as one endless section, or the song's sections over their regions'
    /// events (each distinct region once, in order of first use).
    func playback(for document: Document) -> Playback {
        let doc = document.expandingInstances(cache: instanceCache)
        checkLayers(doc)
        guard doc.song.plays else {
            let (a, b) = Schedule.region(of: doc.transport)
            let key = SongSchedule.Region(start: a, end: b)
            let buffer = regionBuffer(doc, key, Schedule.trackGains(of: doc.tracks))
            regions = regions.filter { $0.key == key }
            var playback = Playback.loop(events: buffer, start: a, end: b, transport: doc.transport)
            var used = Set<CycleKey>()
            let cycles = cycles(doc, a, b, Schedule.trackGains(of: doc.tracks), used: &used)
            cycleCache = cycleCache.filter { used.contains($0.key) }
            playback.sections[0].cycleCount = cycles.count
            playback.cycles = cycles
            return playback
        }
        let timing = SongTiming(song: doc.song, tempo: doc.transport.tempo, map: doc.transport.tempoMap)
        let gains = Schedule.trackGains(of: doc.tracks)
        var placed: [SongSchedule.Region: RegionEvents] = [:]
        var lists: [RegionEvents] = []
        var sections: [MixSection] = []
        var cycles: [CycleEvents] = []
        var cyclesOf: [SongSchedule.Region: (first: Int, count: Int)] = [:]
        var used = Set<CycleKey>()
        for (j, s) in doc.song.sections.enumerated() {
            let key = SongSchedule.Region(start: s.start, end: s.end, choice: s.choice)
            // A section choosing its tracks or groups plays its own version of the tracks.
            let played = doc.playing(s)
            if placed[key] == nil {
                let buffer = regionBuffer(played, key, gains)
                placed[key] = buffer
                lists.append(buffer)
            }
            let t = timing.sections[j], buffer = placed[key]!
            if cyclesOf[key] == nil {
                let mine = self.cycles(played, s.start, s.end, gains, used: &used)
                cyclesOf[key] = (cycles.count, mine.count)
                cycles += mine
            }
            sections.append(MixSection(start: s.start, span: t.span, tempo: t.tempo, repeats: t.repeats, offset: t.offset,
                                       passesBefore: t.passesBefore, clock: t.clock, events: buffer.pointer,
                                       eventCount: buffer.count, cycleFirst: cyclesOf[key]!.first,
                                       cycleCount: cyclesOf[key]!.count, meter: s.meter?.count ?? 0,
                                       pulse: s.meter?.pulse(beat: doc.transport.beat) ?? 0, groups: s.meter?.groupMask ?? 0,
                                       unit: s.meter?.unit ?? 0))
        }
        regions = regions.filter { placed[$0.key] != nil }
        cycleCache = cycleCache.filter { used.contains($0.key) }
        return Playback(regions: lists, sections: sections, song: true, looping: doc.song.loop, total: timing.total,
                        totalPasses: timing.totalPasses, pieces: timing.pieces, cycles: cycles)
    }

    /// The cycle tracks over [a, b) with their events for the mixer (at most `MixCycle.capacity`), the audible
    /// tracks with a cycle or a ratio as `CycleTrack.of` finds them, from the cache where a track's markers in its
    /// cycle, its cycle and its ratio did not change. `used` collects the cache entries read.
    private func cycles(_ doc: Document, _ a: Double, _ b: Double, _ gains: [Double],
                        used: inout Set<CycleKey>) -> [CycleEvents] {
        var out: [CycleEvents] = []
        for (ti, track) in doc.tracks.enumerated() where gains[ti] > 0 && !track.followsRegion {
            let key = CycleKey(track: ti, start: track.cycle?.start ?? a, end: track.cycle?.end ?? b)
            used.insert(key)
            let compiled: CycleEvents?
            if let e = cycleCache[key], e.track.cycle == track.cycle, e.track.ratio == track.ratio,
               e.track.markers.sharesMarkers(with: track.markers, from: key.start, to: key.end) {
                cycleCache[key]!.track = track
                compiled = e.compiled
            } else {
                compiled = CycleTrack(track, index: ti, start: a, end: b).map { CycleEvents($0, slots: doc.slots) }
                cycleCache[key] = CycleEntry(track: track, compiled: compiled)
            }
            if let compiled { out.append(compiled) }
            if out.count == MixCycle.capacity { break }
        }
        return out
    }

    /// One region's events in schedule order, from the cache where the tracks' markers there did not change.
    private func regionEvents(_ doc: Document, _ key: SongSchedule.Region, _ gains: [Double]) -> [MixEvent] {
        var cache = regions[key] ?? RegionCache()
        // Take the entry out so the arrays inside are not shared while they change.
        regions[key] = nil
        defer { regions[key] = cache }
        let (a, b) = (key.start, key.end)
        if cache.entries.count > doc.tracks.count { cache.entries.removeLast(cache.entries.count - doc.tracks.count) }
        while cache.entries.count < doc.tracks.count { cache.entries.append(nil) }
        var lists: [[MixEvent]] = []
        var changed: [Int] = []
        for (ti, track) in doc.tracks.enumerated() {
            // A track with its own cycle reads its markers there; its cycle and ratio are part of what it plays.
            let (ma, mb) = track.cycle.map { ($0.start, $0.end) } ?? (a, b)
            if let e = cache.entries[ti], e.track.cycle == track.cycle, e.track.ratio == track.ratio,
               e.track.markers.sharesMarkers(with: track.markers, from: ma, to: mb) {
                // Keep the newest track so its chunks, not the old ones, are what the next edit is compared with.
                cache.entries[ti]!.track = track
                if gains[ti] > 0 { lists.append(e.events) }
                continue
            }
            changed.append(ti)
            let compiled = Schedule.events(of: track, index: ti, start: a, end: b).map { MixEvent($0, slots: doc.slots) }
            cache.entries[ti] = Entry(track: track, events: compiled)
            if gains[ti] > 0 { lists.append(compiled) }
        }
        let audible = gains.map { $0 > 0 }
        if audible == cache.mergedTracks && changed.count <= 4 {
            // A few tracks edited: take their old events out and merge their new ones in, in linear time.
            guard !changed.isEmpty else { return cache.merged }
            cache.buffer = nil
            var isChanged = [Bool](repeating: false, count: doc.tracks.count)
            for ti in changed { isChanged[ti] = true }
            var result = cache.merged.filter { !isChanged[Int($0.track)] }
            for ti in changed where audible[ti] { result = Self.merge(result, cache.entries[ti]!.events) }
            cache.merged = result
        } else {
            cache.merged = Self.merge(lists)
            cache.mergedTracks = audible
            cache.buffer = nil
        }
        return cache.merged
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
    /// An event whose slot has one sound (layer 0); a `?` gets -1, its layer picked when its slot is drawn.
    init(_ e: Schedule.Event) {
        self.init(time: e.time, gateEnd: e.gateEnd, amp: e.amp, track: Int32(e.track), clip: Int32(e.clip),
                  randomKey: e.randomKey, isCut: e.kind == .cut, layer: e.clip == 0 ? -1 : 0, marker: e.marker,
                  probability: e.probability, from: e.from, to: e.to, hit: Int32(e.hit),
                  cycle: Int32(truncatingIfNeeded: e.cycle))
    }

    /// An event with its velocity layer chosen from the slots (`ClipSlot.layer(for:)`): the layer is part of the
    /// compiled schedule, so the audio thread only reads it.
    init(_ e: Schedule.Event, slots: [ClipSlot]) {
        self.init(e)
        if e.kind == .onset, (1...slots.count).contains(e.clip), let k = slots[e.clip - 1].layer(for: e.amp) {
            layer = Int32(k)
        }
    }
}

/// What a snapshot plays: events and the sections over them (the loop is one endless section).
struct Playback {
    /// The regions' events the sections point into (kept alive by the snapshot).
    var regions: [RegionEvents]
    var sections: [MixSection]
    /// The song's sections (else the loop).
    var song: Bool
    /// Loop on (the loop), or song loop on (the song).
    var looping: Bool
    /// Σ D_i (0 for the loop).
    var total: Double
    /// Σ R_i (0 for the loop).
    var totalPasses: Int
    /// The tempo pieces the sections' clocks read.
    var pieces: [TempoPiece] = []
    /// The cycle tracks the sections point into.
    var cycles: [CycleEvents] = []

    /// The loop over [start, end) as one section repeated without end; its frames are the loop's `(k·span + t)/tempo`
    /// (through the tempo map when it has points).
    static func loop(events: RegionEvents, start: Double, end: Double, transport t: Transport) -> Playback {
        let (clock, pieces) = Schedule.clock(of: t, start: start, end: end)
        return Playback(regions: [events],
                        sections: [MixSection(start: start, span: end - start, tempo: clock.tempo, repeats: Int.max,
                                              offset: 0, passesBefore: 0, clock: clock, events: events.pointer,
                                              eventCount: events.count)],
                        song: false, looping: t.loopOn, total: 0, totalPasses: 0, pieces: pieces)
    }
}

/// One cycle track's events for the mixer in raw memory, immutable, shared by every snapshot that plays it
/// until an edit changes the track; freed (on the editor thread) with the last snapshot and cache holding it.
final class CycleEvents {
    let length: Double
    let ratio: Double
    let pointer: UnsafeMutablePointer<MixEvent>
    let count: Int

    init(_ track: CycleTrack, slots: [ClipSlot]) {
        length = track.length
        ratio = track.ratio
        count = track.events.count
        pointer = .allocate(capacity: max(count, 1))
        for (i, e) in track.events.enumerated() { (pointer + i).initialize(to: MixEvent(e, slots: slots)) }
    }

    var mix: MixCycle { MixCycle(length: length, ratio: ratio, events: pointer, eventCount: count) }

    deinit { pointer.deallocate() }
}

/// One region's events in raw memory, immutable, shared by every snapshot that plays the region until an edit
/// changes it; freed (on the editor thread) with the last snapshot and compiler cache holding it.
final class RegionEvents {
    let pointer: UnsafeMutablePointer<MixEvent>
    let count: Int

    init(_ events: [MixEvent]) {
        count = events.count
        pointer = .allocate(capacity: max(events.count, 1))
        events.withUnsafeBufferPointer { if let p = $0.baseAddress { pointer.initialize(from: p, count: $0.count) } }
    }

    deinit { pointer.deallocate() }
}

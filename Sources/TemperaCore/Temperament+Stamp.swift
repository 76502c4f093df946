/// What a temperament's result becomes in a document: stamped markers, a group, retimed markers, and the
/// audition that plays the designer's current state in the loop. Pure functions; any thread.
extension Temperament {
    /// The slider of each cycle of a morph: linear from `from` in the first cycle to `to` in the last
    /// (one cycle plays `from`).
    public static func morphSliders(times: Int, from: Double, to: Double) -> [Double] {
        guard times > 1 else { return times == 1 ? [from] : [] }
        let last = Double(times - 1)
        // Both ends exact: cycle 0 is `from`, the last cycle is `to`.
        return (0..<times).map { c in c == times - 1 ? to : from + (to - from) * (Double(c) / last) }
    }

    /// The markers of `sliders.count` cycles in a row from `start`, cycle c one span after cycle c - 1 and
    /// played at `sliders[c]`, each dot with its interpolated amplitude and `content`. Ids are 0 (an edit
    /// assigns fresh ones). Markers are in time order within each cycle.
    public func stampMarkers(at start: Double, sliders: [Double], content: Content?) -> [Marker] {
        var out: [Marker] = []
        for (c, s) in sliders.enumerated() {
            let origin = start + Double(c) * span
            for beat in result(slider: s) {
                out.append(Marker(id: 0, time: origin + beat.time, amp: beat.amp, content: content))
            }
        }
        return out
    }

    /// The result at slider `s` as a group: offsets from the first dot, one span per stamp.
    public func group(slider s: Double? = nil, content: Content?) -> Group {
        let beats = result(slider: s)
        guard let first = beats.first else { return Group() }
        return Group(elements: beats.map { GroupElement(offset: $0.time - first.time, amp: $0.amp, content: content) },
                     span: max(span, beats[beats.count - 1].time - first.time))
    }

    /// The markers retimed to the result at slider `s`, cycle after cycle: with b dots, the markers in time
    /// order go in cycles of b, and the k-th marker of cycle c moves to the first marker's time plus c spans
    /// plus the k-th dot's offset from the first dot. Ids, amplitudes and contents stay.
    /// - Throws: `CommandError` when the count is not a multiple of the dot count.
    public func retimed(_ markers: [Marker], slider s: Double? = nil) throws -> [Marker] {
        let beats = result(slider: s)
        let sorted = markers.sorted { $0.precedes($1) }
        guard !sorted.isEmpty else { throw CommandError("temper apply: no markers selected on the current track") }
        guard !beats.isEmpty, sorted.count % beats.count == 0 else {
            let m = sorted.count, b = beats.count
            throw CommandError("temper apply: \(m) marker\(m == 1 ? "" : "s") selected, the temperament has \(b) beat\(b == 1 ? "" : "s") (select \(b) or a multiple of \(b))")
        }
        let origin = sorted[0].time, first = beats[0].time
        return sorted.enumerated().map { i, m in
            var m = m
            let cycle = i / beats.count
            m.time = origin + Double(cycle) * span + (beats[i % beats.count].time - first)
            return m
        }
    }

    /// The document with track `track`'s markers inside the loop region [A, B) replaced by the result at the
    /// stored slider, repeated every span from A (dots of neighbouring cycles that land in the region, as an
    /// extrapolated slider can put them, included). The new markers take, in order and cycling, the contents
    /// of the replaced markers that had one, or `fallback` when none had; their amplitudes come from the
    /// temperament. Markers outside the region and other tracks are untouched. The document is returned
    /// unchanged for a bad track, an empty result or a temperament that does not validate.
    ///
    /// The editor hands this document to the audio engine while the designer is open, so each slider step is
    /// heard from the next event on; the session's document itself is not changed.
    ///
    /// A new marker's id depends only on its cycle and pair (`auditionID`), so a slider step keeps every dot's
    /// id even when dots cross or enter and leave the region: the player knows a dot that already sounded in
    /// this pass and does not sound it again when the step moves it past the playhead.
    public func audition(document: Document, track: Int, fallback: Content = .clip(1)) -> Document {
        guard document.tracks.indices.contains(track), (try? validate()) != nil else { return document }
        let beats = result()
        guard let minT = beats.first?.time, let maxT = beats.last?.time else { return document }
        let a = document.transport.loopStart, b = document.transport.loopEnd
        guard b > a else { return document }
        var doc = document
        let old = doc.tracks[track].markers
        let lo = old.lowerBound(time: a), hi = old.lowerBound(time: b)
        var contents = old[lo..<hi].compactMap(\.content)
        if contents.isEmpty { contents = [fallback] }
        var kept = Array(old[..<lo])
        kept += old[hi...]
        // Cycles whose dots can land in [A, B): c from the one where the latest dot first reaches A to the one
        // where the earliest dot passes B.
        let first = ((-maxT) / span).rounded(.down), last = ((b - a - minT) / span).rounded(.up)
        // A tiny span in a long loop would mean billions of cycles: such an audition is not built (the document
        // plays as it is), as no command could stamp that many markers either.
        guard first.isFinite, last.isFinite,
              (last - first + 1) * Double(beats.count) <= Double(Limits.maxAddedMarkers) else { return document }
        let firstCycle = Int(first), lastCycle = Int(last)
        var fresh: [Marker] = []
        if firstCycle <= lastCycle {
            for c in firstCycle...lastCycle {
                let origin = a + Double(c) * span
                for beat in beats {
                    let t = origin + beat.time
                    guard t >= a, t < b else { continue }
                    fresh.append(Marker(id: Self.auditionID(cycle: c, pair: beat.pair, pairs: beats.count,
                                                                  after: doc.nextMarkerID), time: t,
                                        amp: beat.amp, content: nil))
                }
            }
        }
        fresh = fresh.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        for k in fresh.indices { fresh[k].content = contents[k % contents.count] }
        doc.tracks[track].markers = MarkerList(kept + fresh)
        return doc
    }

    /// Audition ids are counted from a multiple of this at least this far past the document's next id: clear of
    /// every id the document holds and of the ids it hands out next (markers stamped or drawn while the audition
    /// plays), the same while those are handed out (so an edit elsewhere keeps the dots' ids too), and close
    /// enough that a marker list's id index stays small.
    static let auditionIDBlock = 1 << 20

    /// The id of the audition marker of pair `pair` in cycle `cycle` (from the loop start; negative before it),
    /// for a document whose next id is `next`.
    static func auditionID(cycle: Int, pair: Int, pairs: Int, after next: MarkerID) -> MarkerID {
        let base = (Int(next) / auditionIDBlock + 2) * auditionIDBlock
        let zigzag = cycle >= 0 ? 2 * cycle : -2 * cycle - 1   // 0, -1, 1, -2, ... -> 0, 1, 2, 3, ...
        return MarkerID(truncatingIfNeeded: base + zigzag * pairs + pair)
    }
}

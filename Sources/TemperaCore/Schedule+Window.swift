extension Schedule {
    /// The onsets of `loops` passes handed to `body` in order, exactly as `onsets(pass:)` lists them, but compiled
    /// a window of at most about `window` markers a track at a time: a document of millions of markers is listed
    /// without its whole schedule in memory. A document with a track on its own cycle or ratio (whose events run
    /// across the passes) is compiled whole.
    public static func forEachOnset(document: Document, sampleRate: Double, loops: Int, window: Int = 16_384,
                                     _ body: (Onset) throws -> Void) rethrows {
        let doc = document.expandingInstances()
        if doc.tracks.contains(where: { !$0.followsRegion }) {
            let schedule = Schedule(document: doc, sampleRate: sampleRate)
            for k in 0..<max(loops, 0) { for onset in schedule.onsets(pass: k) { try body(onset) } }
            return
        }
        let schedule = Schedule.withoutEvents(doc, sampleRate: sampleRate)
        for k in 0..<max(loops, 0) {
            try schedule.forEachWindow(of: doc.tracks, window: max(window, 1)) { e in
                guard e.kind == .onset, sounds(probability: e.probability, seed: schedule.seed, key: e.randomKey, pass: k)
                else { return }
                try body(Onset(loop: k, track: e.track + 1, clip: schedule.clip(of: e, pass: k), amp: e.amp,
                               time: schedule.time(pass: k, time: e.time), frame: schedule.frame(pass: k, time: e.time)))
            }
        }
    }

    /// The schedule of a document with its region, clock, track gains and seed, but no events: the arithmetic
    /// of times and frames without compiling a marker.
    public static func withoutEvents(_ document: Document, sampleRate: Double) -> Schedule {
        var shell = document
        shell.song.instances = []
        for t in shell.tracks.indices { shell.tracks[t].markers = MarkerList() }
        return Schedule(document: shell, sampleRate: sampleRate)
    }

    /// The region's events of `tracks` (which must follow the region) in schedule order, made window by window:
    /// each window ends where some track's next `window` markers end, and the ratchet hits a window's markers
    /// place past its end wait for the window they fall in.
    func forEachWindow(of tracks: [Track], window: Int, _ body: (Event) throws -> Void) rethrows {
        let audible = tracks.indices.filter { trackGains[$0] > 0 }
        var position = tracks.map { $0.markers.lowerBound(time: start) }
        let ends = tracks.map { $0.markers.lowerBound(time: end) }
        var carried: [Event] = []
        var from = start
        while from < end {
            var to = end
            for t in audible where position[t] + window < ends[t] { to = Swift.min(to, tracks[t].markers[position[t] + window].time) }
            // Markers sharing one instant are never split: past `from`, always.
            if to <= from { to = from.nextUp }
            var events = carried
            for t in audible {
                let markers = tracks[t].markers
                let upTo = to >= end ? ends[t] : Swift.min(markers.lowerBound(time: to), ends[t])
                events += Schedule.regionEvents(of: markers, index: t, start: start, end: end, positions: position[t]..<upTo)
                position[t] = upTo
            }
            events.sort(by: Schedule.precedes)
            let limit = to - start
            carried = []
            for e in events {
                if to < end, e.time >= limit { carried.append(e) } else { try body(e) }
            }
            from = to
        }
        for e in carried { try body(e) }
    }
}

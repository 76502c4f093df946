import TemperaCore

extension HydrogenSong {
    /// The song's notes as the document holds them: `groups` (Hydrogen's patterns, in order of first use, as
    /// many as the bank holds), `instances` (each pattern at the start of every region it plays in) and, for
    /// patterns past the bank's size, `markers` by track, placed in their regions as plain markers.
    struct Layout {
        var groups = GroupBank()
        var instances: [GroupInstance] = []
        var markers: [[Marker]]
        /// Notes led or lagged out of their pattern, kept at its edge.
        var clamped = 0
        /// Patterns laid out as plain markers.
        var unlinked = 0
    }

    /// Lays out the regions' patterns (`order`: the distinct columns in order of first use; `trackOf`: the
    /// track of each instrument that has one). A note at tick p with lead/lag l sounds `(p + 5·l) · tick` after
    /// its pattern's start, kept within the pattern (Hydrogen's pattern is the note's home); a note off is a rest.
    static func layOut(order: [[String]], regionOf: [[String]: (start: Double, end: Double)], patterns: [String: Pattern],
                       trackOf: [Int: Int], tick: Double) -> Layout {
        var layout = Layout(markers: Array(repeating: [], count: trackOf.count))
        var groupOf: [String: Int] = [:]
        var unlinked = Set<String>()
        for c in order {
            let region = regionOf[c]!
            for name in c {
                let pattern = patterns[name]!
                if groupOf[name] == nil && !unlinked.contains(name) {
                    if groupOf.count < GroupBank.range.count {
                        let n = groupOf.count + 1
                        groupOf[name] = n
                        layout.groups[n] = group(pattern, trackOf: trackOf, tick: tick, clamped: &layout.clamped)
                    } else {
                        unlinked.insert(name)
                    }
                }
                if let n = groupOf[name] {
                    layout.instances.append(GroupInstance(group: n, start: region.start, track: 0))
                } else {
                    for e in group(pattern, trackOf: trackOf, tick: tick, clamped: &layout.clamped).elements {
                        var m = Marker(id: 0, time: region.start + e.offset, amp: e.amp, content: e.content)
                        m.extras = e.extras
                        layout.markers[e.trackOffset].append(m)
                    }
                }
            }
        }
        layout.unlinked = unlinked.count
        for t in layout.markers.indices { layout.markers[t].sort { $0.time < $1.time } }
        return layout
    }

    /// One pattern as a group: its notes on the tracks of their instruments (from track 0), its span the pattern's
    /// length.
    static func group(_ pattern: Pattern, trackOf: [Int: Int], tick: Double, clamped: inout Int) -> Group {
        let span = pattern.size * tick
        var elements: [GroupElement] = []
        for n in pattern.notes {
            guard let track = trackOf[n.instrument] else { continue }
            var offset = (n.position + n.leadLag * leadLagTicks) * tick
            if offset < 0 || offset >= span {
                offset = min(max(offset, 0), span - tick)
                clamped += 1
            }
            elements.append(GroupElement(offset: offset, trackOffset: track, amp: n.velocity, content: n.noteOff ? .rest : .clip(track + 1)))
        }
        elements.sort { ($0.trackOffset, $0.offset) < ($1.trackOffset, $1.offset) }
        return Group(elements: elements, span: span)
    }
}

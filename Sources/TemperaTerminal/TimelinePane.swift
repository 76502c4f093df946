import TemperaCore

/// The timeline: a ruler with time ticks, the loop region, the playhead and the cursor; then each track's
/// name and markers. A marker is a bar as high as its amplitude with its clip's label under it; markers
/// that share a column show their count. Guides carry the cursor's time through every track and mark each
/// other track's nearest marker.
///
/// Only the visible time range is read (binary search for its ends), so a document of 100,000 markers
/// draws as fast as a small one when zoomed in, and in one pass over the visible markers when zoomed out.
enum TimelinePane {
    static func draw(session: Session, view: ViewState, layout l: Layout, _ g: Glyphs,
                     into canvas: inout Canvas) -> [Spot] {
        let vp = view.viewport
        drawTitle(session: session, view: view, layout: l, g, into: &canvas)
        drawRuler(session: session, view: view, layout: l, g, into: &canvas)
        if let lane = l.tempoLane { drawTempoLane(session: session, view: view, lane: lane, layout: l, g, into: &canvas) }
        var columns = ColumnSummary(width: l.timeline.width)
        // While the designer auditions, the current lane shows what is heard, ghosted.
        let audition = DesignerTab.isAuditioning(view)
            ? DesignerTab.playbackDocument(session: session, view: view).tracks[safe: session.currentTrack]?.markers : nil
        for track in l.firstTrack..<(l.firstTrack + l.visibleTracks) {
            drawName(session: session, track: track, layout: l, g, into: &canvas)
            drawMarkers(session: session, view: view, track: track, layout: l, g, columns: &columns,
                        ghost: track == session.currentTrack ? audition : nil, into: &canvas)
            drawInstances(session: session, view: view, track: track, layout: l, g, into: &canvas)
        }

        var spots: [Spot] = []
        let ruler = l.ruler
        spots.append(Spot(ruler) { x, _ in .ruler(time: vp.time(atColumn: x - ruler.x)) })
        if let lane = l.tempoLane {
            spots.append(Spot(lane) { x, _ in .tempoLane(time: vp.time(atColumn: x - lane.x)) })
        }
        for track in l.firstTrack..<(l.firstTrack + l.visibleTracks) {
            guard let rows = l.rows(ofTrack: track) else { continue }
            spots.append(Spot(Rect(x: l.names.x, y: rows.y, width: l.names.width, height: rows.height),
                              .trackName(track)))
        }
        let area = l.timeline, bars = l.barRows
        spots.append(Spot(area) { x, y in
            guard let (track, row) = l.track(atRow: y) else { return .none }
            let amp = Double(max(bars - row, 1)) / Double(bars)
            return .timeline(track: track, time: vp.time(atColumn: x - area.x), amp: amp)
        })
        return spots
    }

    // MARK: Title and ruler

    static func drawTitle(session: Session, view: ViewState, layout l: Layout, _ g: Glyphs,
                          into canvas: inout Canvas) {
        let y = l.timelineTitleRow
        let vp = view.viewport
        // A group open as the timeline says so, and how to return.
        let title = session.editingGroup.map { " group \($0), edited as the timeline (Esc: done) " } ?? " timeline "
        var x = canvas.put(2, y, title, view.focus == .timeline ? .titleActive : .title)
        x = canvas.put(x, y, String(g.horizontal), .border)
        let decimals = Format.decimals(secondsPerColumn: vp.secondsPerColumn)
        x = canvas.put(x, y, " cursor ", .dim)
        x = canvas.put(x, y, Format.seconds(session.cursor, decimals) + " s", .cursor)
        x = canvas.put(x, y, " ", .border)
        x = canvas.put(x, y, String(g.horizontal), .border)
        x = canvas.put(x, y, " " + Format.duration(vp.secondsPerColumn) + "/col ", .dim)
        if let people = view.sharedWith {
            x = canvas.put(x, y, String(g.horizontal), .border)
            x = canvas.put(x, y, people.isEmpty ? " shared, alone " : " with " + people.joined(separator: ", ") + " ", .accent)
        }
        let count = session.document.tracks.count
        let tracksRoom = l.visibleTracks < count ? 24 : 0
        if let note = annotation(session: session, view: view, ascii: view.ascii), x + note.count + 3 + tracksRoom < l.width - 2 {
            x = canvas.put(x, y, String(g.horizontal), .border)
            x = canvas.put(x, y, " " + note + " ", .accent)
        }
        if l.visibleTracks < count {
            let text = " tracks \(l.firstTrack + 1)\(g.dash)\(l.firstTrack + l.visibleTracks) of \(count) "
            let rx = l.width - 2 - text.count
            if rx > x { canvas.put(rx, y, text, .accent) }
        }
    }

    /// The marker of the current track under the cursor (within half a column), if any.
    static func markerUnderCursor(session: Session, view: ViewState) -> Marker? {
        guard session.document.tracks.indices.contains(session.currentTrack) else { return nil }
        let markers = session.document.tracks[session.currentTrack].markers
        guard let i = markers.nearest(to: session.cursor) else { return nil }
        let m = markers[i]
        return abs(m.time - session.cursor) <= view.viewport.secondsPerColumn / 2 ? m : nil
    }

    /// The subdivision limit of the marker under the cursor: `bar 2 beat 3 + 2/3 (−1.2 ms)`.
    static func annotation(session: Session, view: ViewState, ascii: Bool) -> String? {
        guard let m = markerUnderCursor(session: session, view: view) else { return nil }
        return limitText(SubdivisionLimit(time: m.time, transport: session.document.transport), ascii: ascii)
    }

    static func limitText(_ l: SubdivisionLimit, ascii: Bool = false) -> String {
        let ms = l.deviationMs
        let minus = ascii ? "-" : "\u{2212}"
        let dev = (ms < 0 ? minus : ms > 0 ? "+" : "") + String(format: "%.1f", abs(ms)) + " ms"
        let position = l.k == 0 ? "" : " + \(l.k)/\(l.n)"
        return "bar \(l.bar) beat \(l.beat)\(position) (\(dev))"
    }

    /// A tick spacing that leaves room for its labels: 1, 2, 2.5 or 5 times a power of ten.
    static func tickStep(secondsPerColumn spc: Double, minColumns: Int = 10) -> Double {
        let target = spc * Double(minColumns)
        var p = 1e-4
        while true {
            for m in [1.0, 2.0, 2.5, 5.0] where m * p >= target * (1 - 1e-9) { return m * p }
            p *= 10
        }
    }

    /// The fewest decimals that write multiples of `step` exactly (0.25 → 2, 0.5 → 1, 2 → 0).
    static func decimals(forStep step: Double) -> Int {
        var d = 0, scaled = step
        while d < 4 && abs(scaled - scaled.rounded()) > 1e-6 * max(1, scaled) {
            d += 1
            scaled *= 10
        }
        return d
    }

    static func drawRuler(session: Session, view: ViewState, layout l: Layout, _ g: Glyphs,
                          into canvas: inout Canvas) {
        let vp = view.viewport, r = l.ruler
        let t = session.document.transport
        let length = t.length
        let song = session.document.song
        for c in 0..<r.width {
            let a = vp.time(atColumn: c), b = vp.time(atColumn: c + 1)
            if a >= length && a > 0 { continue }
            // Playing the song, the ruler marks its sections' regions instead of the loop.
            let inLoop = song.plays ? song.sections.contains { a < $0.end && b > $0.start }
                : a < t.loopEnd && b > t.loopStart
            canvas[r.x + c, r.y] = inLoop
                ? Cell(g.rulerLoop, t.loopOn || song.plays ? .loopRegion : .ruler)
                : Cell(g.rulerLine, .ruler)
        }
        // Section labels first in line: a time label that would run into one is left out.
        let labels = sectionLabels(song, view: view, width: r.width, g)
        if !view.rulerSeconds {
            drawBeatTicks(t, view: view, ruler: r, labels: labels, g, into: &canvas)
        } else {
            drawSecondTicks(view: view, ruler: r, labels: labels, g, into: &canvas)
        }
        for l in labels { canvas.put(r.x + l.column, r.y, l.text, l.role) }
        let cc = vp.column(of: session.cursor)
        if cc >= 0 && cc < r.width { canvas[r.x + cc, r.y] = Cell(g.rulerCursor, .cursor) }
        let pc = vp.column(of: view.transport.position)
        if pc >= 0 && pc < r.width { canvas[r.x + pc, r.y] = Cell(g.rulerPlayhead, .playhead) }
    }

    /// Ticks on the meter's pulses (a bar's first labelled `3`, other pulses `3.2` when there is room; in a meter
    /// of beat groups, 7/8 as 2+2+3, only the groups' first pulses are labelled), thinned to bars, or to every few
    /// bars, when zoomed out.
    static func drawBeatTicks(_ t: Transport, view: ViewState, ruler r: Rect,
                              labels: [(column: Int, text: String, role: Role)], _ g: Glyphs, into canvas: inout Canvas) {
        let vp = view.viewport
        let pulse = t.pulse
        let groups = t.signature.groupMask
        let beatColumns = pulse / vp.secondsPerColumn
        guard beatColumns > 0, beatColumns.isFinite else { return }
        // Every beat when a beat is wide enough for its label, else every bar, else every few bars.
        let meter = max(1, t.meter)
        var every = 1
        if beatColumns < 5 {
            every = meter
            while Double(every) * beatColumns < 6 { every *= 2 }
        }
        var k = Int((vp.start / pulse).rounded(.down))
        k -= k % every
        if k < 0 { k = 0 }
        while true {
            let time = Double(k) * pulse
            let c = vp.column(of: time)
            if c >= r.width { break }
            if c >= 0 {
                let bar = k / meter + 1, beat = k % meter + 1
                let label = beat == 1 ? "\(bar)" : "\(bar).\(beat)"
                canvas[r.x + c, r.y] = Cell(g.rulerTick, beat == 1 ? .accent : .ruler)
                let clear = !labels.contains { $0.column <= c + 1 + label.count && c <= $0.column + $0.text.count }
                let named = groups == 0 || Meter.accent(position: beat - 1, groupMask: groups) != .beat
                if named && clear && c + 1 + label.count < r.width && Double(every) * beatColumns >= Double(label.count + 2) {
                    canvas.put(r.x + c + 1, r.y, label, beat == 1 ? .accent : .ruler)
                }
            }
            k += every
        }
    }

    static func drawSecondTicks(view: ViewState, ruler r: Rect,
                                labels: [(column: Int, text: String, role: Role)], _ g: Glyphs, into canvas: inout Canvas) {
        let vp = view.viewport
        let step = tickStep(secondsPerColumn: vp.secondsPerColumn)
        let decimals = decimals(forStep: step)
        var k = (vp.start / step).rounded(.up)
        while true {
            let time = k * step
            let c = vp.column(of: time)
            if c >= r.width { break }
            if c >= 0 {
                canvas[r.x + c, r.y] = Cell(g.rulerTick, .ruler)
                let label = Format.seconds(time, decimals)
                let clear = !labels.contains { $0.column <= c + 1 + label.count && c <= $0.column + $0.text.count }
                if clear && c + 1 + label.count < r.width { canvas.put(r.x + c + 1, r.y, label, .ruler) }
            }
            k += 1
        }
    }

    /// At the start of each section's region, the numbers of the sections that play it (`♪1,3`), the one
    /// playing in the playing role; columns relative to the ruler.
    static func sectionLabels(_ song: Song, view: ViewState, width: Int, _ g: Glyphs)
        -> [(column: Int, text: String, role: Role)] {
        guard !song.sections.isEmpty else { return [] }
        let vp = view.viewport
        var starts: [Double: [Int]] = [:]
        for (j, s) in song.sections.enumerated() { starts[s.start, default: []].append(j) }
        let playing = song.plays ? view.transport.song?.section : nil
        var out: [(column: Int, text: String, role: Role)] = []
        for (start, sections) in starts.sorted(by: { $0.key < $1.key }) {
            let c = vp.column(of: start)
            guard c >= 0, c < width else { continue }
            let label = g.song + sections.map { "\($0 + 1)" }.joined(separator: ",")
            let role: Role = playing.map(sections.contains) == true ? .playing : .accent
            out.append((c, String(label.prefix(width - c)), role))
        }
        return out
    }

    // MARK: Tracks

    /// The tempo lane: per column the tempo there as a bar's height (the lane's rows span the map's slowest to its
    /// fastest tempo), each point a marker at its column (the one at the cursor selected), and the BPM at the
    /// cursor beside the name.
    static func drawTempoLane(session: Session, view: ViewState, lane: Rect, layout l: Layout, _ g: Glyphs,
                              into canvas: inout Canvas) {
        let t = session.document.transport
        let map = t.tempoMap
        let vp = view.viewport
        let current = view.tempoLane
        let atCursor = map.tempo(at: session.cursor, base: t.tempo)
        let head = Format.pad(Format.fit("\(current ? String(g.currentTrack) : " ")tempo", l.names.width, ellipsis: g.ellipsis),
                              l.names.width)
        canvas.put(l.names.x, lane.y, head, current ? .trackNameCurrent : .trackName)
        canvas.put(l.names.x + 1, lane.y + 1, Format.fit(Session.bpmText(t.bpm(atTempo: atCursor)) + " bpm", l.names.width - 1,
                                                          ellipsis: g.ellipsis), .dim)
        let tempos = map.points.map(\.tempo) + [t.tempo]
        let lo = tempos.min() ?? t.tempo, hi = tempos.max() ?? t.tempo
        let levels = lane.height * 8
        let pieces = map.pieces(base: t.tempo)
        pieces.withUnsafeBufferPointer { b in
            for x in 0..<lane.width {
                let u = vp.time(atColumn: x) + vp.secondsPerColumn / 2
                let tau = TempoCurve.tempo(at: u, ps: b.baseAddress!, count: b.count)
                // The slowest tempo shows a sliver, the fastest the lane's full height.
                let level = hi > lo ? 1 + Int(((tau - lo) / (hi - lo) * Double(levels - 1)).rounded()) : levels / 2
                for row in 0..<lane.height {
                    let fill = min(max(level - (lane.height - 1 - row) * 8, 0), 8)
                    if fill > 0 { canvas.put(lane.x + x, lane.y + row, String(g.eighths[fill]), .marker) }
                }
            }
        }
        let half = vp.secondsPerColumn / 2
        for p in map.points {
            let x = vp.column(of: p.time)
            guard x >= 0, x < lane.width else { continue }
            let selected = current && abs(p.time - session.cursor) <= half
            canvas.put(lane.x + x, lane.y, String(g.rulerCursor), selected ? .markerSelected : .accent)
        }
    }

    /// The tempo point at the cursor (within half a column), if any.
    static func tempoPointAtCursor(session: Session, view: ViewState) -> TempoMap.Point? {
        let map = session.document.transport.tempoMap
        let half = view.viewport.secondsPerColumn / 2
        guard let p = map.point(atOrAfter: session.cursor - half), abs(p.time - session.cursor) <= half else { return nil }
        return p
    }

    static func drawName(session: Session, track: Int, layout l: Layout, _ g: Glyphs, into canvas: inout Canvas) {
        guard let rows = l.rows(ofTrack: track) else { return }
        let tr = session.document.tracks[track]
        let current = track == session.currentTrack
        let mark = current ? String(g.currentTrack) : " "
        let head = Format.pad(Format.fit("\(mark)\(track + 1) \(tr.name)", l.names.width, ellipsis: g.ellipsis),
                              l.names.width)
        canvas.put(l.names.x, rows.y, head, current ? .trackNameCurrent : .trackName)
        var info: [String] = []
        if tr.mute { info.append("M") }
        if tr.solo { info.append("S") }
        if tr.gain != 1 { info.append(Dispatcher.compactDecibels(tr.gain)) }
        let selected = session.selection[track]?.count ?? 0
        if selected > 0 { info.append("\(selected) sel") }
        if !info.isEmpty {
            canvas.put(l.names.x + 1, rows.maxY - 1, Format.fit(info.joined(separator: " "), l.names.width - 1,
                                                                ellipsis: g.ellipsis), .dim)
        }
    }

    /// Per column of one track: how many markers fall in it, the loudest, and how they look.
    struct ColumnSummary {
        var count: [Int]
        var amp: [Double]
        var selected: [Bool]
        /// Some marker in the column carries content (a clip, `+`, `-` or `?`).
        var hasContent: [Bool]
        /// The first marker in the column (its label is drawn when it is alone).
        var first: [Int]

        init(width: Int) {
            count = Array(repeating: 0, count: width)
            amp = Array(repeating: 0, count: width)
            selected = Array(repeating: false, count: width)
            hasContent = Array(repeating: false, count: width)
            first = Array(repeating: 0, count: width)
        }

        mutating func reset() {
            for i in count.indices {
                count[i] = 0
                amp[i] = 0
                selected[i] = false
                hasContent[i] = false
            }
        }
    }

    /// Columns holding more markers than this are summarised from this many evenly spaced samples.
    static let samplesPerColumn = 16

    /// Fills `s` for the markers of one track in view. When the view holds a few markers per column they
    /// are read one by one; when zoomed out so far that columns hold many, each column's markers are counted
    /// exactly by binary search and their height and look taken from evenly spaced samples, so a frame costs
    /// about the same whatever the document's size. Selection is looked up from the smaller side: the
    /// selected ids (by their time) or the markers in view.
    static func summarize(_ markers: MarkerList, selection: Set<MarkerID>, viewport vp: Viewport,
                          into s: inout ColumnSummary) {
        s.reset()
        let width = s.count.count
        // A marker belongs to column c when vp.column(of:) says so; these boundaries agree with it.
        func boundary(_ c: Int) -> Int { markers.lowerBound(time: vp.time(atColumn: Double(c) - 1e-9)) }
        let lo = boundary(0), hi = boundary(width)
        let visible = hi - lo
        let selectionByID = !selection.isEmpty && selection.count <= visible
        let checkEach = !selection.isEmpty && !selectionByID

        func read(_ i: Int, _ c: Int) {
            let m = markers[i]
            if m.amp > s.amp[c] { s.amp[c] = m.amp }
            if m.content != nil { s.hasContent[c] = true }
            if checkEach && !s.selected[c] && selection.contains(m.id) { s.selected[c] = true }
        }

        if visible <= 4 * width {
            for i in lo..<hi {
                let c = min(max(vp.column(of: markers[i].time), 0), width - 1)
                if s.count[c] == 0 { s.first[c] = i }
                s.count[c] += 1
                read(i, c)
            }
        } else {
            var b = lo
            for c in 0..<width {
                let e = c == width - 1 ? hi : boundary(c + 1)
                let n = e - b
                if n > 0 {
                    s.count[c] = n
                    s.first[c] = b
                    let step = max(1, n / samplesPerColumn)
                    for i in stride(from: b, to: e, by: step) { read(i, c) }
                }
                b = e
            }
        }

        if selectionByID {
            let begin = vp.time(atColumn: -1e-9), end = vp.time(atColumn: Double(width) - 1e-9)
            for id in selection {
                guard let t = markers.time(of: id), t >= begin, t < end else { continue }
                let c = min(max(vp.column(of: t), 0), width - 1)
                if s.count[c] > 0 { s.selected[c] = true }
            }
        }
    }

    /// Draws one lane; `ghost` (the designer's audition) replaces its markers, drawn dim.
    static func drawMarkers(session: Session, view: ViewState, track: Int, layout l: Layout, _ g: Glyphs,
                            columns s: inout ColumnSummary, ghost: MarkerList? = nil, into canvas: inout Canvas) {
        guard let rows = l.rows(ofTrack: track) else { return }
        let vp = view.viewport
        let width = rows.width, bars = l.barRows, labelRow = rows.maxY - 1
        let markers = ghost ?? session.document.tracks[track].markers
        let isCurrent = track == session.currentTrack

        // Vertical lines first; markers draw over them.
        let cursorColumn = vp.column(of: session.cursor)
        let playColumn = vp.column(of: view.transport.position)
        if playColumn >= 0 && playColumn < width {
            for y in rows.y..<rows.maxY { canvas[rows.x + playColumn, y] = Cell(g.playheadLine, .playhead) }
        }
        if cursorColumn >= 0 && cursorColumn < width {
            let cell = isCurrent ? Cell(g.cursorLine, .cursor) : Cell(g.guideLine, .guide)
            for y in rows.y..<rows.maxY { canvas[rows.x + cursorColumn, y] = cell }
        }

        // The other participants' cursors: a guide each, in their colour, their name on their own track.
        for other in view.others {
            let c = vp.column(of: other.cursor)
            guard c >= 0 && c < width else { continue }
            for y in rows.y..<rows.maxY where c != cursorColumn { canvas[rows.x + c, y] = Cell(g.guideLine, other.role) }
            if other.track == track {
                canvas.put(rows.x + min(c + 1, max(0, width - other.name.count)), rows.y, String(other.name.prefix(width)), other.role)
            }
        }

        summarize(markers, selection: ghost == nil ? session.selection[track] ?? [] : [], viewport: vp, into: &s)
        // Columns holding a marker someone else just changed.
        var flashColumns = Set<Int>()
        for id in view.flashed {
            guard let t = markers.time(of: id) else { continue }
            flashColumns.insert(vp.column(of: t))
        }

        var guideColumn = -1
        if !isCurrent, let n = markers.nearest(to: session.cursor) {
            guideColumn = vp.column(of: markers[n].time)
        }

        let levels = 8 * bars
        for c in 0..<width where s.count[c] > 0 {
            let role: Role
            if ghost != nil {
                role = .dim
            } else if s.selected[c] {
                role = .markerSelected
            } else if flashColumns.contains(c) {
                role = .accent
            } else if c == guideColumn {
                role = .guideHit
            } else if s.count[c] == 1, s.hasContent[c],
                      !SubdivisionLimit(time: markers[s.first[c]].time, transport: session.document.transport).onGrid {
                // A clip off every simple subdivision of the beat (beyond the timing JND) stands out.
                role = .accent
            } else {
                role = s.hasContent[c] ? .marker : .markerEmpty
            }
            // A marker alone in its column: a probability below 1 dims its bar; a ratchet shows its count on top.
            let alone: Marker? = s.count[c] == 1 ? markers[s.first[c]] : nil
            let barRole = alone.map { $0.p < 1 && (role == .marker || role == .markerEmpty || role == .accent) } == true
                ? Role.dim : role
            // Even a silent marker keeps the lowest bar, so it is never invisible.
            let level = max(1, min(levels, Int((s.amp[c] * Double(levels)).rounded())))
            for b in 0..<bars {
                let part = min(8, max(0, level - 8 * b))
                guard part > 0 else { continue }
                canvas[rows.x + c, labelRow - 1 - b] = Cell(g.eighths[part], barRole)
            }
            if let m = alone, m.rep > 1 {
                canvas[rows.x + c, labelRow - bars] = Cell(g.count(m.rep), role == .markerSelected ? role : .accent)
            }
            let label: Character, labelRole: Role
            if s.count[c] > 1 {
                label = g.crowdLabel ?? g.count(s.count[c])
                labelRole = role == .marker || role == .markerEmpty ? .dim : role
            } else {
                let content = markers[s.first[c]].content
                label = g.label(content)
                switch (role, content) {
                case (.markerSelected, _), (.guideHit, _), (.dim, _): labelRole = role
                case (_, nil): labelRole = .markerEmpty
                case (_, .hold?): labelRole = .holdLabel
                case (_, .rest?): labelRole = .restLabel
                default: labelRole = .clipLabel
                }
            }
            canvas[rows.x + c, labelRow] = Cell(label, labelRole)
        }
    }
}

extension Array {
    subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}

import TemperaCore

/// The tempo lane's keys: while the lane is current, the timeline's drawing, amplitude, delete and
/// shift keys act on the tempo map's point at the cursor (the selected one), the next/previous keys go from point
/// to point; everything else keeps its meaning. The mouse picks and drags a point (`pressTempoLane`).
extension Dispatcher {
    /// BPM a row of vertical pointer travel changes a dragged tempo point by (the Song tab's coarse step).
    static let tempoBPMPerRow = 5.0

    /// Runs `verb` on the tempo lane; false when the lane leaves it to the tracks.
    func runTempoLane(_ verb: Verb) throws -> Bool {
        let s = session
        let t = s.document.transport
        switch verb {
        case .apply where drags.isActive:
            finishDrag()
            return true
        case .cursor(let move) where view.tool == .shift && [.left, .right, .fineLeft, .fineRight].contains(move):
            // The shift tool's arrows move the point at the cursor, by the steps they move markers by; the
            // cursor goes with it, so it stays the selected point. Enter keeps (one undo step), Esc cancels.
            let sign: Double = move == .right || move == .fineRight ? 1 : -1
            let fine = move == .fineLeft || move == .fineRight
            let column = view.viewport.secondsPerColumn
            let step = t.grid != nil ? (fine ? column : t.gridStep!) : column * (fine ? 0.125 : 1)
            if !draggingTempoPoint {
                guard let p = TimelinePane.tempoPointAtCursor(session: s, view: view) else {
                    say("no tempo point at the cursor to shift (a adds one)", error: true)
                    return true
                }
                drags.begin(.tempoPoint(from: p.time, tempo: p.tempo, pressY: 0), mouse: false, anchor: p.time,
                            session: s, now: clock())
            }
            try moveTempoPoint(to: drags.current!.anchor + sign * step, tempo: nil)
            return true
        case .cursor(.next), .cursor(.prev):
            // From tempo point to tempo point.
            let points = t.tempoMap.points
            let half = view.viewport.secondsPerColumn / 2
            let next = verb == .cursor(.next) ? points.first { $0.time > s.cursor + half }
                : points.last { $0.time < s.cursor - half }
            if let next { moveCursor(to: next.time) } else { say("no tempo point further that way") }
            return true
        case .drawClip, .apply:
            // A point at the cursor: the tempo heard there, ramping linearly to the next point.
            let tempo = t.tempoMap.tempo(at: s.cursor, base: t.tempo)
            try command(.tempoPoint(time: s.cursor, value: tempo, bpm: false, shape: .linear))
            say("tempo point at \(Format.seconds(s.cursor)) s: \(Session.bpmText(t.bpm(atTempo: tempo))) BPM")
            return true
        case .amp(let d):
            guard let p = TimelinePane.tempoPointAtCursor(session: s, view: view) else {
                say("no tempo point at the cursor (a adds one)", error: true)
                return true
            }
            // One BPM a step on whole BPMs; a held key is one undo step.
            let now = t.bpm(atTempo: p.tempo)
            let bpm = d == .up ? (now + 1e-9).rounded(.down) + 1 : (now - 1e-9).rounded(.up) - 1
            let tempo = Transport.tempoInRange(forBPM: bpm, beat: t.beat)
            drags.nudge("tempo point", session: s, now: clock())
            try command(.tempoPoint(time: p.time, value: tempo, bpm: false, shape: p.shape))
            say("tempo at \(Format.seconds(p.time)) s: \(Session.bpmText(t.bpm(atTempo: tempo))) BPM")
            return true
        case .tool(.delete):
            guard let p = TimelinePane.tempoPointAtCursor(session: s, view: view) else {
                say("no tempo point at the cursor", error: true)
                return true
            }
            try command(.tempoPointDelete(p.time))
            return true
        default:
            return false
        }
    }

    /// True while a tempo point is being moved (by the keys or the pointer).
    var draggingTempoPoint: Bool {
        if case .tempoPoint? = drags.current?.kind { return true }
        return false
    }

    /// Moves the dragged tempo point (at the drag's anchor) to `time` (not before 0), with `tempo` when given
    /// (else its own), keeping its shape; the cursor follows it. Another point exactly there refuses the step.
    func moveTempoPoint(to time: Double, tempo: Double?) throws {
        guard let d = drags.current, case .tempoPoint = d.kind else { return }
        let s = session
        let map = s.document.transport.tempoMap
        let to = max(0, time)
        guard let p = map.point(at: d.anchor) else { return }
        let value = tempo ?? p.tempo
        if to == p.time && value == p.tempo { return }
        if to != p.time, map.point(at: to) != nil {
            return say("another tempo point is at \(Format.seconds(to)) s", error: true)
        }
        if to != p.time { _ = try s.run(.tempoPointDelete(p.time)) }
        _ = try s.run(.tempoPoint(time: to, value: value, bpm: false, shape: p.shape))
        drags.tempoPointMoved(to: to, now: clock())
        moveCursor(to: to)
        let t = s.document.transport
        say("tempo point at \(Format.seconds(to)) s: \(Session.bpmText(t.bpm(atTempo: value))) BPM")
    }

    /// A press on the tempo lane at `time`, on screen row `y`: the lane becomes current; the point within a
    /// column of the pointer (if any) is picked (the cursor goes to it) and the press drags it: across, in time;
    /// up and down, its tempo by `tempoBPMPerRow` a row. One undo step for the whole drag. Elsewhere on the lane
    /// the cursor goes where the pointer is.
    func pressTempoLane(time: Double, y: Int) {
        let s = session
        view.tempoLane = true
        let map = s.document.transport.tempoMap
        let reach = view.viewport.secondsPerColumn
        guard let p = map.points.min(by: { abs($0.time - time) < abs($1.time - time) }), abs(p.time - time) <= reach else {
            moveCursor(to: time)
            return say("tempo lane: no point here (a adds one at the cursor)")
        }
        moveCursor(to: p.time)
        drags.begin(.tempoPoint(from: p.time, tempo: p.tempo, pressY: y), mouse: true, anchor: p.time, pressTime: time,
                    session: s, now: clock())
        let t = s.document.transport
        say("tempo point at \(Format.seconds(p.time)) s: \(Session.bpmText(t.bpm(atTempo: p.tempo))) BPM")
    }

    /// The pointer moved to `time`, row `y`, while dragging a tempo point; with the grid on the point lands on
    /// the nearest grid point unless `free`.
    func dragTempoPoint(time: Double, y: Int, free: Bool) throws {
        guard let d = drags.current, case .tempoPoint(let from, let tempo, let pressY) = d.kind else { return }
        let t = session.document.transport
        let bpm = t.bpm(atTempo: tempo) + Double(pressY - y) * Self.tempoBPMPerRow
        let value = pressY == y ? tempo : Transport.tempoInRange(forBPM: bpm, beat: t.beat)
        // The point moves by the pointer's travel since the press.
        let to = from + (time - d.pressTime)
        try moveTempoPoint(to: to == from ? from : snapped(to, free: free), tempo: value)
    }
}

import TemperaCore

/// The tempo lane's keys (DESIGN §18): while the lane is current, the timeline's drawing, amplitude and delete
/// keys act on the tempo map's points at the cursor; everything else keeps its meaning.
extension Dispatcher {
    /// Runs `verb` on the tempo lane; false when the lane leaves it to the tracks.
    func runTempoLane(_ verb: Verb) throws -> Bool {
        let s = session
        let t = s.document.transport
        switch verb {
        case .drawClip, .apply:
            // A point at the cursor: the tempo heard there, ramping linearly to the next point.
            let tempo = t.tempoMap.tempo(at: s.cursor, base: t.tempo)
            try command(.tempoPoint(time: s.cursor, value: tempo, bpm: false, shape: .linear))
            say("tempo point at \(Format.seconds(s.cursor)) s: \(Session.bpmText(60 * tempo / t.beat)) BPM")
            return true
        case .amp(let d):
            guard let p = TimelinePane.tempoPointAtCursor(session: s, view: view) else {
                say("no tempo point at the cursor (a adds one)", error: true)
                return true
            }
            // One BPM a step on whole BPMs; a held key is one undo step.
            let now = 60 * p.tempo / t.beat
            let bpm = d == .up ? (now + 1e-9).rounded(.down) + 1 : (now - 1e-9).rounded(.up) - 1
            let tempo = Transport.tempoInRange(forBPM: bpm, beat: t.beat)
            drags.nudge("tempo point", session: s, now: clock())
            try command(.tempoPoint(time: p.time, value: tempo, bpm: false, shape: p.shape))
            say("tempo at \(Format.seconds(p.time)) s: \(Session.bpmText(60 * tempo / t.beat)) BPM")
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
}

/// Running the commands of time that bends: each one undoable step.
extension Session {
    /// The tempo scale of `value` (a tempo, or with `bpm` beats per minute of the document's beat), in range.
    func tempoValue(_ value: Double, bpm: Bool) throws -> Double {
        let x = bpm ? document.transport.tempo(forBPM: value) : value
        let range = Transport.tempoRange
        guard x.isFinite, range.contains(x) else {
            if bpm {
                let t = document.transport
                throw CommandError("bpm must be between \(Self.bpmText(t.bpm(atTempo: range.lowerBound))) and "
                    + "\(Self.bpmText(t.bpm(atTempo: range.upperBound))) (beat \(DocumentFile.number(t.beat)) s)")
            }
            throw CommandError("tempo must be between x\(range.lowerBound) and x\(range.upperBound)")
        }
        return x
    }

    func runTempoPoint(time: Double, value: Double, bpm: Bool, shape: TempoMap.Shape) throws -> String? {
        guard time.isFinite, (0...Limits.maxTime).contains(time) else {
            throw CommandError("the time must be from 0 to 10000000")
        }
        let x = try tempoValue(value, bpm: bpm)
        var transport = document.transport
        let replacing = transport.tempoMap.point(at: time) != nil
        guard replacing || transport.tempoMap.count < TempoMap.maxPoints else {
            throw CommandError("the tempo map is full (\(TempoMap.maxPoints) points)")
        }
        transport.tempoMap.set(TempoMap.Point(time: time, tempo: x, shape: shape))
        try perform("tempo point") { $0.setTransport(transport) }
        let at = DocumentFile.number(time)
        return "tempo at \(at): \(Self.bpmText(transport.bpm(atTempo: x))) BPM (x\(DocumentFile.number(x)))"
            + (shape == .step ? "" : ", \(shape.rawValue) to the next point")
    }

    func runTempoPointDelete(_ time: Double) throws -> String? {
        var transport = document.transport
        guard transport.tempoMap.remove(at: time) else {
            throw CommandError("no tempo point at \(DocumentFile.number(time))")
        }
        try perform("delete tempo point") { $0.setTransport(transport) }
        return nil
    }

    func runTempoClear() throws -> String? {
        var transport = document.transport
        guard !transport.tempoMap.isEmpty else { return "the tempo map is already empty" }
        transport.tempoMap = TempoMap()
        try perform("clear tempo map") { $0.setTransport(transport) }
        return nil
    }

    func runTrackCycle(_ n: Int?, _ cycle: Track.Cycle?) throws -> String? {
        let t = try trackIndex(n)
        if let c = cycle {
            guard c.start.isFinite, c.end.isFinite, c.start >= 0, c.end > c.start, c.end <= Limits.maxTime else {
                throw CommandError("the cycle must end after it starts, within 0 to 10000000")
            }
        }
        let track = document.tracks[t]
        let ratio = track.ratioText.map { ($0, track.ratio) }
        try perform("cycle of track \(t + 1)") { $0.setTrackTime(t, cycle: cycle, ratio: ratio) }
        return nil
    }

    func runTrackRatio(_ n: Int?, _ text: String) throws -> String? {
        let t = try trackIndex(n)
        let r = try Expression.evaluate(text)
        guard Track.ratioRange.contains(r) else { throw CommandError("ratio must be from 1/64 to 64, not \(LineParser.show(r))") }
        let track = document.tracks[t]
        // A ratio of exactly 1 is no ratio: the track plays as before.
        let ratio: (text: String, value: Double)? = r == 1 ? nil : (text, r)
        try perform("ratio of track \(t + 1)") { $0.setTrackTime(t, cycle: track.cycle, ratio: ratio) }
        return "\(trackLabel(t)) plays at x\(DocumentFile.number(r))"
    }
}

/// Musical time and the metronome: beat, meter, bpm, grid, click and count-in. Each is a transport setting,
/// saved with the document and one undo step; none moves a marker (times are seconds at tempo x1).
extension Session {
    func runBeat(_ b: Double) throws -> String? {
        let range = Transport.beatRange
        guard b.isFinite, range.contains(b) else {
            throw CommandError("beat must be from \(LineParser.show(range.lowerBound)) to \(LineParser.show(range.upperBound)) seconds")
        }
        var t = document.transport
        t.beat = b
        try perform("beat") { $0.setTransport(t) }
        return "beat \(DocumentFile.number(b)) s: \(Self.bpmText(t.bpm)) BPM at x\(DocumentFile.number(t.tempo))"
    }

    func runMeter(_ m: Meter) throws -> String? {
        try m.check()
        var t = document.transport
        t.signature = m
        try perform("meter") { $0.setTransport(t) }
        return m.describe
    }

    func runBPM(_ bpm: Double) throws -> String? {
        var t = document.transport
        let tempo = t.tempo(forBPM: bpm)
        let range = Transport.tempoRange
        guard bpm.isFinite, range.contains(tempo) else {
            throw CommandError("bpm \(LineParser.show(bpm)) would need tempo x\(LineParser.show(tempo)); with beat "
                + "\(DocumentFile.number(t.beat)) s, bpm goes from \(Self.bpmText(t.bpm(atTempo: range.lowerBound))) "
                + "to \(Self.bpmText(t.bpm(atTempo: range.upperBound)))")
        }
        t.tempo = tempo
        try perform("bpm") { $0.setTransport(t) }
        return "\(Self.bpmText(bpm)) BPM (tempo x\(DocumentFile.number(tempo)))"
    }

    func runGrid(_ steps: Int?) throws -> String? {
        if let steps, !Transport.gridRange.contains(steps) {
            throw CommandError("grid must be from 1 to 32 steps a beat, or off")
        }
        var t = document.transport
        t.grid = steps
        try perform("grid") { $0.setTransport(t) }
        return steps.map { "grid: \($0) step\($0 == 1 ? "" : "s") a beat" } ?? "grid off"
    }

    func runClick(on: Bool?, level: Double?) throws -> String? {
        if let level, !(level.isFinite && (0...1).contains(level)) {
            throw CommandError("click level must be from 0 to 1")
        }
        var t = document.transport
        if let on { t.click = on }
        if let level { t.clickLevel = level }
        try perform("click") { $0.setTransport(t) }
        return "click \(t.click ? "on" : "off"), level \(DocumentFile.number(t.clickLevel))"
    }

    func runCountIn(_ bars: Int) throws -> String? {
        guard Transport.countInRange.contains(bars) else {
            throw CommandError("countin must be from 0 to \(Transport.countInRange.upperBound) bars")
        }
        var t = document.transport
        t.countIn = bars
        try perform("countin") { $0.setTransport(t) }
        return bars == 0 ? "no count-in" : "count-in: \(bars) bar\(bars == 1 ? "" : "s")"
    }

    /// A BPM to at most two decimals: `120`, `93.75`.
    public static func bpmText(_ bpm: Double) -> String {
        DocumentFile.number((bpm * 100).rounded() / 100)
    }
}

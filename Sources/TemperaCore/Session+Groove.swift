/// Grooves from real playing: probability, ratchets, humanize, groove extract and apply, and
/// fitting a temperament to the selection. Each edit is one undo step.
extension Session {
    /// `prob P`: the selected elements sound with probability P.
    func runProb(_ p: Double) throws -> String? {
        guard p.isFinite, (0...1).contains(p) else { throw CommandError("prob must be from 0 to 1") }
        let count = try changeElements("prob") { $0.p = p }
        return "p=\(DocumentFile.number(p)) on \(count) marker\(count == 1 ? "" : "s")"
    }

    /// `ratchet K[:SPAN]`: the selected elements play K hits (1: none).
    func runRatchet(_ k: Int, span: Double?) throws -> String? {
        guard MarkerExtras.repRange.contains(k) else {
            throw CommandError("ratchet must be from 1 to \(MarkerExtras.repRange.upperBound)")
        }
        if let span { guard span > 0, span.isFinite else { throw CommandError("the ratchet span must be positive") } }
        let count = try changeElements("ratchet") { m in
            m.rep = k
            m.repSpan = k == 1 ? nil : span
        }
        let what = k == 1 ? "no ratchet" : "rep=\(k)" + (span.map { ":\(DocumentFile.number($0))" } ?? "")
        return "\(what) on \(count) marker\(count == 1 ? "" : "s")"
    }

    /// The selected elements (clips in clip mode) changed by `change`, one undo step; how many changed.
    private func changeElements(_ name: String, _ change: (inout Marker) -> Void) throws -> Int {
        let groups = try requireSelection().compactMap { g -> (track: Int, markers: [Marker])? in
            let ms = g.markers.filter(isElement)
            return ms.isEmpty ? nil : (g.track, ms)
        }
        guard !groups.isEmpty else { throw CommandError("no clip is selected") }
        let plan = groups.map { g in (g.track, g.markers.map { m -> Marker in var m = m; change(&m); return m }) }
        try perform(name) { edit in
            for (track, markers) in plan { edit.replace(contentsOf: markers, track: track) }
        }
        return plan.reduce(0) { $0 + $1.1.count }
    }

    /// A uniform number in [-1, 1) for a marker, from the seed, its track and its time and what is drawn
    /// (`salt`): the same marker draws the same however the selection is made.
    static func humanizeDraw(seed: UInt64, track: Int, time: Double, salt: UInt64) -> Double {
        var z = seed &+ Schedule.randomKey(time: time, track: track) &* 0xD1B5_4A32_D192_ED03 &+ salt &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) * 0x1p-53 * 2 - 1
    }

    /// `humanize time=MS [amp=A] [seed=K]`: each selected element moves by up to ±MS ms and its amplitude by up to
    /// ±A (kept within 0...1), never before 0; the draws depend only on the seed and each marker's track and time.
    func runHumanize(time ms: Double, amp: Double, seed: UInt64) throws -> String? {
        guard ms.isFinite, (0...Command.Humanize.maxMilliseconds).contains(ms) else { throw CommandError("humanize time must be 0-1000 ms") }
        guard amp.isFinite, (0...1).contains(amp) else { throw CommandError("humanize amp must be from 0 to 1") }
        let groups = try requireSelection().compactMap { g -> (track: Int, markers: [Marker])? in
            let ms = g.markers.filter(isElement)
            return ms.isEmpty ? nil : (g.track, ms)
        }
        guard !groups.isEmpty else { throw CommandError("no clip is selected") }
        var plan: [(Int, [Marker])] = []
        for (track, markers) in groups {
            plan.append((track, try markers.map { m in
                var m = m
                let dt = Self.humanizeDraw(seed: seed, track: track, time: m.time, salt: 1) * ms / 1000
                let da = Self.humanizeDraw(seed: seed, track: track, time: m.time, salt: 2) * amp
                m.time = max(0, m.time + dt)
                try Limits.checkTime(m.time, "humanize would move a marker to")
                if amp > 0 { m.amp = min(1, max(0, m.amp + da)) }
                return m
            }))
        }
        try perform("humanize") { edit in
            for (track, markers) in plan { edit.replace(contentsOf: markers, track: track) }
        }
        let count = plan.reduce(0) { $0 + $1.1.count }
        return "humanized \(count) marker\(count == 1 ? "" : "s") by up to \(DocumentFile.number(ms)) ms"
            + (amp > 0 ? " and amp \(DocumentFile.number(amp))" : "") + " (seed \(seed))"
    }

    /// The selection's elements by track and their grid steps: step k of a grid of `steps` a beat is at
    /// `gridPoint(k)`; the first selected element's step is step 0 of the span.
    private func gridSteps(_ steps: Int) throws -> (groups: [(track: Int, markers: [Marker])], first: Int, last: Int) {
        let groups = try requireSelection().compactMap { g -> (track: Int, markers: [Marker])? in
            let ms = g.markers.filter(isElement)
            return ms.isEmpty ? nil : (g.track, ms)
        }
        guard !groups.isEmpty else { throw CommandError("no clip is selected") }
        let beat = document.transport.beat
        let ks = groups.flatMap { $0.markers.map { Int(($0.time * Double(steps) / beat).rounded()) } }
        return (groups, ks.min()!, ks.max()!)
    }

    /// `groove extract N [grid=G]`: for each grid step of the selection's span (G steps a beat, from the step of
    /// its first element to that of its last), the mean offset from the grid point and the mean amplitude of the
    /// selected elements nearest it, kept in group N as a groove; its elements are the steps that had any, at
    /// their grooved times (so the group can be stamped as well).
    func runGrooveExtract(_ n: Int, steps: Int) throws -> String? {
        guard GroupBank.range.contains(n) else { throw CommandError("no group \(n) (groups are 1-16)") }
        guard (1...CommandParser.maxQuantize).contains(steps) else {
            throw CommandError("groove grid must be 1-\(CommandParser.maxQuantize) steps a beat")
        }
        let (groups, first, last) = try gridSteps(steps)
        let count = last - first + 1
        guard count <= Limits.maxAddedMarkers else { throw CommandError("the selection spans too many grid steps") }
        let t = document.transport
        var sums = [Double](repeating: 0, count: count), ampSums = sums, counts = [Int](repeating: 0, count: count)
        for (_, markers) in groups {
            for m in markers {
                let k = Int((m.time * Double(steps) / t.beat).rounded())
                sums[k - first] += m.time - t.gridPoint(k, steps: steps)
                ampSums[k - first] += m.amp
                counts[k - first] += 1
            }
        }
        let offsets = (0..<count).map { counts[$0] == 0 ? nil : sums[$0] / Double(counts[$0]) }
        let amps = (0..<count).map { counts[$0] == 0 ? nil : ampSums[$0] / Double(counts[$0]) }
        let step = t.beat / Double(steps)
        var times: [(Double, Double)] = []
        for k in 0..<count { if let o = offsets[k], let a = amps[k] { times.append((t.gridPoint(k, steps: steps) + o, a)) } }
        let origin = times.map(\.0).min() ?? 0
        let elements = times.map { GroupElement(offset: $0.0 - origin, amp: $0.1, content: nil) }
        let group = Group(elements: elements, span: max(Double(count) * step, elements.map(\.offset).max() ?? 0),
                          groove: Groove(steps: steps, step: step, offsets: offsets, amps: amps))
        try perform("groove extract \(n)") { $0.setGroup(n, group) }
        let filled = offsets.compactMap { $0 }.count
        return "group \(n): groove of \(count) step\(count == 1 ? "" : "s") (\(filled) with markers), 1/\(steps) beat"
    }

    /// `groove apply N [time=S] [amp=S]`: each selected element moves toward its step's offset in group N's groove
    /// by the fraction `time` (t + S(grid point + offset - t); S = 1 puts it exactly on grid point + offset) and
    /// its amplitude toward the step's by `amp`. Steps are counted from the step of the first selected element,
    /// the groove repeating over its length; a step without markers in the groove leaves its elements alone.
    func runGrooveApply(_ n: Int, time: Double, amp: Double) throws -> String? {
        guard GroupBank.range.contains(n) else { throw CommandError("no group \(n) (groups are 1-16)") }
        guard let groove = document.groups[n].groove else {
            throw CommandError("group \(n) holds no groove (take one with 'groove extract \(n)')")
        }
        guard (0...1).contains(time), (0...1).contains(amp) else { throw CommandError("time and amp must be from 0 to 1") }
        let (groups, first, _) = try gridSteps(groove.steps)
        let t = document.transport
        let length = groove.offsets.count
        var moved = 0
        var plan: [(Int, [Marker])] = []
        for (track, markers) in groups {
            plan.append((track, try markers.map { m in
                var m = m
                let k = Int((m.time * Double(groove.steps) / t.beat).rounded())
                let j = ((k - first) % length + length) % length
                if let o = groove.offsets[j], time > 0 {
                    let target = t.gridPoint(k, steps: groove.steps) + o
                    m.time = max(0, time == 1 ? target : m.time + time * (target - m.time))
                    try Limits.checkTime(m.time, "groove apply would move a marker to")
                    moved += 1
                }
                if let a = groove.amps[j], amp > 0 { m.amp = min(1, max(0, amp == 1 ? a : m.amp + amp * (a - m.amp))) }
                return m
            }))
        }
        try perform("groove apply \(n)") { edit in
            for (track, markers) in plan { edit.replace(contentsOf: markers, track: track) }
        }
        return "grooved \(moved) marker\(moved == 1 ? "" : "s") by group \(n)"
            + (time == 1 && amp == 1 ? "" : " (time \(DocumentFile.number(time)), amp \(DocumentFile.number(amp)))")
    }

    /// `temper fit [max=N] [span=L]`: the designer set to the temperament that best explains the selected
    /// markers of the current track (one span of L, the designer's span by default): "fit 12:0,2,4,6,9 -> 5,
    /// slider 0.37, rms 0 ms". Among equally good fits, the designer's own divisions are preferred (see
    /// `Temperament.fit`). The rows keep the designer's amplitudes where they have the pulse.
    func runTemperFit(max most: Int, span: Double?) throws -> String? {
        let track = try requireTrack()
        var selected = selectedMarkers(track: track).filter(isElement)
        if selected.isEmpty {
            // The selection may be on other tracks: fit all of it.
            selected = try requireSelection().flatMap { $0.markers.filter(isElement) }
        }
        let L = span ?? document.designer.span
        let fit = try Temperament.fit(selected.map(\.time), span: L, max: most,
                                      prefer: (document.designer.top.division, document.designer.bottom.division))
        var t = fit.temperament
        let old = document.designer
        t.top.amps = old.top.resized(to: t.top.division).amps
        t.bottom.amps = old.bottom.resized(to: t.bottom.division).amps
        try perform("temper fit") { $0.setDesigner(t) }
        let rms = (fit.rms * 10_000).rounded() / 10
        return "fit \(Temperament.fitText(t.top)) -> \(Temperament.fitText(t.bottom)), slider \(Temperament.format((t.slider * 100).rounded() / 100)), rms \(DocumentFile.number(rms)) ms"
    }
}

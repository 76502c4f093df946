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

    /// The selection's elements by track.
    private func selectedElements() throws -> [(track: Int, markers: [Marker])] {
        let groups = try requireSelection().compactMap { g -> (track: Int, markers: [Marker])? in
            let ms = g.markers.filter(isElement)
            return ms.isEmpty ? nil : (g.track, ms)
        }
        guard !groups.isEmpty else { throw CommandError("no clip is selected") }
        return groups
    }

    /// The span a groove repeats over: the loop (the whole timeline with the loop off), from its start.
    var grooveRegion: (start: Double, length: Double) {
        let t = document.transport
        return t.loopOn && t.loopEnd > t.loopStart ? (t.loopStart, t.loopEnd - t.loopStart) : (0, t.length)
    }

    /// `groove extract N [grid=G] [span=S]`: for each grid step of one period (the loop, or S seconds from the
    /// loop's start; G steps a beat), the mean offset from the grid point and the mean amplitude of the selected
    /// elements on that step of any period, kept in group N as a groove; its elements are the steps that had
    /// any, at their grooved times (so the group can be stamped as well).
    func runGrooveExtract(_ n: Int, steps: Int, span: Double? = nil) throws -> String? {
        guard GroupBank.range.contains(n) else { throw CommandError("no group \(n) (groups are 1-16)") }
        guard (1...CommandParser.maxQuantize).contains(steps) else {
            throw CommandError("groove grid must be 1-\(CommandParser.maxQuantize) steps a beat")
        }
        let groups = try selectedElements()
        let t = document.transport
        let step = t.beat / Double(steps)
        let region = grooveRegion
        let period = span ?? region.length
        let count = Int((period / step).rounded())
        guard count >= 1 else {
            throw CommandError("the groove's span (\(DocumentFile.number(period)) s) is shorter than a grid step")
        }
        guard count <= Limits.maxAddedMarkers else { throw CommandError("the groove's span holds too many grid steps") }
        let origin = Int((region.start / step).rounded())
        var sums = [Double](repeating: 0, count: count), ampSums = sums, counts = [Int](repeating: 0, count: count)
        for (_, markers) in groups {
            for m in markers {
                let k = Int((m.time * Double(steps) / t.beat).rounded())
                let j = ((k - origin) % count + count) % count
                sums[j] += m.time - t.gridPoint(k, steps: steps)
                ampSums[j] += m.amp
                counts[j] += 1
            }
        }
        let offsets = (0..<count).map { counts[$0] == 0 ? nil : sums[$0] / Double(counts[$0]) }
        let amps = (0..<count).map { counts[$0] == 0 ? nil : ampSums[$0] / Double(counts[$0]) }
        let group = Self.grooveGroup(Groove(steps: steps, step: step, offsets: offsets, amps: amps))
        try perform("groove extract \(n)") { $0.setGroup(n, group) }
        let filled = offsets.compactMap { $0 }.count
        return "group \(n): groove of \(count) step\(count == 1 ? "" : "s") (\(filled) with markers), 1/\(steps) beat"
    }

    /// A group holding `groove`: its elements the steps that have markers, at their grooved times from the first.
    static func grooveGroup(_ groove: Groove) -> Group {
        var times: [(Double, Double)] = []
        for k in groove.offsets.indices {
            if let o = groove.offsets[k], let a = groove.amps[k] { times.append((Double(k) * groove.step + o, a)) }
        }
        let origin = times.map(\.0).min() ?? 0
        let elements = times.map { GroupElement(offset: $0.0 - origin, amp: $0.1, content: nil) }
        return Group(elements: elements, span: max(Double(groove.offsets.count) * groove.step, elements.map(\.offset).max() ?? 0),
                     groove: groove)
    }

    /// `groove apply N [time=S] [amp=S]`: each selected element, on every selected track, moves toward its step's
    /// offset in group N's groove by the fraction `time` (t + S(grid point + offset - t); S = 1 puts it exactly on
    /// grid point + offset) and its amplitude toward the step's by `amp`. Steps are counted from the loop's start
    /// (as `groove extract` counts them), the groove repeating over its length; a step without markers in the
    /// groove leaves its elements alone.
    func runGrooveApply(_ n: Int, time: Double, amp: Double) throws -> String? {
        guard GroupBank.range.contains(n) else { throw CommandError("no group \(n) (groups are 1-16)") }
        guard let groove = document.groups[n].groove else {
            throw CommandError("group \(n) holds no groove (take one with 'groove extract \(n)')")
        }
        guard (0...1).contains(time), (0...1).contains(amp) else { throw CommandError("time and amp must be from 0 to 1") }
        let groups = try selectedElements()
        let t = document.transport
        let first = Int((grooveRegion.start * Double(groove.steps) / t.beat).rounded())
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
        let tracks = plan.count
        return "grooved \(moved) marker\(moved == 1 ? "" : "s")" + (tracks > 1 ? " on \(tracks) tracks" : "") + " by group \(n)"
            + (time == 1 && amp == 1 ? "" : " (time \(DocumentFile.number(time)), amp \(DocumentFile.number(amp)))")
    }

    /// `temper fit [max=N] [span=L]`: the designer set to the temperament that best explains the selected
    /// markers of the current track (one span of L; by default the designer's span, or the loop's length when
    /// the selection spreads over more than the designer's span and fits in the loop, as after an import):
    /// "fit 12:0,2,4,6,9 -> 5, slider 0.37, rms 0 ms". The designer's own rows are preferred when the markers
    /// fit them within the tolerance, then its divisions (see `Temperament.fit`); a slider found outside 0..1 is
    /// said. The rows keep the designer's amplitudes where they have the pulse.
    func runTemperFit(max most: Int, span: Double?) throws -> String? {
        let track = try requireTrack()
        var selected = selectedMarkers(track: track).filter(isElement)
        if selected.isEmpty {
            // The selection may be on other tracks: fit all of it.
            selected = try requireSelection().flatMap { $0.markers.filter(isElement) }
        }
        var L = span ?? document.designer.span
        var spanNote = ""
        let times = selected.map(\.time)
        if span == nil, let lo = times.min(), let hi = times.max(), hi - lo >= L {
            let region = grooveRegion
            if hi - lo < region.length {
                L = region.length
                spanNote = ", span \(DocumentFile.number(L)) s (the loop)"
            }
        }
        let designer = document.designer
        let fit = try Temperament.fit(times, span: L, max: most, prefer: (designer.top.division, designer.bottom.division),
                                      preferBeats: (designer.top, designer.bottom))
        var t = fit.temperament
        let old = document.designer
        t.top.amps = old.top.resized(to: t.top.division).amps
        t.bottom.amps = old.bottom.resized(to: t.bottom.division).amps
        try perform("temper fit") { $0.setDesigner(t) }
        let rms = (fit.rms * 10_000).rounded() / 10
        let outside = t.slider < 0 ? " (outside 0..1: beyond the top row)" : t.slider > 1 ? " (outside 0..1: beyond the bottom row)" : ""
        return "fit \(Temperament.fitText(t.top)) -> \(Temperament.fitText(t.bottom)), slider "
            + "\(Temperament.format((t.slider * 100).rounded() / 100))\(outside), rms \(DocumentFile.number(rms)) ms" + spanNote
    }
}

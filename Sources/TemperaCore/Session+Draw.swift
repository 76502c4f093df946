/// Tools that put markers and clips down: marker add, pulse, draw single, typing draw, pattern fill, spread.
extension Session {
    /// The amplitude a marker gets when none is given.
    public static let defaultAmp = 0.8

    func runMarkerAdd(time: Double, amp: Double?, content: Content? = nil, extras: MarkerExtras = MarkerExtras()) throws -> String? {
        let t = try requireTrack()
        try checkTime(time, "marker time")
        try checkAmp(amp)
        if case .clip(let n) = content, !ClipSlot.range.contains(n) { throw CommandError("no clip \(n) (clips are 1-16)") }
        let markers = document.tracks[t].markers
        let i = markers.lowerBound(time: time)
        // A clip for a marker already there goes onto it: two markers at one time would sound as one, louder.
        if let content, i < markers.endIndex, markers[i].time == time {
            var m = markers[i]
            m.content = content
            if let amp { m.amp = amp }
            if !extras.isDefault { m.extras = extras }
            try perform("clip on marker") { $0.replace(m, track: t) }
            return nil
        }
        var m = Marker(id: 0, time: time, amp: amp ?? Self.defaultAmp, content: content)
        m.extras = extras
        try perform("marker add") { $0.insert(m, track: t) }
        return nil
    }

    func runPulse(period: Double, count: Int, start: Double?, amp: Double?) throws -> String? {
        let t = try requireTrack()
        guard period.isFinite, period > 0 else { throw CommandError("pulse period must be a positive time") }
        guard count >= 1 else { throw CommandError("pulse count must be at least 1") }
        let from = start ?? own.cursor
        try checkTime(from, "pulse start")
        try checkAmp(amp)
        try Limits.checkAdding(count, to: markerCount, "pulse")
        try Limits.checkTime(from + Double(count - 1) * period, "pulse would put its last marker at")
        try perform("pulse") { edit in
            for i in 0..<count {
                edit.insert(Marker(id: 0, time: from + Double(i) * period, amp: amp ?? Self.defaultAmp), track: t)
            }
        }
        return nil
    }

    /// Draw single: a marker at the cursor; in clip mode the chosen clip, onto the nearest marker with snap,
    /// or together with a new marker at the exact cursor without.
    func runDraw(amp: Double?) throws -> String? {
        let t = try requireTrack()
        try checkAmp(amp)
        if own.clipMode && own.snap {
            guard let p = document.tracks[t].markers.nearest(to: own.cursor) else {
                throw CommandError("track \(t + 1) has no marker to put the clip on")
            }
            var m = document.tracks[t].markers[p]
            m.content = own.chosenClip
            if let amp { m.amp = amp }
            try perform("draw") { $0.replace(m, track: t) }
        } else {
            let m = Marker(id: 0, time: own.cursor, amp: amp ?? Self.defaultAmp, content: own.clipMode ? own.chosenClip : nil)
            try perform("draw") { $0.insert(m, track: t) }
        }
        return nil
    }

    /// Typing draw: each symbol onto the next marker from the cursor that has no content; the cursor moves on
    /// to the next free marker so the next typed clip continues there.
    func runType(_ code: PatternCode) throws -> String? {
        let t = try requireTrack()
        let (placed, next, dropped) = try typingPlan(code, track: t)
        try perform("type") { edit in
            for m in placed { edit.replace(m, track: t) }
        }
        own.cursor = next
        return dropped > 0 ? "typed \(placed.count); \(Self.droppedMessage(dropped))" : nil
    }

    /// The markers typing draw fills, where the cursor goes next, and how many symbols found no marker. Kept
    /// apart so no copy of the track outlives the planning (the edit then changes the track in place).
    private func typingPlan(_ code: PatternCode, track t: Int) throws -> ([Marker], Double, Int) {
        let symbols = code.symbols
        guard !symbols.isEmpty else { throw CommandError("the code places nothing") }
        let markers = document.tracks[t].markers
        var p = markers.lowerBound(time: own.cursor)
        var placed: [Marker] = []
        var dropped = 0
        var reached: Double?
        for s in symbols {
            while p < markers.count, markers[p].content != nil { p += 1 }
            guard p < markers.count else {
                dropped += 1
                continue
            }
            reached = markers[p].time
            // `.` skips a free marker, leaving it free.
            if let content = s.content {
                var m = markers[p]
                m.content = content
                placed.append(m)
            }
            p += 1
        }
        guard let last = reached else {
            throw CommandError("no marker without a clip at or after the cursor on track \(t + 1)")
        }
        while p < markers.count, markers[p].content != nil { p += 1 }
        return (placed, p < markers.count ? markers[p].time : last, dropped)
    }

    /// Pattern fill: the code's symbols onto successive markers from the cursor on the current track, or over
    /// the selected markers of each track (the code starting afresh on each).
    func runFill(_ code: PatternCode) throws -> String? {
        let symbols = code.symbols
        guard !symbols.isEmpty else { throw CommandError("the code places nothing") }
        var plan: [(track: Int, marker: Marker)] = []
        var dropped = 0
        func lay(_ targets: [Marker], track: Int) {
            for (i, s) in symbols.enumerated() {
                guard i < targets.count else {
                    dropped += symbols.count - i
                    break
                }
                // `.` leaves its marker as it is (no clip placed, none taken away).
                guard let content = s.content else { continue }
                var m = targets[i]
                m.content = content
                plan.append((track, m))
            }
        }
        if selectionCount > 0 {
            // One token over a selection fills every selected marker (`fill "10"` on seven markers: all seven).
            let every = symbols.count == 1
            for (track, markers) in try requireSelection() {
                if every {
                    for m in markers { lay([m], track: track) }
                } else {
                    lay(markers, track: track)
                }
            }
        } else {
            let t = try requireTrack()
            let markers = document.tracks[t].markers
            let p = markers.lowerBound(time: own.cursor)
            lay(Array(markers[p..<min(markers.count, p + symbols.count)]), track: t)
        }
        guard !plan.isEmpty else {
            if symbols.allSatisfy({ $0 == .skip }) { throw CommandError("the code places nothing ('.' leaves a marker as it is)") }
            throw CommandError("no marker at or after the cursor to fill")
        }
        try perform("fill") { edit in
            for (track, m) in plan { edit.replace(m, track: track) }
            edit.setPattern(code.source)
        }
        return dropped > 0 ? "filled \(plan.count); \(Self.droppedMessage(dropped))" : nil
    }

    /// Spread: the code's symbols divide the loop into equal steps, as a drum machine divides a bar: symbol i
    /// of n goes at loopStart + i/n of the loop, onto the current track's marker at that time (within a
    /// microsecond) or onto a new marker there. `.` leaves its step as it is. The times are computed from
    /// the loop's ends, never accumulated, so `1x4` over a 4/4 bar lands exactly on the beats.
    func runSpread(_ code: PatternCode) throws -> String? {
        let t = try requireTrack()
        let symbols = code.symbols
        guard !symbols.isEmpty else { throw CommandError("the code places nothing") }
        let start = document.transport.loopStart, length = document.transport.loopEnd - start
        guard length > 0 else { throw CommandError("the loop is empty: set it with loop A B") }
        let markers = document.tracks[t].markers
        var onto: [Marker] = [], added: [Marker] = []
        for (i, s) in symbols.enumerated() {
            guard let content = s.content else { continue }
            let time = start + length * Double(i) / Double(symbols.count)
            let p = markers.lowerBound(time: time - Self.spreadTolerance)
            if p < markers.endIndex, abs(markers[p].time - time) <= Self.spreadTolerance {
                var m = markers[p]
                m.content = content
                onto.append(m)
            } else {
                added.append(Marker(id: 0, time: time, amp: Self.defaultAmp, content: content))
            }
        }
        guard !onto.isEmpty || !added.isEmpty else {
            throw CommandError("the code places nothing ('.' leaves a step as it is)")
        }
        try Limits.checkAdding(added.count, to: markerCount, "spread")
        try perform("spread") { edit in
            for m in onto { edit.replace(m, track: t) }
            for m in added { edit.insert(m, track: t) }
        }
        return added.isEmpty ? nil : "spread \(onto.count + added.count); \(added.count) new marker\(added.count == 1 ? "" : "s")"
    }

    /// How near a marker must be to a spread step to take its clip: far below a sample at any rate.
    static let spreadTolerance = 1e-6

    func runPattern(_ code: String) throws -> String? {
        _ = try PatternParser.parse(code)
        guard code != document.pattern else { return "pattern \"\(code)\"" }
        try perform("pattern") { $0.setPattern(code) }
        return "pattern \"\(code)\""
    }

    static func droppedMessage(_ n: Int) -> String {
        n == 1 ? "dropped 1 token past the last marker" : "dropped \(n) tokens past the last marker"
    }
}

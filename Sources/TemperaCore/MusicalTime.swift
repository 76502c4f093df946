/// Musical time: beats, bars and the cursor grid as a view onto the document's seconds.
///
/// Times stay seconds at tempo x1, so nothing in a document changes meaning when `beat` or `meter` change.
/// Beat k starts at `k * beat` seconds (at x1), counted from time 0 of the timeline. At tempo x the beat lasts
/// `beat / x` seconds of playback, so BPM = 60 * x / beat. Bars and the grid count the meter's pulses (`pulse`:
/// the beat itself in a quarter-note meter, half of it in 7/8): pulse k starts at `k * pulse`, bar j at pulse
/// `j * meter`.
///
/// Pure functions; any thread.
extension Transport {
    /// Beats per minute as heard: 60 * tempo / beat.
    public var bpm: Double { Self.bpm(tempo: tempo, beat: beat) }

    /// Beats per minute at tempo factor `x` (a tempo point's, a ramp's end, the tempo heard) with this beat.
    public func bpm(atTempo x: Double) -> Double { Self.bpm(tempo: x, beat: beat) }

    /// Beats per minute of a beat of `beat` seconds played at tempo factor `x`: 60 * x / beat. With
    /// `tempo(forBPM:beat:)` its inverse, the one place the conversion is written.
    public static func bpm(tempo x: Double, beat: Double) -> Double { 60 * x / beat }

    /// The tempo factor that plays `bpm` beats a minute of `beat` seconds: bpm * beat / 60.
    public static func tempo(forBPM bpm: Double, beat: Double) -> Double { bpm * beat / 60 }

    /// The tempo factor that plays `bpm` beats a minute: bpm * beat / 60.
    public func tempo(forBPM bpm: Double) -> Double { Self.tempo(forBPM: bpm, beat: beat) }

    /// The tempo factor that plays `bpm` beats a minute of `beat` seconds, kept within `tempoRange` (a tempo set
    /// from outside: an Ableton Link session, a key stepping a BPM).
    public static func tempoInRange(forBPM bpm: Double, beat: Double) -> Double {
        min(max(tempo(forBPM: bpm, beat: beat), tempoRange.lowerBound), tempoRange.upperBound)
    }

    /// One grid step in seconds at x1 (pulse / steps); nil when the grid is off.
    public var gridStep: Double? { grid.map { pulse / Double($0) } }

    /// Grid point `k` of a grid of `steps` a pulse: k * pulse / steps seconds (computed so, not as k times the
    /// step, so that point 5 of a fifth-pulse grid is exactly one pulse).
    public func gridPoint(_ k: Int, steps: Int) -> Double {
        Double(k) * pulse / Double(steps)
    }

    /// The grid point of a grid of `steps` a pulse nearest to `t` (a half step rounds up), never before 0.
    public func nearestGridPoint(to t: Double, steps: Int) -> Double {
        gridPoint(max(0, Int((t * Double(steps) / pulse).rounded())), steps: steps)
    }

    /// The first grid point after `t` (a point within a nanosecond of `t` counts as `t` itself).
    public func gridPoint(after t: Double, steps: Int) -> Double {
        var k = Int((t * Double(steps) / pulse).rounded(.down))
        while gridPoint(k, steps: steps) <= t + Self.sameTime { k += 1 }
        return gridPoint(k, steps: steps)
    }

    /// The last grid point before `t`, never before 0 (a point within a nanosecond of `t` counts as `t`).
    public func gridPoint(before t: Double, steps: Int) -> Double {
        var k = Int((t * Double(steps) / pulse).rounded(.up))
        while k > 0, gridPoint(k, steps: steps) >= t - Self.sameTime { k -= 1 }
        return gridPoint(max(0, k), steps: steps)
    }

    /// Times closer than this are one grid position (rounding in `k * beat / steps`).
    static let sameTime = 1e-9

    /// Where `t` falls in bars and the meter's pulses: `bar` and `beat` (the pulse in the bar) from 1, and
    /// `offset`, the seconds (at x1) since that pulse started. A time within a nanosecond before a pulse counts as
    /// that pulse.
    public func barBeat(_ t: Double) -> (bar: Int, beat: Int, offset: Double) {
        let pulse = self.pulse
        var index = Int((t / pulse).rounded(.down))
        if Double(index + 1) * pulse - t <= Self.sameTime { index += 1 }
        index = max(0, index)
        let offset = Swift.max(0, t - Double(index) * pulse)
        return (index / meter + 1, index % meter + 1, offset)
    }

    /// The ruler's `bar.beat` label for `t`: `3.2` is bar 3, beat 2.
    public func barBeatLabel(_ t: Double) -> String {
        let p = barBeat(t)
        return "\(p.bar).\(p.beat)"
    }

    /// Seconds at x1 of one bar.
    public var barLength: Double { pulse * Double(meter) }
}

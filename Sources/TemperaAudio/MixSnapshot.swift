import TemperaCore

/// One schedule event as the audio thread reads it: plain numbers only.
struct MixEvent: Equatable {
    var time: Double
    var gateEnd: Double
    var amp: Float
    var track: Int32
    /// 1...16, or 0 for `?`.
    var clip: Int32
    /// What a `?` draw is keyed on (`Schedule.Event.randomKey`).
    var randomKey: UInt64
    var isCut: Bool
    /// The marker the event comes from (`Schedule.Event.marker`): with the track, its identity across edits.
    var marker: MarkerID
}

/// One clip slot as the audio thread reads it.
struct MixSlot {
    /// Interleaved stereo at the output rate; nil when the slot is empty or its file failed to load.
    var data: UnsafePointer<Float>?
    var frames: Int
    var gain: Float
    var gate: Bool
    var attackFrames: Int
    /// 0: hold full level after the attack.
    var decayFrames: Int
    var releaseFrames: Int
}

/// Everything the render path needs, flattened into raw memory: the schedule's events, the slots with their
/// sample pointers, track gains and transport settings. Immutable once published.
struct MixSnapshot {
    var seq: Int
    var events: UnsafeMutablePointer<MixEvent>
    var eventCount: Int
    var slots: UnsafeMutablePointer<MixSlot>
    var trackGains: UnsafeMutablePointer<Float>
    var trackCount: Int
    var start: Double
    var end: Double
    var span: Double
    var tempo: Double
    var looping: Bool
    var volume: Float
    var seed: UInt64
    var randomPool: UInt16
    /// The metronome (see `MixClick`).
    var click: MixClick

    /// The output frame offset of `time` in pass `pass`: exactly `Schedule.frame(pass:time:)`.
    @inline(__always)
    func frame(pass: Int, time: Double, rate: Double) -> Int64 {
        Schedule.frame(pass: pass, time: time, span: span, tempo: tempo, sampleRate: rate)
    }
}

/// The metronome as the audio thread reads it: beat k of the timeline (from time 0) sounds at
/// `k * beat - start` seconds (x1) into each pass, for `first <= k < end`; `k % meter == 0` is the accent.
struct MixClick {
    var on: Bool
    var level: Float
    var beat: Double
    var meter: Int
    /// The first beat at or after the region's start, and one past the last beat before its end.
    var first: Int
    var end: Int
    /// Bars of count-in before playback starts (with the click on).
    var countIn: Int
    var accent: UnsafePointer<Float>?
    var accentFrames: Int
    var normal: UnsafePointer<Float>?
    var normalFrames: Int

    /// No metronome.
    static var off: MixClick { MixClick(on: false, level: 0, beat: 1, meter: 1, first: 0, end: 0, countIn: 0, accent: nil,
                              accentFrames: 0, normal: nil, normalFrames: 0) }

    /// Seconds (x1) after the region's start where beat `k` falls.
    @inline(__always)
    func time(_ k: Int, start: Double) -> Double { Double(k) * beat - start }

    /// The beats of the timeline inside [start, end): `first..<end`, computed so that `time(k) >= 0` exactly.
    static func beats(start: Double, end: Double, beat: Double) -> (first: Int, end: Int) {
        // A region or beat so far apart that the count would not fit is treated as having no beat.
        guard beat > 0, end / beat < 1e15 else { return (0, 0) }
        var first = Int((start / beat).rounded(.up))
        while first > 0 && Double(first - 1) * beat >= start { first -= 1 }
        while Double(first) * beat < start { first += 1 }
        var last = Int((end / beat).rounded(.up))
        while last > first && Double(last - 1) * beat >= end { last -= 1 }
        while Double(last) * beat < end { last += 1 }
        return (first, max(first, last))
    }
}

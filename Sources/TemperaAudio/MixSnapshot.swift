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

    /// The output frame offset of `time` in pass `pass`: exactly `Schedule.frame(pass:time:)`.
    @inline(__always)
    func frame(pass: Int, time: Double, rate: Double) -> Int64 {
        Schedule.frame(pass: pass, time: time, span: span, tempo: tempo, sampleRate: rate)
    }
}

import TemperaCore

/// One schedule event as the audio thread reads it: plain numbers only.
struct MixEvent: Equatable {
    var time: Double
    var gateEnd: Double
    /// The marker's amplitude, exact: the velocity layer is chosen on it.
    var amp: Double
    var track: Int32
    /// 1...16, or 0 for `?`.
    var clip: Int32
    /// What a `?` draw is keyed on (`Schedule.Event.randomKey`).
    var randomKey: UInt64
    var isCut: Bool
    /// The velocity layer of the slot this onset plays (an index into the slot's layers), chosen when the snapshot
    /// is built; -1 for a `?`, whose slot is drawn per pass (its layer is then picked by the same rule).
    var layer: Int32 = -1
    /// The marker the event comes from (`Schedule.Event.marker`): with the track, its identity across edits.
    var marker: MarkerID
}

/// One sound of a slot: its file, or one of its velocity layers.
struct MixLayer {
    /// Interleaved stereo at the output rate; nil when the file failed to load.
    var data: UnsafePointer<Float>?
    var frames: Int
    var gain: Float
    /// The amplitudes it answers (`ClipSlot.Layer`); 0...1 for a slot's single file.
    var min: Double
    var max: Double
}

/// One clip slot as the audio thread reads it.
struct MixSlot {
    /// Its sounds: `MixSnapshot.layers[firstLayer ..< firstLayer + layerCount]` (0 for an empty slot).
    var firstLayer: Int
    var layerCount: Int
    var gain: Float
    var gate: Bool
    var attackFrames: Int
    /// 0: hold full level after the attack.
    var decayFrames: Int
    var releaseFrames: Int
    /// The pan law's gains (`Pan.gains`).
    var panLeft: Float
    var panRight: Float
    /// Choke group, 0 for none.
    var choke: Int32

    /// The layer an amplitude plays (`ClipSlot.layer(for:)`), from the snapshot's layer table.
    @inline(__always)
    func layer(for amp: Double, in layers: UnsafeMutablePointer<MixLayer>) -> Int {
        let first = firstLayer
        return ClipSlot.Layer.pick(amp, count: layerCount) { (layers[first + $0].min, layers[first + $0].max) }
    }
}

/// Everything the render path needs, flattened into raw memory: the schedule's events, the slots with their
/// sample pointers, track gains and transport settings. Immutable once published.
struct MixSnapshot {
    var seq: Int
    var events: UnsafeMutablePointer<MixEvent>
    var eventCount: Int
    var slots: UnsafeMutablePointer<MixSlot>
    var layers: UnsafeMutablePointer<MixLayer>
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

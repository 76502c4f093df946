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

/// Shortest fades, in seconds, whatever a slot asks for: a start, and a cut or gate close.
enum Fades {
    static let minimumAttack = 0.001
    static let minimumRelease = 0.0025
    /// A voice taken for a new one (polyphony limit) fades this fast.
    static let steal = 0.0025
}

/// The editor-side owner of a published snapshot: frees its memory and releases its samples when dropped.
final class PublishedSnapshot {
    let pointer: UnsafeMutablePointer<MixSnapshot>
    /// Keeps the samples the snapshot points into alive.
    let samples: [SampleBuffer?]
    var seq: Int { pointer.pointee.seq }

    /// A snapshot of `doc` with its events already compiled (by an `EventCompiler`).
    init(seq: Int, document doc: Document, events compiled: [MixEvent], sampleRate rate: Double, samples: [SampleBuffer?]) {
        self.samples = samples
        let (start, end) = Schedule.region(of: doc.transport)
        let trackGains = Schedule.trackGains(of: doc.tracks)
        let events = UnsafeMutablePointer<MixEvent>.allocate(capacity: max(compiled.count, 1))
        compiled.withUnsafeBufferPointer { if let p = $0.baseAddress { events.initialize(from: p, count: $0.count) } }
        let mixSlots = UnsafeMutablePointer<MixSlot>.allocate(capacity: ClipSlot.count)
        for n in 0..<ClipSlot.count {
            let slot = n < doc.slots.count ? doc.slots[n] : ClipSlot()
            let buffer = n < samples.count ? samples[n] : nil
            let decay = slot.decay.map { max(1, Int($0 / 1000 * rate)) } ?? 0
            (mixSlots + n).initialize(to: MixSlot(
                data: buffer.map { UnsafePointer($0.data) }, frames: buffer?.frames ?? 0, gain: Float(slot.gain),
                gate: slot.mode == .gate,
                attackFrames: max(1, Int(max(slot.attack / 1000, Fades.minimumAttack) * rate)),
                decayFrames: decay,
                releaseFrames: max(1, Int(max(slot.release / 1000, Fades.minimumRelease) * rate))))
        }
        let gains = UnsafeMutablePointer<Float>.allocate(capacity: max(trackGains.count, 1))
        for (i, g) in trackGains.enumerated() { (gains + i).initialize(to: Float(g)) }
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: MixSnapshot(
            seq: seq, events: events, eventCount: compiled.count, slots: mixSlots, trackGains: gains,
            trackCount: trackGains.count, start: start, end: end, span: end - start,
            tempo: doc.transport.tempo, looping: doc.transport.loopOn,
            volume: Float(min(max(doc.transport.volume, 0), 1)),
            seed: doc.seed, randomPool: Schedule.randomPool(of: doc.slots)))
    }

    deinit {
        pointer.pointee.events.deallocate()
        pointer.pointee.slots.deallocate()
        pointer.pointee.trackGains.deallocate()
        pointer.deallocate()
    }
}

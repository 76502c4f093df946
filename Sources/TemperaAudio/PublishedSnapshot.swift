import TemperaCore

/// The editor-side owner of a published snapshot: frees its memory and releases its samples when dropped.
final class PublishedSnapshot {
    let pointer: UnsafeMutablePointer<MixSnapshot>
    /// Keeps the samples the snapshot points into alive.
    let samples: [[SampleBuffer?]]
    var seq: Int { pointer.pointee.seq }

    /// A snapshot of `doc` with its events already compiled (by an `EventCompiler`). `samples` holds each slot's
    /// sounds as `SampleBank` loads them: one per velocity layer, or the slot's file.
    init(seq: Int, document doc: Document, events compiled: [MixEvent], sampleRate rate: Double,
         samples: [[SampleBuffer?]]) {
        self.samples = samples
        let (start, end) = Schedule.region(of: doc.transport)
        let trackGains = Schedule.trackGains(of: doc.tracks)
        let mixSlots = UnsafeMutablePointer<MixSlot>.allocate(capacity: ClipSlot.count)
        let layerTotal = samples.reduce(0) { $0 + $1.count }
        let layers = UnsafeMutablePointer<MixLayer>.allocate(capacity: max(layerTotal, 1))
        var nextLayer = 0
        for n in 0..<ClipSlot.count {
            let slot = n < doc.slots.count ? doc.slots[n] : ClipSlot()
            let sounds = n < samples.count ? samples[n] : []
            let first = nextLayer
            for (k, buffer) in sounds.enumerated() {
                let layer = k < slot.layers.count ? slot.layers[k] : ClipSlot.Layer(file: "")
                (layers + nextLayer).initialize(to: MixLayer(
                    data: buffer.map { UnsafePointer($0.data) }, frames: buffer?.frames ?? 0, gain: Float(layer.gain),
                    min: layer.min, max: layer.max))
                nextLayer += 1
            }
            let decay = slot.decay.map { max(1, Int($0 / 1000 * rate)) } ?? 0
            let pan = Pan.gains(slot.pan)
            (mixSlots + n).initialize(to: MixSlot(
                firstLayer: first, layerCount: nextLayer - first, gain: Float(slot.gain),
                gate: slot.mode == .gate,
                attackFrames: max(1, Int(max(slot.attack / 1000, Fades.minimumAttack) * rate)),
                decayFrames: decay,
                releaseFrames: max(1, Int(max(slot.release / 1000, Fades.minimumRelease) * rate)),
                panLeft: Float(pan.left), panRight: Float(pan.right), choke: Int32(slot.choke)))
        }
        // Each onset's velocity layer is chosen here, once per published schedule, not on the audio thread.
        let events = UnsafeMutablePointer<MixEvent>.allocate(capacity: max(compiled.count, 1))
        compiled.withUnsafeBufferPointer { if let p = $0.baseAddress { events.initialize(from: p, count: $0.count) } }
        for i in 0..<compiled.count where !events[i].isCut && events[i].clip >= 1 && events[i].clip <= 16 {
            let slot = mixSlots[Int(events[i].clip) - 1]
            events[i].layer = slot.layerCount > 1 ? Int32(slot.layer(for: events[i].amp, in: layers)) : 0
        }
        let gains = UnsafeMutablePointer<Float>.allocate(capacity: max(trackGains.count, 1))
        for (i, g) in trackGains.enumerated() { (gains + i).initialize(to: Float(g)) }
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: MixSnapshot(
            seq: seq, events: events, eventCount: compiled.count, slots: mixSlots, layers: layers, trackGains: gains,
            trackCount: trackGains.count, start: start, end: end, span: end - start,
            tempo: doc.transport.tempo, looping: doc.transport.loopOn,
            volume: Float(min(max(doc.transport.volume, 0), 1)),
            seed: doc.seed, randomPool: Schedule.randomPool(of: doc.slots)))
    }

    deinit {
        pointer.pointee.events.deallocate()
        pointer.pointee.slots.deallocate()
        pointer.pointee.layers.deallocate()
        pointer.pointee.trackGains.deallocate()
        pointer.deallocate()
    }
}

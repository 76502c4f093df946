import TemperaCore

/// The editor-side owner of a published snapshot: frees its memory and releases its samples when dropped.
final class PublishedSnapshot {
    let pointer: UnsafeMutablePointer<MixSnapshot>
    /// Keeps the samples the snapshot points into alive.
    let samples: [[SampleBuffer?]]
    /// Keeps the regions' events the sections point into alive.
    let regions: [RegionEvents]
    /// Keeps the previewed sample alive.
    let preview: SampleBuffer?
    /// Keeps the metronome's sounds alive.
    let clickSound: ClickSound?
    /// The song's timing as this snapshot plays it (nil for the loop): where a pad hit heard at a song time goes.
    let songTiming: SongTiming?
    /// The loop's timing when it plays through a tempo map (nil: the song, or the loop at one tempo).
    let loopTiming: LoopTiming?
    /// Keeps the cycle tracks' events `pointer.pointee.cycles` points into alive.
    let cycleEvents: [CycleEvents]
    var seq: Int { pointer.pointee.seq }

    /// A snapshot of `doc` playing its loop, with the loop's events already compiled (by an `EventCompiler`).
    convenience init(seq: Int, document doc: Document, events compiled: [MixEvent], sampleRate rate: Double,
                     samples: [[SampleBuffer?]], clickSound: ClickSound? = nil) {
        let (start, end) = Schedule.region(of: doc.transport)
        self.init(seq: seq, document: doc, sampleRate: rate, samples: samples,
                  playback: .loop(events: RegionEvents(compiled), start: start, end: end, transport: doc.transport),
                  clickSound: clickSound)
    }

    /// A snapshot of `doc` playing `playback` (the loop or the song, compiled by an `EventCompiler`).
    /// `clickSound` nil: the metronome is silent whatever the document says.
    init(seq: Int, document doc: Document, sampleRate rate: Double, samples: [[SampleBuffer?]], playback: Playback,
         clickSound: ClickSound? = nil, preview: (buffer: SampleBuffer, serial: Int)? = nil) {
        self.samples = samples
        self.preview = preview?.buffer
        self.clickSound = clickSound
        songTiming = playback.song ? SongTiming(song: doc.song, tempo: doc.transport.tempo, map: doc.transport.tempoMap)
            : nil
        if !playback.song, let s = playback.sections.first, !s.clock.isConstant {
            loopTiming = LoopTiming(start: s.start, clock: s.clock, pieces: playback.pieces)
        } else {
            loopTiming = nil
        }
        var cycles: UnsafeMutablePointer<MixCycle>? = nil
        if !playback.cycles.isEmpty {
            let c = UnsafeMutablePointer<MixCycle>.allocate(capacity: playback.cycles.count)
            for (i, events) in playback.cycles.enumerated() { (c + i).initialize(to: events.mix) }
            cycles = c
        }
        cycleEvents = playback.cycles
        var pieces: UnsafeMutablePointer<TempoPiece>? = nil
        if !playback.pieces.isEmpty {
            let p = UnsafeMutablePointer<TempoPiece>.allocate(capacity: playback.pieces.count)
            playback.pieces.withUnsafeBufferPointer { p.initialize(from: $0.baseAddress!, count: $0.count) }
            pieces = p
        }
        let sections = UnsafeMutablePointer<MixSection>.allocate(capacity: max(playback.sections.count, 1))
        playback.sections.withUnsafeBufferPointer {
            if let p = $0.baseAddress { sections.initialize(from: p, count: $0.count) }
        }
        let trackGains = Schedule.trackGains(of: doc.tracks)
        regions = playback.regions
        let mixSlots = UnsafeMutablePointer<MixSlot>.allocate(capacity: ClipSlot.count)
        let layerTotal = samples.reduce(0) { $0 + $1.count }
        let layers = UnsafeMutablePointer<MixLayer>.allocate(capacity: max(layerTotal, 1))
        var nextLayer = 0
        for n in 0..<ClipSlot.count {
            let slot = n < doc.slots.count ? doc.slots[n] : ClipSlot()
            let sounds = n < samples.count ? samples[n] : []
            let first = nextLayer
            let played = slot.playedLayers
            for (k, buffer) in sounds.enumerated() {
                let layer = k < played.count ? played[k] : ClipSlot.Layer(file: "")
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
                panLeft: Float(pan.left), panRight: Float(pan.right), choke: Int32(slot.choke),
                midiChannel: slot.midiChannel.map { Int8(clamping: $0 - 1) } ?? -1,
                midiNote: UInt8(clamping: min(max(slot.midiOutNote, 0), 127))))
        }
        let gains = UnsafeMutablePointer<Float>.allocate(capacity: max(trackGains.count, 1))
        for (i, g) in trackGains.enumerated() { (gains + i).initialize(to: Float(g)) }
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: MixSnapshot(
            seq: seq, sections: sections,
            sectionCount: playback.sections.count, song: playback.song, total: playback.total,
            totalPasses: playback.totalPasses, pieces: pieces, pieceCount: playback.pieces.count, slots: mixSlots, layers: layers, trackGains: gains,
            trackCount: trackGains.count, looping: playback.looping,
            volume: Float(min(max(doc.transport.volume, 0), 1)),
            seed: doc.seed, randomPool: Schedule.randomPool(of: doc.slots),
            click: Self.click(doc.transport, sound: clickSound),
            previewData: preview.map { UnsafePointer($0.buffer.data) }, previewFrames: preview?.buffer.frames ?? 0,
            previewSerial: preview?.serial ?? 0, beat: doc.transport.beat, meter: max(1, doc.transport.meter),
            meterUnit: Meter.units.contains(doc.transport.meterUnit) ? doc.transport.meterUnit : 4, cycles: cycles))
        let midiIn = UnsafeMutablePointer<Int8>.allocate(capacity: 128)
        for (n, slot) in ClipSlot.midiInSlots(doc.slots).enumerated() { (midiIn + n).initialize(to: Int8(slot.map { $0 - 1 } ?? -1)) }
        pointer.pointee.midiIn = midiIn
    }

    static func click(_ t: Transport, sound: ClickSound?) -> MixClick {
        guard t.click, let sound else { return .off }
        return MixClick(on: true, level: Float(min(max(t.clickLevel, 0), 1)), beat: t.pulse, meter: max(1, t.meter),
                        groups: t.signature.groupMask, countIn: max(0, t.countIn),
                        accent: UnsafePointer(sound.accent.data), accentFrames: sound.accent.frames,
                        normal: UnsafePointer(sound.beat.data), normalFrames: sound.beat.frames,
                        group: UnsafePointer(sound.group.data), groupFrames: sound.group.frames)
    }

    deinit {
        pointer.pointee.sections.deallocate()
        pointer.pointee.slots.deallocate()
        pointer.pointee.layers.deallocate()
        pointer.pointee.trackGains.deallocate()
        pointer.pointee.pieces?.deallocate()
        pointer.pointee.cycles?.deallocate()
        pointer.pointee.midiIn?.deallocate()
        pointer.deallocate()
    }
}

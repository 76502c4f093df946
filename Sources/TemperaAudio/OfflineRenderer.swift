import CSndfile
import Foundation
import TemperaCore

/// Renders a document to memory or to a file with exactly the mixing code of live playback: the render is the
/// reference live output is tested against.
public struct OfflineRenderer {
    /// File formats `write` produces.
    public enum Format: String, CaseIterable, Sendable {
        case wav, flac
    }

    /// Sample formats: 16- or 24-bit integers, or 32-bit float (WAV only).
    public enum Bits: String, CaseIterable, Sendable {
        case int16 = "16", int24 = "24", float32 = "32f"
    }

    public struct RenderError: Error, CustomStringConvertible {
        public var description: String
    }

    public let document: Document
    public let sampleRate: Double
    /// Passes of the region to play (of the whole song when the document's song plays).
    public let loops: Int
    /// After the last pass, voices ring out for at most this long (0: the file ends with the last pass, with
    /// a short fade so it does not click).
    public let maxTail: Double
    public let warnings: [String]
    /// Voices sounding at once before the oldest is stolen.
    public let polyphony: Int
    private let samples: [[SampleBuffer?]]
    private let playback: Playback

    /// Loads the document's samples. Problems are in `warnings`; those slots render silence.
    public init(document: Document, baseDirectory: String?, sampleRate: Double = 48_000, loops: Int = 1,
                maxTail: Double = 10, kitDirectory: String? = nil, polyphony: Int = 64) {
        self.polyphony = min(max(1, polyphony), RenderState.voiceCapacity - 8)
        self.document = document
        self.sampleRate = sampleRate
        self.loops = max(1, loops)
        self.maxTail = max(0, maxTail)
        // A render maps the cached samples it plays rather than reading them into memory of its own.
        let bank = SampleBank(sampleRate: sampleRate, kitDirectory: kitDirectory, mapsCachedSamples: true)
        playback = EventCompiler().playback(for: document)
        // Only the velocity layers the render plays are read and converted.
        let (buffers, warnings) = bank.samples(for: document.slots, baseDirectory: baseDirectory,
                                               layersUsed: Self.layersUsed(playback, slots: document.slots))
        self.samples = buffers
        self.warnings = warnings
    }

    /// Per slot, the velocity layers `playback`'s onsets pick (nil: a slot without layers, all of it). A `?`
    /// may draw any slot of the random pool, so its amplitude's layer counts in each.
    static func layersUsed(_ playback: Playback, slots: [ClipSlot]) -> [Set<Int>?] {
        var used = slots.map { $0.layers.isEmpty ? nil : Set<Int>() as Set<Int>? }
        let pool = Schedule.randomPool(of: slots)
        func note(_ e: MixEvent) {
            guard !e.isCut else { return }
            if e.clip == 0 {
                for k in slots.indices where pool & (1 << k) != 0 && used[k] != nil {
                    if let layer = slots[k].layer(for: e.amp) { used[k]!.insert(layer) }
                }
            } else if (1...slots.count).contains(Int(e.clip)), used[Int(e.clip) - 1] != nil {
                let k = Int(e.clip) - 1
                let layer = e.layer >= 0 && Int(e.layer) < slots[k].layers.count ? Int(e.layer) : slots[k].layer(for: e.amp)
                if let layer { used[k]!.insert(layer) }
            }
        }
        for region in playback.regions { for i in 0..<region.count { note(region.pointer[i]) } }
        for cycle in playback.cycles { for i in 0..<cycle.count { note(cycle.pointer[i]) } }
        return used
    }

    /// The frames the passes take (without the count-in and the tail): `schedule.frame(pass: loops, time: 0)`, or for a song
    /// where its pass `loops` would start.
    public var passFrames: Int {
        // The arithmetic alone: compiling the whole schedule for one number would sort every event again.
        if document.song.plays {
            let timing = SongTiming(song: document.song, tempo: document.transport.tempo, map: document.transport.tempoMap)
            return Int((timing.time(songPass: loops, section: 0, pass: 0, time: 0) * sampleRate).rounded())
        }
        let (start, end) = Schedule.region(of: document.transport)
        let (clock, pieces) = Schedule.clock(of: document.transport, start: start, end: end)
        if clock.isConstant {
            return Int(Schedule.frame(pass: loops, time: 0, span: end - start, tempo: document.transport.tempo,
                                      sampleRate: sampleRate))
        }
        return Int((pieces.withUnsafeBufferPointer { clock.time(pass: loops, time: 0, pieces: $0.baseAddress) }
            * sampleRate).rounded())
    }

    /// The frames of the count-in before the first pass: the document's `countin` bars of click at the tempo
    /// playback starts with, when its click is on; else 0.
    public var countInFrames: Int {
        let t = document.transport
        guard t.click, t.countIn > 0 else { return 0 }
        let (start, end) = Schedule.region(of: t)
        let tempo = document.song.plays ? SongTiming(song: document.song, tempo: t.tempo, map: t.tempoMap).sections[0].tempo
            : Schedule.clock(of: t, start: start, end: end).0.tempo
        let meter = document.song.plays ? document.song.sections[0].meter ?? t.signature : t.signature
        return Int((Double(t.countIn * max(1, meter.count)) * (meter.pulse(beat: t.beat) / tempo * sampleRate)).rounded())
    }

    /// Runs `body` with a render state playing the document from the loop start, `loops` passes.
    private func withPlayingState<R>(_ body: (UnsafeMutablePointer<RenderState>, UnsafeMutablePointer<EngineShared>) throws -> R)
        rethrows -> R {
        let snap = PublishedSnapshot(seq: 1, document: document, sampleRate: sampleRate, samples: samples,
                                     playback: playback,
                                     clickSound: document.transport.click ? ClickSound(sampleRate: sampleRate) : nil)
        return try RenderState.withAdopted(snap, rate: sampleRate, polyphony: polyphony) { state, shared in
            shared.pointee.send(TransportCommand(.play, value: Int32(clamping: loops)))
            return try body(state, shared)
        }
    }

    /// The blocks a render is cut into: the passes, then the tail while voices sound. `block` renders `n` frames
    /// and reports whether any voice still sounds; it gets the progress 0...1 too.
    private func forEachBlock(blockFrames: Int, minimumLast: Int = 0, _ block: (Int, Double) throws -> Bool) rethrows {
        let total = countInFrames + passFrames
        var done = 0
        var sounding = false
        while done < total {
            var n = min(blockFrames, total - done)
            // Keep the final block long enough to hold the end fade.
            if total - done - n < minimumLast { n = total - done }
            done += n
            sounding = try block(n, Double(done) / Double(total + 1))
        }
        let tailFrames = Int(maxTail * sampleRate)
        var tail = 0
        while tail < tailFrames && sounding {
            let n = min(blockFrames, tailFrames - tail)
            sounding = try block(n, Double(total) / Double(total + 1))
            tail += n
        }
    }

    /// Frames faded out at the very end when there is no tail.
    var endFadeFrames: Int { maxTail == 0 ? Int(0.005 * sampleRate) : 0 }

    /// Renders block by block, handing each block (interleaved stereo) to `sink` with the progress 0...1.
    /// `blockFrames` only changes how the work is cut, never the samples. Without a tail, the end is not faded
    /// here (`renderAll` and `write` fade it).
    public func render(blockFrames: Int = 512, _ sink: (UnsafeBufferPointer<Float>, Double) throws -> Void) rethrows {
        try withPlayingState { state, shared in
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames * 2)
            defer { buffer.deallocate() }
            try forEachBlock(blockFrames: blockFrames) { n, fraction in
                RenderState.render(state, into: buffer, frames: n)
                try sink(UnsafeBufferPointer(start: buffer, count: n * 2), fraction)
                return shared.pointee.activeVoices.load(ordering: .relaxed) > 0
            }
        }
    }

    /// The whole render in memory, interleaved stereo. With `maxTail` 0 the last 5 ms are faded out.
    public func renderAll(blockFrames: Int = 512) -> [Float] {
        var out: [Float] = []
        out.reserveCapacity((countInFrames + passFrames) * 2)
        render(blockFrames: blockFrames) { block, _ in out.append(contentsOf: block) }
        let frames = out.count / 2, fade = endFadeFrames
        out.withUnsafeMutableBufferPointer { if let p = $0.baseAddress { Fades.fadeOut(p, frames: frames, last: fade) } }
        return out
    }

    /// The ceiling `write` holds the true peak at when asked to: the master's, -0.3 dBFS, as a true peak (dBTP).
    public static let truePeakCeiling = RenderState.limit

    /// Writes the render to `path` through the file output backend. `progress` is called with 0...1. With
    /// `truePeak`, the true (inter-sample) peak is held at or below `truePeakCeiling` by a look-ahead limiter.
    public func write(to path: String, format: Format = .wav, bits: Bits = .int24, truePeak: Bool = false,
                      progress: (Double) -> Void = { _ in }) throws {
        let output = try FileOutput(path: path, format: format, bits: bits, sampleRate: sampleRate,
                                    blockFrames: 512 + endFadeFrames,
                                    truePeakCeiling: truePeak ? Self.truePeakCeiling : nil)
        try withPlayingState { state, shared in
            output.open(render: state, shared: shared, sampleRate: sampleRate)
            let total = countInFrames + passFrames
            var written = 0
            try forEachBlock(blockFrames: 512, minimumLast: endFadeFrames) { n, fraction in
                written += n
                try output.pull(frames: n, fadeOutLast: written == total ? endFadeFrames : 0)
                progress(fraction)
                return shared.pointee.activeVoices.load(ordering: .relaxed) > 0
            }
            try output.finish()
        }
        progress(1)
    }
}

extension RenderState {
    /// Runs `body` with a render state and shared state of their own that have adopted `snap`, the master level
    /// already at its volume (as a live engine that has been running settles to); all is freed after `body`.
    static func withAdopted<R>(_ snap: PublishedSnapshot, rate: Double, polyphony: Int? = nil,
                               _ body: (UnsafeMutablePointer<RenderState>, UnsafeMutablePointer<EngineShared>) throws -> R)
        rethrows -> R {
        let shared = UnsafeMutablePointer<EngineShared>.allocate(capacity: 1)
        shared.initialize(to: EngineShared())
        let state = RenderState.make(rate: rate, shared: shared)
        defer {
            RenderState.destroy(state)
            shared.deinitialize(count: 1)
            shared.deallocate()
            withExtendedLifetime(snap) {}
        }
        shared.pointee.latest.store(Int(bitPattern: snap.pointer), ordering: .releasing)
        if let polyphony { state.pointee.polyphony = polyphony }
        RenderState.adoptLatest(state)
        state.pointee.master = snap.pointer.pointee.volume
        return try body(state, shared)
    }
}

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
    /// Passes of the region to play.
    public let loops: Int
    /// After the last pass, voices ring out for at most this long (0: the file ends with the last pass, with
    /// a short fade so it does not click).
    public let maxTail: Double
    public let warnings: [String]
    /// Voices sounding at once before the oldest is stolen.
    public let polyphony: Int
    private let samples: [SampleBuffer?]

    /// Loads the document's samples. Problems are in `warnings`; those slots render silence.
    public init(document: Document, baseDirectory: String?, sampleRate: Double = 48_000, loops: Int = 1,
                maxTail: Double = 10, kitDirectory: String? = nil, polyphony: Int = 64) {
        self.polyphony = min(max(1, polyphony), RenderState.voiceCapacity - 8)
        self.document = document
        self.sampleRate = sampleRate
        self.loops = max(1, loops)
        self.maxTail = max(0, maxTail)
        let bank = SampleBank(sampleRate: sampleRate, kitDirectory: kitDirectory)
        let (buffers, warnings) = bank.samples(for: document.slots, baseDirectory: baseDirectory)
        self.samples = buffers
        self.warnings = warnings
    }

    /// The frames the passes take (without the tail): `schedule.frame(pass: loops, time: 0)`.
    public var passFrames: Int {
        Int(Schedule(document: document, sampleRate: sampleRate).frame(pass: loops, time: 0))
    }

    /// Renders block by block, handing each block (interleaved stereo) to `sink` with the progress 0...1.
    /// `blockFrames` only changes how the work is cut, never the samples.
    public func render(blockFrames: Int = 512, _ sink: (UnsafeBufferPointer<Float>, Double) throws -> Void) rethrows {
        let shared = UnsafeMutablePointer<EngineShared>.allocate(capacity: 1)
        shared.initialize(to: EngineShared())
        let state = RenderState.make(rate: sampleRate, shared: shared)
        let snap = PublishedSnapshot(seq: 1, document: document, events: EventCompiler().events(for: document),
                                     sampleRate: sampleRate, samples: samples)
        defer {
            RenderState.destroy(state)
            shared.deinitialize(count: 1)
            shared.deallocate()
            withExtendedLifetime(snap) {}
        }
        shared.pointee.latest.store(Int(bitPattern: snap.pointer), ordering: .releasing)
        state.pointee.polyphony = polyphony
        RenderState.adoptLatest(state)
        // Full volume from the first sample: no fade-in of the master the live engine would not have either.
        state.pointee.master = snap.pointer.pointee.volume
        shared.pointee.send(TransportCommand(.play, value: Int32(clamping: loops)))

        let total = passFrames
        let tailFrames = Int(maxTail * sampleRate)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames * 2)
        defer { buffer.deallocate() }
        var done = 0
        while done < total {
            let n = min(blockFrames, total - done)
            RenderState.render(state, into: buffer, frames: n)
            done += n
            try sink(UnsafeBufferPointer(start: buffer, count: n * 2), Double(done) / Double(total + 1))
        }
        if tailFrames == 0 {
            // End exactly on the last pass; the final 5 ms fade out so nothing clicks.
            return
        }
        var tail = 0
        while tail < tailFrames && shared.pointee.activeVoices.load(ordering: .relaxed) > 0 {
            let n = min(blockFrames, tailFrames - tail)
            RenderState.render(state, into: buffer, frames: n)
            tail += n
            try sink(UnsafeBufferPointer(start: buffer, count: n * 2), Double(total) / Double(total + 1))
        }
    }

    /// The whole render in memory, interleaved stereo. With `maxTail` 0 the last 5 ms are faded out.
    public func renderAll(blockFrames: Int = 512) -> [Float] {
        var out: [Float] = []
        out.reserveCapacity(passFrames * 2)
        render(blockFrames: blockFrames) { block, _ in out.append(contentsOf: block) }
        if maxTail == 0 { Self.fadeEnd(&out, frames: Int(0.005 * sampleRate)) }
        return out
    }

    static func fadeEnd(_ out: inout [Float], frames: Int) {
        let total = out.count / 2
        let n = min(frames, total)
        for k in 0..<n {
            let g = Float(n - 1 - k) / Float(n)
            out[2 * (total - n + k)] *= g
            out[2 * (total - n + k) + 1] *= g
        }
    }

    /// Writes the render to `path` with libsndfile. `progress` is called with 0...1 as blocks are written.
    public func write(to path: String, format: Format = .wav, bits: Bits = .int24,
                      progress: (Double) -> Void = { _ in }) throws {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = 2
        let major = format == .wav ? Int32(SF_FORMAT_WAV) : Int32(SF_FORMAT_FLAC)
        switch bits {
        case .int16: info.format = major | Int32(SF_FORMAT_PCM_16)
        case .int24: info.format = major | Int32(SF_FORMAT_PCM_24)
        case .float32:
            guard format == .wav else { throw RenderError(description: "FLAC holds 16 or 24 bits, not 32-bit float") }
            info.format = major | Int32(SF_FORMAT_FLOAT)
        }
        guard sf_format_check(&info) != 0 else {
            throw RenderError(description: "\(path): libsndfile cannot write \(format.rawValue) at \(Int(sampleRate)) Hz")
        }
        guard let file = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw RenderError(description: "\(path): \(String(cString: sf_strerror(nil)))")
        }
        var closed = false
        defer { if !closed { sf_close(file) } }
        sf_command(file, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        // Whole render first when the end needs a fade (it touches the last block); else stream block by block.
        if maxTail == 0 {
            let all = renderAll()
            progress(0.99)
            try Self.writeFrames(all[...], to: file, path: path)
        } else {
            try render { block, fraction in
                try Self.writeFrames(block[...], to: file, path: path)
                progress(fraction)
            }
        }
        closed = true
        guard sf_close(file) == 0 else { throw RenderError(description: "\(path): could not be closed") }
        progress(1)
    }

    private static func writeFrames<C: RandomAccessCollection>(_ samples: C, to file: OpaquePointer, path: String) throws
        where C.Element == Float {
        let frames = samples.count / 2
        let written = samples.withContiguousStorageIfAvailable { sf_writef_float(file, $0.baseAddress, sf_count_t(frames)) }
            ?? Array(samples).withUnsafeBufferPointer { sf_writef_float(file, $0.baseAddress, sf_count_t(frames)) }
        guard written == frames else {
            throw RenderError(description: "\(path): write failed (\(String(cString: sf_strerror(file))))")
        }
    }
}

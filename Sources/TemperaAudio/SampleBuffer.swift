import Glibc

/// Audio ready to mix: stereo interleaved Float32 at the output rate, in memory that never moves.
///
/// Built on the main thread; the audio thread reads `data` through the raw pointers of a published snapshot,
/// and the engine keeps the buffer alive until no snapshot or voice can still reach it.
public final class SampleBuffer: @unchecked Sendable {
    /// `frames * 2` floats, left and right interleaved.
    public let data: UnsafeMutablePointer<Float>
    public let frames: Int
    public let sampleRate: Double
    /// Samples of the source that were NaN or infinite and became silence (0): a float file can hold them,
    /// and one would pin the mix at full scale.
    public internal(set) var replacedNonFinite = 0
    /// A buffer mapped from a file (a cached sample, for a render): the mapping `data` lies in, unmapped when the
    /// buffer goes; nil for memory of its own. Its pages are the file's and read-only: nothing writes a
    /// buffer's samples once it is made. Not for live playback: the kernel may drop a file's pages under memory
    /// pressure and read them again when touched, and the audio thread must never wait on a disk.
    private let mapping: (base: UnsafeMutableRawPointer, length: Int)?

    /// Takes ownership of `data` (allocated with `UnsafeMutablePointer.allocate`).
    init(data: UnsafeMutablePointer<Float>, frames: Int, sampleRate: Double) {
        self.data = data
        self.frames = frames
        self.sampleRate = sampleRate
        mapping = nil
    }

    /// Takes ownership of the read-only mapping at `base` (`length` bytes, from `mmap`), `data` inside it.
    init(mapping base: UnsafeMutableRawPointer, length: Int, data: UnsafePointer<Float>, frames: Int, sampleRate: Double) {
        self.data = UnsafeMutablePointer(mutating: data)
        self.frames = frames
        self.sampleRate = sampleRate
        mapping = (base, length)
    }

    /// Whether the samples are a file's pages mapped into memory rather than memory of their own.
    public var isMapped: Bool { mapping != nil }

    /// Copies interleaved stereo samples; NaN and infinities become 0 (counted in `replacedNonFinite`).
    public convenience init(stereo: [Float], sampleRate: Double) {
        let frames = stereo.count / 2
        let p = UnsafeMutablePointer<Float>.allocate(capacity: max(frames * 2, 2))
        p.initialize(repeating: 0, count: max(frames * 2, 2))
        var replaced = 0
        stereo.withUnsafeBufferPointer { src in
            for i in 0..<(frames * 2) {
                let x = src[i]
                if x.isFinite { p[i] = x } else { replaced += 1 }
            }
        }
        self.init(data: p, frames: frames, sampleRate: sampleRate)
        replacedNonFinite = replaced
    }

    /// Replaces NaN and infinities among the first `count` samples with 0; returns how many there were.
    static func sanitise(_ samples: inout [Float], count: Int) -> Int {
        var replaced = 0
        samples.withUnsafeMutableBufferPointer { p in
            for i in 0..<min(count, p.count) where !p[i].isFinite {
                p[i] = 0
                replaced += 1
            }
        }
        return replaced
    }

    /// Copies mono samples to both channels.
    public convenience init(mono: [Float], sampleRate: Double) {
        var st = [Float](repeating: 0, count: mono.count * 2)
        for (i, x) in mono.enumerated() { st[2 * i] = x; st[2 * i + 1] = x }
        self.init(stereo: st, sampleRate: sampleRate)
    }

    deinit {
        if let mapping { munmap(mapping.base, mapping.length) } else { data.deallocate() }
    }

    /// The left channel, for tests and inspection.
    public var left: [Float] { (0..<frames).map { data[2 * $0] } }
}

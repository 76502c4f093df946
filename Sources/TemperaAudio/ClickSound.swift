import Foundation

/// The metronome's three sounds, synthesised (no file needed) and the same on every run: a short decaying tone,
/// highest and loudest for the accent on a bar's first beat, between for the first pulse of a beat group (the
/// second and third dotted quarters of 12/8, the 2+2+3 of 7/8), lowest for the others.
///
/// Each is a cosine (so its first frame is not silent and an onset is exact to the frame) under an
/// exponential decay of 6 ms, 30 ms long, its last 2 ms faded to silence.
///
/// Built on the editor thread; the render path reads the buffers through a snapshot's raw pointers.
public final class ClickSound: @unchecked Sendable {
    /// Pitch and peak of the accent (a bar's first beat) and of the other beats.
    public static let accentHz = 2_000.0
    public static let beatHz = 1_000.0
    public static let accentPeak: Float = 1.0
    public static let beatPeak: Float = 0.6
    public static let groupHz = 1_500.0
    public static let groupPeak: Float = 0.8
    /// Seconds each sound lasts.
    public static let length = 0.03

    public let accent: SampleBuffer
    public let beat: SampleBuffer
    public let group: SampleBuffer

    public init(sampleRate rate: Double) {
        accent = SampleBuffer(mono: Self.tone(hz: Self.accentHz, peak: Self.accentPeak, rate: rate), sampleRate: rate)
        beat = SampleBuffer(mono: Self.tone(hz: Self.beatHz, peak: Self.beatPeak, rate: rate), sampleRate: rate)
        group = SampleBuffer(mono: Self.tone(hz: Self.groupHz, peak: Self.groupPeak, rate: rate), sampleRate: rate)
    }

    /// One click at `rate`: `peak * cos(2 pi hz t) * exp(-t / 6 ms)`, the last 2 ms faded linearly to 0.
    public static func tone(hz: Double, peak: Float, rate: Double) -> [Float] {
        let frames = max(1, Int((length * rate).rounded()))
        let fade = max(1, Int((0.002 * rate).rounded()))
        return (0..<frames).map { i in
            let t = Double(i) / rate
            var x = Double(peak) * cos(2 * Double.pi * hz * t) * exp(-t / 0.006)
            let left = frames - 1 - i
            if left < fade { x *= Double(left) / Double(fade) }
            return Float(x)
        }
    }
}

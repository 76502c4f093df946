import Foundation
import Synchronization
import TemperaCore

/// How much audio one slot may hold, checked from a file's header before anything is read or converted: a
/// few kilobytes of crafted header (a 1 Hz rate, billions of frames, a sparse file) must not make tempera ask
/// for gigabytes.
///
/// The defaults (10 minutes after conversion to the output rate, 1 GiB) can be changed with the environment
/// variables `TEMPERA_MAX_SAMPLE_SECONDS` and `TEMPERA_MAX_SAMPLE_MB`, or the editor's settings file.
public struct SampleLimits: Sendable, Equatable {
    /// The longest sample, in seconds at the output rate after rate conversion and pitching.
    public var seconds: Double
    /// The most memory one slot's decoding may take: the file's samples as read, and the converted stereo.
    public var bytes: Int
    /// The rates a file may declare (below 1 kHz no real recording exists; above 768 kHz neither).
    public static let rates = 1_000...768_000

    public static let defaultSeconds = 600.0
    public static let defaultBytes = 1 << 30

    public init(seconds: Double = SampleLimits.defaultSeconds, bytes: Int = SampleLimits.defaultBytes) {
        self.seconds = seconds
        self.bytes = bytes
    }

    /// The defaults, overridden by the environment.
    public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) -> SampleLimits {
        var l = SampleLimits()
        if let s = env["TEMPERA_MAX_SAMPLE_SECONDS"].flatMap(Double.init), s.isFinite, s > 0 { l.seconds = s }
        if let m = env["TEMPERA_MAX_SAMPLE_MB"].flatMap(Double.init), m.isFinite, m > 0, m < 1e9 {
            l.bytes = Int(m * 1_048_576)
        }
        return l
    }

    /// Why a file of `frames` frames of `channels` channels at `rate` Hz cannot be loaded for output at
    /// `outputRate`, or nil when it can.
    public func problem(frames: Int, channels: Int, rate: Int, outputRate: Double, note: Int?, pitch: Double) -> String? {
        guard SampleLimits.rates.contains(rate) else {
            return "its sample rate (\(Limits.count(rate)) Hz) is outside 1 kHz to 768 kHz"
        }
        let ratio = SampleLoader.ratio(from: Double(rate), to: outputRate, note: note, pitch: pitch)
        let outFrames = Double(frames) * ratio
        let seconds = outFrames / outputRate
        if seconds > self.seconds {
            return "\(SampleLimits.duration(seconds)) of audio once converted; a slot holds at most \(SampleLimits.duration(self.seconds)) (TEMPERA_MAX_SAMPLE_SECONDS)"
        }
        // As read (Float32 per channel), then as stereo at the file's rate, then converted.
        let needed = Double(frames) * Double(channels) * 4 + Double(frames) * 8 + outFrames * 8
        if needed > Double(bytes) {
            return "decoding it would take \(SampleLimits.size(needed)); a slot may take at most "
                + "\(SampleLimits.size(Double(bytes))) (TEMPERA_MAX_SAMPLE_MB)"
        }
        return nil
    }

    /// Why a recording of `frames` frames of `channels` channels at `rate` Hz cannot be read whole (to find its
    /// onsets), or nil: its rate, and the memory its samples take as read and mixed to mono.
    public func readingProblem(frames: Int, channels: Int, rate: Int) -> String? {
        guard SampleLimits.rates.contains(rate) else {
            return "its sample rate (\(Limits.count(rate)) Hz) is outside 1 kHz to 768 kHz"
        }
        let needed = Double(frames) * Double(channels) * 4 + Double(frames) * 4
        if needed > Double(bytes) {
            return "reading it would take \(SampleLimits.size(needed)); at most \(SampleLimits.size(Double(bytes))) "
                + "(TEMPERA_MAX_SAMPLE_MB)"
        }
        return nil
    }

    /// "10 min", "1 h 44 min 10 s", "12.5 s".
    static func duration(_ s: Double) -> String {
        if s < 60 { return DocumentFile.number((s * 10).rounded() / 10) + " s" }
        if s > 1e9 { return "more than 30 years" }
        let whole = Int(s.rounded())
        let h = whole / 3600, m = whole / 60 % 60, sec = whole % 60
        return [h > 0 ? "\(Limits.count(h)) h" : nil, m > 0 ? "\(m) min" : nil, sec > 0 ? "\(sec) s" : nil]
            .compactMap { $0 }.joined(separator: " ")
    }

    /// "1 GiB", "7.7 GB"-style sizes in binary units.
    static func size(_ bytes: Double) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var v = bytes, k = 0
        while v >= 1024, k < units.count - 1 {
            v /= 1024
            k += 1
        }
        let text = v >= 100 || v == v.rounded() ? String(Int(v.rounded())) : DocumentFile.number((v * 10).rounded() / 10)
        return text + " " + units[k]
    }
}

extension SampleLoader {
    private static let current = Mutex(SampleLimits.fromEnvironment())

    /// The limits every load checks (the environment's at start; the editor applies its settings).
    public static var limits: SampleLimits {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import CAubio
import CSndfile
import TemperaCore

extension AudioImport {
    /// Onsets found as a recording streams by, block after block: aubio's detector sees each hop as it comes,
    /// and an onset is refined (`refine`) and its bands measured (`split`) once 100 ms after it have arrived,
    /// from the last second of sound kept. Memory is bounded by that second, whatever the file's length.
    public final class OnsetStream {
        let aubio: CAubio_functions
        let detector: OpaquePointer
        let input: UnsafeMutablePointer<CAubio_fvec>, output: UnsafeMutablePointer<CAubio_fvec>
        public let sampleRate: Int
        let settings: Settings
        let hop: Int
        /// The last samples of the mono sound, `kept[0]` being frame `base` of the file.
        var kept: [Float] = []
        var base = 0
        /// Samples waiting for a whole hop.
        var pending: [Float] = []
        /// Frames seen.
        public private(set) var frames = 0
        /// aubio's onsets (frames) not yet refined.
        var rough: [Int] = []
        /// The previous onset's peak (frame): the next attack is never placed before it.
        var earliest = 0
        public private(set) var found: [Onset] = []
        /// With `split`: each onset's band rises (`rise`), measured once 200 ms after it have arrived.
        let splitting: Bool
        var rises: [[Double]] = []

        public init(sampleRate: Int, settings: Settings = Settings(), split: Bool = false) throws {
            aubio = try Aubio.shared.get()
            splitting = split
            self.sampleRate = sampleRate
            self.settings = settings
            // The window and hop are times: the same at every sample rate (1024 and 64 samples at 44.1 kHz).
            let scale = Double(sampleRate) / 44_100
            hop = max(8, Int((Double(settings.hop) * scale).rounded()))
            var window = 1
            while Double(window) < Double(settings.window) * scale * 0.75 { window *= 2 }
            window = max(window, 2 * hop)
            guard let o = aubio.new_onset(settings.method, UInt32(window), UInt32(hop), UInt32(sampleRate)) else {
                throw ImportError("onset detection could not start at \(sampleRate) Hz")
            }
            detector = o
            _ = aubio.set_threshold(o, Float(settings.threshold))
            _ = aubio.set_silence(o, Float(settings.silence))
            _ = aubio.set_minioi_ms(o, Float(settings.minimumGap * 1000))
            input = aubio.new_fvec(UInt32(hop))!
            output = aubio.new_fvec(1)!
        }

        deinit {
            aubio.del_onset(detector)
            aubio.del_fvec(input)
            aubio.del_fvec(output)
        }

        /// The next samples of the mono sound.
        public func feed(_ block: UnsafeBufferPointer<Float>) {
            kept.append(contentsOf: block)
            measureFloor(block)
            pending.append(contentsOf: block)
            frames += block.count
            var at = 0
            while pending.count - at >= hop {
                for k in 0..<hop { input.pointee.data[k] = pending[at + k] }
                step()
                at += hop
            }
            pending.removeFirst(at)
            settle(final: false)
        }

        public func feed(_ block: [Float]) { block.withUnsafeBufferPointer { feed($0) } }

        func step() {
            aubio.onset_do(detector, input, output)
            if output.pointee.data[0] != 0 {
                let f = Int(aubio.get_last(detector))
                if rough.last.map({ f > $0 }) ?? true { rough.append(f) }
            }
        }

        /// The end of the sound: the last hop and a window of silence, so an attack at the very end is seen.
        public func finish() -> [Onset] {
            let tail = pending.count
            pending += [Float](repeating: 0, count: (hop - tail % hop) % hop + 2048 * max(1, sampleRate / 44_100))
            var at = 0
            while pending.count - at >= hop {
                for k in 0..<hop { input.pointee.data[k] = pending[at + k] }
                step()
                at += hop
            }
            pending = []
            settle(final: true)
            if splitting { measure(final: true) }
            dropLeadingNoise()
            return splitting ? classify(found, rises: rises) : found
        }

        /// Refines every rough onset with 100 ms of sound after it (all of them at the end), then forgets all
        /// but the last second.
        func settle(final: Bool) {
            let rate = Double(sampleRate)
            let after = Int(0.100 * rate)
            while let r = rough.first, final || r + after <= frames {
                rough.removeFirst()
                refineOne(r)
            }
            if splitting { measure(final: false) }
            let keep = Int(1.0 * rate)
            if kept.count > 2 * keep {
                let drop = kept.count - keep
                kept.removeFirst(drop)
                base += drop
            }
        }

        /// Refines aubio's onset at frame `r` on the sound's first difference (`x[n] - x[n-1]`): a high-pass that
        /// leaves an attack's edge whole but turns what still rings of a previous hit (a kick's low boom, a room's
        /// tail, duller than the attack) down by 20 to 40 dB, so the attack is seen where it starts and not where
        /// it outgrows the ring. The onset's peak is the sound's own loudest sample over its first 20 ms.
        func refineOne(_ r: Int) {
            let rate = Double(sampleRate)
            // The part of the sound refine looks at: 40 ms before the rough onset to 30 ms after it.
            let lo = max(base, r - Int(0.040 * rate)), hi = min(base + kept.count, r + Int(0.030 * rate))
            guard lo < hi else { return }
            var window = [Float](repeating: 0, count: hi - lo)
            for k in window.indices {
                let j = lo - base + k
                window[k] = kept[j] - (j > 0 ? kept[j - 1] : 0)
            }
            guard let (s, p) = refine(window, rough: Double(r - lo) / rate, sampleRate: sampleRate,
                                      earliest: max(0, earliest - lo)) else { return }
            let start = s + lo, peak = p + lo
            let t = Double(start) / rate
            if let last = found.last, t - last.time < settings.minimumGap * 0.5 { return }
            var loudest: Float = 0
            for j in (start - base)..<min(kept.count, start - base + Int(0.020 * rate)) { loudest = max(loudest, abs(kept[j])) }
            found.append(Onset(time: t, peak: Double(loudest)))
            earliest = peak + 1
        }

        /// The quietest 20 ms of the sound so far (RMS): its noise floor.
        var noiseFloor = Double.infinity
        var chunkEnergy = 0.0, chunkFrames = 0

        func measureFloor(_ block: UnsafeBufferPointer<Float>) {
            let chunk = max(1, Int(0.020 * Double(sampleRate)))
            for v in block {
                chunkEnergy += Double(v * v)
                chunkFrames += 1
                if chunkFrames == chunk {
                    noiseFloor = min(noiseFloor, (chunkEnergy / Double(chunk)).squareRoot())
                    chunkEnergy = 0
                    chunkFrames = 0
                }
            }
        }

        /// aubio's detector starts from nothing, so the noise a recording starts with looks like an attack at 0:
        /// an onset in the first 50 ms counts only when its peak is 20 dB above the sound's noise floor.
        func dropLeadingNoise() {
            guard noiseFloor.isFinite, let first = found.first, first.time < 0.050, first.peak < 10 * noiseFloor else { return }
            found.removeFirst()
            if !rises.isEmpty { rises.removeFirst() }
        }

        /// The band rises of every onset whose next onset is known or that 200 ms have followed (all at the end).
        func measure(final: Bool) {
            let rate = Double(sampleRate)
            while rises.count < found.count {
                let i = rises.count
                let start = Int((found[i].time * rate).rounded())
                let next = i + 1 < found.count ? Int((found[i + 1].time * rate).rounded()) : nil
                guard final || next != nil || (frames >= start + Int(0.200 * rate) && (rough.first.map { $0 > start + Int(0.100 * rate) } ?? true)) else { return }
                rises.append(rise(kept, offset: base, start: start, next: next, rate: rate))
            }
        }
    }

    /// The onsets of a sound file, read in blocks of 64k frames and mixed to mono as it streams (`OnsetStream`):
    /// the file's length, rate and loudest sample, and its onsets, without holding the file. The header is checked as `read`
    /// checks it.
    public static func streamOnsets(path: String, settings: Settings = Settings(), split: Bool = false) throws -> (onsets: [Onset], frames: Int, sampleRate: Int, channels: Int, peak: Float) {
        let (f, info) = try openRecording(path)
        defer { sf_close(f) }
        let channels = Int(info.channels), rate = Int(info.samplerate)
        let stream = try OnsetStream(sampleRate: rate, settings: settings, split: split)
        let block = 65_536
        var interleaved = [Float](repeating: 0, count: block * channels)
        var mono = [Float](repeating: 0, count: block)
        var peak: Float = 0
        while true {
            let n = Int(interleaved.withUnsafeMutableBufferPointer { sf_readf_float(f, $0.baseAddress, sf_count_t(block)) })
            if n <= 0 { break }
            for i in 0..<n {
                var s: Float = 0
                for c in 0..<channels {
                    let v = interleaved[i * channels + c]
                    s += v
                    peak = max(peak, abs(v))
                }
                mono[i] = s / Float(channels)
            }
            mono.withUnsafeBufferPointer { stream.feed(UnsafeBufferPointer(rebasing: $0[0..<n])) }
        }
        return (stream.finish(), stream.frames, rate, channels, peak)
    }
}

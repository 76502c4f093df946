#if canImport(Glibc)
import Glibc
#endif
import CAubio
import CSndfile
import TemperaCore

/// A recording as a tempera document: its onsets found with libaubio, each refined to the start of
/// its attack, as markers; optionally split into low, middle and high tracks, or sliced so each marker plays its
/// own part of the file.
///
/// Onsets: aubio's high-frequency-content detector (`hfc`), made for percussive attacks, on a 1024-sample window
/// with a hop of 64 samples (1.45 ms at 44.1 kHz; the same times at any rate), peak-picking threshold 0.1 (chosen
/// on the ground truth of the tests: 0.15 and above miss ghost notes in a reverberant room), silence gate -70 dB
/// and at least 25 ms between onsets. aubio places an onset on its hop; each is then moved to the first sample of
/// its attack in the sound's first difference (`refine`, `OnsetStream`), so times are exact to the sample
/// wherever the attack rises out of what rings before it.
///
/// Any thread; pure apart from reading the file.
public enum AudioImport {
    /// How onsets are detected.
    public struct Settings: Sendable {
        public var method = "hfc"
        public var window = 1024
        public var hop = 64
        public var threshold = 0.1
        public var silence = -70.0
        /// Seconds at least between two onsets.
        public var minimumGap = 0.025
        public init() {}
    }

    /// A sound read whole: interleaved samples, its channels and rate, and the mono mix onsets are found in.
    public struct Sound: Sendable {
        public var samples: [Float]
        public var channels: Int
        public var sampleRate: Int
        public var mono: [Float]
        /// Frames of the sound (those of `mono`, or of a file that streamed by).
        public var frames: Int
        /// The loudest sample of any channel (absolute value), of `samples` or of a file that streamed by.
        public var peak: Float
        public var duration: Double { Double(frames) / Double(sampleRate) }

        public init(samples: [Float], channels: Int, sampleRate: Int) {
            self.samples = samples
            self.channels = max(channels, 1)
            self.sampleRate = sampleRate
            let c = max(channels, 1), frames = samples.count / c
            var mono = [Float](repeating: 0, count: frames)
            for f in 0..<frames {
                var s: Float = 0
                for k in 0..<c { s += samples[f * c + k] }
                mono[f] = s / Float(c)
            }
            self.mono = mono
            self.frames = frames
            self.peak = samples.reduce(0) { max($0, abs($1)) }
        }
    }

    /// One onset found.
    public struct Onset: Sendable, Equatable {
        /// Seconds from the file's start: the first sample of the attack.
        public var time: Double
        /// The attack's peak (absolute sample value, 0...1 for a file within full scale).
        public var peak: Double
        /// The bands the attack rises in (`Band`), the strongest first; filled by `split`.
        public var bands: [Band] = []
    }

    /// The bands `--split` puts on their tracks.
    public enum Band: Int, Sendable, CaseIterable {
        case low, middle, high
        /// The track's name and the default kit's slot that plays it.
        public var track: (name: String, slot: Int) {
            switch self {
            case .low: return ("low", 1)
            case .middle: return ("middle", 2)
            case .high: return ("high", 3)
            }
        }
    }

    public struct ImportError: Error, CustomStringConvertible {
        public var description: String
        public init(_ d: String) { description = d }
    }

    /// True for the first bytes of a sound file libsndfile reads and names by its header: WAV (and RF64, W64),
    /// FLAC, Ogg (Vorbis, Opus), AIFF and 8SVX, AU, CAF, MP3 (an ID3 tag or an MPEG audio frame), NIST SPHERE,
    /// VOC, IRCAM, PAF, PVF, AVR, XI, SDS, WVE and MATLAB 5. (libsndfile's headerless formats, RAW, HTK, MAT4 and
    /// SD2, cannot be told from their bytes.)
    public static func looksLikeAudio(_ bytes: [UInt8]) -> Bool {
        func starts(_ s: String) -> Bool { bytes.starts(with: Array(s.utf8)) }
        if starts("RIFF") || starts("RIFX") || starts("RF64") { return bytes.count >= 12 && Array(bytes[8..<12]) == Array("WAVE".utf8) }
        if starts("fLaC") || starts("OggS") || starts("FORM") || starts(".snd") || starts("caff")
            || bytes.starts(with: [0x72, 0x69, 0x66, 0x66, 0x2E, 0x91, 0xCF, 0x11]) { return true }
        if starts("ID3") || isMPEGAudioFrame(bytes) { return true }
        let named = ["NIST_1A\n", "Creative Voice File\u{1A}", " paf", "fap ", "PVF1\n", "2BIT", "Extended Instrument: ",
                     "ALawSoundFile**", "MATLAB 5.0 MAT-file"]
        if named.contains(where: starts) { return true }
        // IRCAM: four magic numbers, either byte order; SDS: a MIDI sample dump header.
        let ircam: [[UInt8]] = [[0x64, 0xA3, 0x01, 0x00], [0x00, 0x01, 0xA3, 0x64], [0x64, 0xA3, 0x02, 0x00], [0x00, 0x02, 0xA3, 0x64],
                                [0x64, 0xA3, 0x03, 0x00], [0x00, 0x03, 0xA3, 0x64], [0x64, 0xA3, 0x04, 0x00], [0x00, 0x04, 0xA3, 0x64]]
        if ircam.contains(where: { bytes.starts(with: $0) }) { return true }
        return bytes.count > 3 && bytes[0] == 0xF0 && bytes[1] == 0x7E && bytes[3] == 0x01
    }

    /// An MPEG audio frame header (MP3 without a tag): the 11-bit sync, a layer, and a bit rate and sample rate
    /// that are not the reserved values.
    static func isMPEGAudioFrame(_ b: [UInt8]) -> Bool {
        guard b.count >= 4, b[0] == 0xFF, b[1] & 0xE0 == 0xE0 else { return false }
        let version = (b[1] >> 3) & 3, layer = (b[1] >> 1) & 3, rate = b[2] >> 4, frequency = (b[2] >> 2) & 3
        return version != 1 && layer != 0 && rate != 15 && frequency != 3
    }

    /// The longest recording `import` reads: 30 minutes at any sample rate.
    public static let maxSeconds = 30.0 * 60

    /// Opens a recording with libsndfile and checks its header, before any sample is read: a sound at all, a rate
    /// inside the limits first (nothing else about the file means much then), then the length at its own rate.
    /// The caller closes the file.
    static func openRecording(_ path: String) throws -> (OpaquePointer, SF_INFO) {
        var info = SF_INFO()
        guard let f = sf_open(path, Int32(SFM_READ), &info) else {
            throw ImportError("\(path): \(sndfileMessage())")
        }
        guard info.frames > 0, info.channels > 0, info.samplerate > 0 else {
            sf_close(f)
            throw ImportError("\(path): the file holds no sound")
        }
        if !SampleLimits.rates.contains(Int(info.samplerate)) {
            sf_close(f)
            throw ImportError("\(path): its sample rate (\(Limits.count(Int(info.samplerate))) Hz) is outside 1 kHz to 768 kHz")
        }
        let seconds = Double(info.frames) / Double(info.samplerate)
        guard seconds <= maxSeconds else {
            sf_close(f)
            throw ImportError("\(path): \(SampleLimits.duration(seconds)) long; a recording to import is at most 30 minutes")
        }
        return (f, info)
    }

    /// Reads a sound file with libsndfile, once its header says it is short and small enough.
    public static func read(_ path: String) throws -> Sound {
        let (f, info) = try openRecording(path)
        defer { sf_close(f) }
        if let why = SampleLoader.limits.readingProblem(frames: Int(info.frames), channels: Int(info.channels),
                                                        rate: Int(info.samplerate)) {
            throw ImportError("\(path): \(why)")
        }
        var out = [Float](repeating: 0, count: Int(info.frames) * Int(info.channels))
        let n = out.withUnsafeMutableBufferPointer { sf_readf_float(f, $0.baseAddress, info.frames) }
        out.removeLast(out.count - Int(n) * Int(info.channels))
        return Sound(samples: out, channels: Int(info.channels), sampleRate: Int(info.samplerate))
    }

    /// libaubio, opened the first time onsets are detected (it is not linked: see CAubio).
    public enum Aubio {
        /// The library's file, as Debian's libaubio5 installs it.
        public static let library = "libaubio.so.5"

        /// Opens `library`: its functions, or one line saying what is missing.
        public static func open(_ library: String) -> Result<CAubio_functions, ImportError> {
            var f = CAubio_functions()
            if let failure = CAubio_open(library, &f) {
                return .failure(ImportError("onset detection needs libaubio, which did not load (\(String(cString: failure))): "
                    + "install it (Debian's libaubio5)"))
            }
            return .success(f)
        }

        /// `library` opened once for the whole program.
        public static let shared = open(library)
    }

    /// Moves an onset aubio placed near `rough` (seconds) to the first sample of its attack: the first sample at
    /// half the loudest within 25 ms after `rough` - 10 ms is the attack's peak; walking back from it, the attack starts at the
    /// earliest sample above a threshold (a tenth of the peak, or above the level of what still rings before
    /// it) that is not separated from the peak by half a millisecond below the threshold. Never before
    /// `earliest` (the previous onset's peak).
    public static func refine(_ a: [Float], rough: Double, sampleRate: Int, earliest: Int) -> (start: Int, peak: Int)? {
        let rate = Double(sampleRate)
        let center = Int((rough * rate).rounded())
        let lo = max(earliest, center - Int(0.010 * rate), 0)
        let hi = min(a.count, center + Int(0.025 * rate))
        guard lo < hi else { return nil }
        var loudest: Float = 0
        for k in lo..<hi { loudest = max(loudest, abs(a[k])) }
        guard loudest > 0 else { return nil }
        // The attack's peak is the first sample at half the loudest: a later, louder part of the same hit (or
        // the next hit) does not pull the walk back past a quiet gap.
        var p = lo
        while abs(a[p]) < 0.5 * loudest { p += 1 }
        let peak = abs(a[p])
        // What rings before the attack: the loudest sample over the 5 ms before the search window.
        var background: Float = 0
        let b0 = max(earliest, lo - Int(0.005 * rate), 0)
        if b0 < lo { for k in b0..<lo { background = max(background, abs(a[k])) } }
        let threshold = max(0.1 * peak, min(1.5 * background, 0.5 * peak))
        let gap = max(1, Int(0.0005 * rate))
        var start = p, quiet = 0, k = p
        let floor = max(earliest, center - Int(0.030 * rate), 0)
        while k > floor {
            k -= 1
            if abs(a[k]) > threshold {
                start = k
                quiet = 0
            } else {
                quiet += 1
                if quiet >= gap { break }
            }
        }
        // The attack starts where the signal leaves the quiet: the first sample after the last one at or below
        // a fiftieth of the peak before `start` (within the gap), so a slow rise is caught at its foot.
        var s = start
        let foot = max(0.02 * peak, background)
        while s > max(floor, start - gap), abs(a[s - 1]) > foot { s -= 1 }
        return (s, p)
    }

    /// The onsets of a sound, refined, with their peaks (`OnsetStream`, the sound fed whole). Throws when libaubio
    /// cannot be loaded.
    public static func onsets(of sound: Sound, settings: Settings = Settings()) throws -> [Onset] {
        let stream = try OnsetStream(sampleRate: sound.sampleRate, settings: settings)
        stream.feed(sound.mono)
        return stream.finish()
    }

    // MARK: Bands

    /// Each onset's bands, learnt from the recording (`classify`, on each attack's band rises `rise`).
    public static func split(_ onsets: [Onset], sound: Sound) -> [Onset] {
        let rate = Double(sound.sampleRate)
        let starts = onsets.map { Int(($0.time * rate).rounded()) }
        let rises = starts.indices.map { i in
            rise(sound.mono, offset: 0, start: starts[i], next: i + 1 < starts.count ? starts[i + 1] : nil, rate: rate)
        }
        return classify(onsets, rises: rises)
    }

    // MARK: The document

    /// What `tempera import` makes of a sound file.
    public struct Options: Sendable {
        /// Low, middle and high tracks (kick, snare, hats of the default kit).
        public var split = false
        /// The file in slot 1, each marker playing its slice of it from its onset on (`from=`).
        public var slice = false
        /// How the document names the file (its path relative to the document's folder, or absolute).
        public var fileReference: String = ""
        public var settings = Settings()
        public init(split: Bool = false, slice: Bool = false, fileReference: String = "") {
            self.split = split
            self.slice = slice
            self.fileReference = fileReference
        }
    }

    /// The document: the loop is the whole file at tempo x1. Without options, one track `onsets` of markers
    /// playing slot 6 (the rim: a short click that shows the timing); each marker's amplitude is its peak over
    /// the loudest onset's peak. `split`: tracks low, middle and high playing kick, snare and closed hat.
    /// `slice`: one track `slices`, slot 1 the file in gate mode, each marker at amplitude 1 playing the file from
    /// its own time (`from`), with one more marker at 0 when the first onset is later, so the document renders
    /// the file as it is; master volume 1.
    public static func document(_ sound: Sound, onsets found: [Onset], options: Options) throws -> Document {
        if options.split && options.slice {
            throw ImportError("--split and --slice do not go together (a slice plays until the next slice of its track)")
        }
        var doc = Document(tracks: [])
        doc.transport.length = max(sound.duration, 0.001)
        doc.transport.loopStart = 0
        doc.transport.loopEnd = doc.transport.length
        doc.transport.loopOn = true
        let loudest = found.map(\.peak).max() ?? 1
        func amp(_ o: Onset) -> Double { loudest > 0 ? min(1, max(0.01, o.peak / loudest)) : 1 }
        if options.slice {
            slice(into: &doc, sound: sound, onsets: found, options: options)
        } else if options.split {
            doc.tracks = Band.allCases.map { band in
                Track(name: band.track.name, markers: MarkerList(found.filter { $0.bands.contains(band) }.map {
                    Marker(id: 0, time: $0.time, amp: amp($0), content: .clip(band.track.slot))
                }))
            }
        } else {
            doc.tracks = [Track(name: "onsets", markers: MarkerList(found.map {
                Marker(id: 0, time: $0.time, amp: amp($0), content: .clip(6))
            }))]
        }
        // Markers were made with any ids: number them as a loaded document is.
        return Document(tracks: doc.tracks, slots: doc.slots, groups: doc.groups, designer: doc.designer,
                        transport: doc.transport, pattern: doc.pattern, seed: doc.seed)
    }

    /// Reads, detects and builds the document in one go; the onsets are returned too (for the report). The file
    /// streams by in blocks (`streamOnsets`), so the sound returned holds no samples, only its length, rate and peak;
    /// the document's beat, meter, grid and loop are the recording's tempo (`tempo`).
    public static func document(path: String, options: Options) throws -> (Document, [Onset], Sound) {
        let streamed = try streamOnsets(path: path, settings: options.settings, split: options.split)
        var sound = Sound(samples: [], channels: streamed.channels, sampleRate: streamed.sampleRate)
        sound.frames = streamed.frames
        sound.peak = streamed.peak
        var doc = try document(sound, onsets: streamed.onsets, options: options)
        if let tempo = tempo(duration: sound.duration, onsets: streamed.onsets) { apply(tempo, to: &doc) }
        return (doc, streamed.onsets, sound)
    }

    /// The even grid that best explains onset times: its step is the shortest gap between onsets that most gaps
    /// are near whole multiples of (searched from the median gap divided by 1...4), then fitted by least squares
    /// of each onset on its grid line. The tempo counts a beat as the step doubled or halved into 70...180 BPM.
    public static func grid(_ times: [Double]) -> (step: Double, bpm: Double, rms: Double)? {
        guard times.count >= 3 else { return nil }
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }.sorted()
        let median = gaps[gaps.count / 2]
        var best: (step: Double, bpm: Double, rms: Double)?
        for d in 1...4 {
            let guess = median / Double(d)
            guard guess > 0.04 else { break }
            // Least squares of t_i = a + k_i * step, k_i the grid line each onset is nearest.
            var step = guess
            var rms = 0.0
            for _ in 0..<3 {
                let k = times.map { (($0 - times[0]) / step).rounded() }
                let n = Double(times.count)
                let mk = k.reduce(0, +) / n, mt = times.reduce(0, +) / n
                var sxy = 0.0, sxx = 0.0
                for i in times.indices { sxy += (k[i] - mk) * (times[i] - mt); sxx += (k[i] - mk) * (k[i] - mk) }
                guard sxx > 0 else { break }
                step = sxy / sxx
                let a = mt - step * mk
                rms = (zip(k, times).map { (a + $0 * step - $1) * (a + $0 * step - $1) }.reduce(0, +) / n).squareRoot()
            }
            // A finer grid explains any times; take it only when it explains them much better.
            if best == nil || rms < best!.rms * 0.5 {
                var bpm = Transport.bpm(tempo: 1, beat: step)
                while bpm > 180 { bpm /= 2 }
                while bpm < 70 { bpm *= 2 }
                best = (step, bpm, rms)
            }
        }
        return best
    }

    /// A one-line summary: onsets found, the tempo and meter (`tempo`) and the loop in bars.
    public static func summary(_ onsets: [Onset], duration: Double) -> String {
        var text = "\(onsets.count) onset\(onsets.count == 1 ? "" : "s") in \(DocumentFile.number((duration * 1000).rounded() / 1000)) s"
        if let t = tempo(duration: duration, onsets: onsets) {
            let bars = Int(((t.end - t.start) / (t.beat * Double(t.meter))).rounded())
            text += ", tempo \(DocumentFile.number((t.bpm * 10).rounded() / 10)) BPM in \(t.meter)/4"
                + (t.wholeFile ? ", the loop \(bars) bar\(bars == 1 ? "" : "s")" : " from the onsets' spacing (not a loop of whole bars)")
        }
        return text
    }
}

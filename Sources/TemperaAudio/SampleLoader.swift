import CSamplerate
import CSndfile
import Foundation
import TemperaCore

/// Reads audio files with libsndfile and converts them once, off the audio thread, to what the mixer plays:
/// stereo Float32 at the output rate, pitched to a MIDI note when asked, with a short fade at the end so a
/// sample cut short by its file never clicks (except for a gate slot, whose file's end is played as recorded:
/// see `load`).
public enum SampleLoader {
    /// A file that could not be used; the message names it and says why, on one line.
    public struct LoadError: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// The fade applied to the last frames of every sample (`fadeEnd`).
    public static let endFadeSeconds = 0.002

    /// Loads `path` for output at `sampleRate`. `note` (MIDI, 60 = as recorded) pitches the sample: one octave
    /// up halves its length. `pitch` adds semitones (a velocity layer's tuning). `name` is how messages refer to the
    /// file (the reference the document holds).
    /// `fadeEnd` false leaves the file's last frames as they are: a gate slot's voice is closed by its gate, and
    /// a recording sliced into it must end as it was recorded for the slices to play it back exactly.
    /// `mapped` maps a cached conversion into memory rather than reading it (a render's samples; see `SampleBuffer`).
    public static func load(path: String, sampleRate: Double, note: Int? = nil, pitch: Double = 0, fadeEnd: Bool = true,
                            name: String? = nil, mapped: Bool = false) throws -> SampleBuffer {
        let label = name ?? path
        guard FileManager.default.fileExists(atPath: path) else {
            throw LoadError(description: "\(label): file not found (\(path))")
        }
        if let why = notARegularFile(path) { throw LoadError(description: "\(label): \(why) (\(path))") }
        // Converted before (the same file, unchanged, to the same rate and pitch): read back, not converted again.
        let cacheKey = SampleCache.Key(path: path, sampleRate: sampleRate, note: note, pitch: pitch, fadeEnd: fadeEnd)
        if let cacheKey, let cached = SampleCache.read(cacheKey, sampleRate: sampleRate, mapped: mapped) { return cached }
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw LoadError(description: "\(label): \(sndfileMessage())")
        }
        defer { sf_close(file) }
        // A truncated WAV or AIFF opens without error, with fewer frames than its header announces; libsndfile
        // only says so in its log ("data : 96000 (should be 49956)").
        if let short = truncatedChunk(file) {
            throw LoadError(description: "\(label): damaged or truncated (\(short))")
        }
        let channels = Int(info.channels), expected = Int(info.frames)
        guard channels > 0, info.samplerate > 0 else {
            throw LoadError(description: "\(label): no audio in the file")
        }
        guard expected > 0 else { throw LoadError(description: "\(label): the file holds no frames") }
        if let why = SampleLoader.limits.problem(frames: expected, channels: channels, rate: Int(info.samplerate),
                                                 outputRate: sampleRate, note: note, pitch: pitch) {
            throw LoadError(description: "\(label): \(why)")
        }
        var raw = [Float](repeating: 0, count: expected * channels)
        let read = raw.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(expected)) }
        let err = sf_error(file)
        // Decoders may announce more frames than they deliver (MP3 headers round up to whole frames), so a
        // shortfall of less than one codec frame is accepted; anything more means a damaged file.
        if Int(read) < expected {
            let shortfall = expected - Int(read)
            let tolerated = info.format & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_MPEG) && shortfall <= 1152
            if !tolerated || err != 0 {
                throw LoadError(description: "\(label): damaged or truncated (read \(read) of \(expected) frames)")
            }
        }
        let frames = Int(read)
        guard frames > 0 else { throw LoadError(description: "\(label): damaged (no frames could be read)") }
        // A float file may hold NaN or infinities: they would spread through the resampler and the mix.
        let replaced = SampleBuffer.sanitise(&raw, count: frames * channels)

        // To stereo: mono is doubled, more than two channels keep the first two.
        var stereo = [Float](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            let l = raw[i * channels]
            let r = channels > 1 ? raw[i * channels + 1] : l
            stereo[2 * i] = l
            stereo[2 * i + 1] = r
        }
        let ratio = SampleLoader.ratio(from: Double(info.samplerate), to: sampleRate, note: note, pitch: pitch)
        var out = try convert(stereo, frames: frames, ratio: ratio, label: label)
        let outFrames = out.count / 2
        let fade = fadeEnd ? min(outFrames, max(1, Int(endFadeSeconds * sampleRate))) : 0
        for k in 0..<fade {
            let g = Float(fade - 1 - k) / Float(fade)
            out[2 * (outFrames - fade + k)] *= g
            out[2 * (outFrames - fade + k) + 1] *= g
        }
        let buffer = SampleBuffer(stereo: out, sampleRate: sampleRate)
        buffer.replacedNonFinite += replaced
        // Kept at the output rate too: reading a 16- or 24-bit file through libsndfile, then making it stereo and
        // fading its end, took a Hydrogen song's render at 44.1 kHz 60 ms more than reading the cached floats.
        if let cacheKey { SampleCache.write(cacheKey, buffer) }
        return buffer
    }

    /// The converter: libsamplerate's medium-quality sinc (part of every cached sample's key).
    static let converterQuality = Int32(SRC_SINC_MEDIUM_QUALITY)

    /// Output frames per frame of the file: the rate conversion times the pitching.
    static func ratio(from rate: Double, to sampleRate: Double, note: Int?, pitch: Double) -> Double {
        var ratio = sampleRate / rate
        if let note { ratio *= pow(2, Double(60 - note) / 12) }
        if pitch != 0 { ratio *= pow(2, -pitch / 12) }
        return ratio
    }

    /// Why `path` cannot be read as a sound file without risk of blocking, or nil when it is a regular file
    /// (see `RegularFile`).
    public static func notARegularFile(_ path: String) -> String? {
        let problem = RegularFile.problem(path)
        return problem == "is a folder, not a file" ? "is a folder, not a sound file" : problem
    }

    /// The log line of a sound-data chunk whose declared size exceeds the file, if any.
    static func truncatedChunk(_ file: OpaquePointer) -> String? {
        var log = [CChar](repeating: 0, count: 8192)
        let n = log.withUnsafeMutableBufferPointer { sf_command(file, Int32(SFC_GET_LOG_INFO), $0.baseAddress, Int32($0.count)) }
        guard n > 0 else { return nil }
        let text = log.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        for line in text.split(separator: "\n") {
            let t = line.trimmingCharacters(in: .whitespaces)
            if (t.hasPrefix("data") || t.hasPrefix("SSND")) && t.contains("should be") {
                return t.replacingOccurrences(of: "  ", with: " ")
            }
        }
        return nil
    }

    /// Resamples interleaved stereo by `ratio` (output frames per input frame) with libsamplerate's sinc
    /// converter; the result has `round(frames * ratio)` frames.
    static func convert(_ stereo: [Float], frames: Int, ratio: Double, label: String) throws -> [Float] {
        let target = max(1, Int((Double(frames) * ratio).rounded()))
        if abs(ratio - 1) < 1e-12 { return stereo }
        guard let converter = src_new(converterQuality, 2, nil) else {
            throw LoadError(description: "\(label): the sample-rate converter could not start")
        }
        defer { src_delete(converter) }
        var out = [Float](repeating: 0, count: (target + 64) * 2)
        var produced = 0, consumed = 0
        let silence = [Float](repeating: 0, count: 4096 * 2)
        // Feed the input, then silence, until enough output exists: the sinc filter's delay is flushed by the
        // padding rather than lost.
        var guardCount = 0
        while produced < target {
            guardCount += 1
            if guardCount > 100_000 { throw LoadError(description: "\(label): the sample-rate converter stalled") }
            let fromInput = consumed < frames
            let count = fromInput ? frames - consumed : 4096
            var data = SRC_DATA()
            let e: Int32 = stereo.withUnsafeBufferPointer { inBuf in
                silence.withUnsafeBufferPointer { silBuf in
                    out.withUnsafeMutableBufferPointer { outBuf in
                        data.data_in = fromInput ? inBuf.baseAddress! + consumed * 2 : silBuf.baseAddress!
                        data.input_frames = count
                        data.data_out = outBuf.baseAddress! + produced * 2
                        data.output_frames = target + 64 - produced
                        data.src_ratio = ratio
                        data.end_of_input = fromInput ? 0 : 1
                        return src_process(converter, &data)
                    }
                }
            }
            if e != 0 { throw LoadError(description: "\(label): \(String(cString: src_strerror(e)))") }
            if fromInput { consumed += data.input_frames_used }
            produced += data.output_frames_gen
            if !fromInput && data.output_frames_gen == 0 { break }
        }
        let n = min(produced, target)
        var result = Array(out[0..<(n * 2)])
        if n < target { result += [Float](repeating: 0, count: (target - n) * 2) }
        return result
    }
}

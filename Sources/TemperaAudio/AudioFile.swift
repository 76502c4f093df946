import CSndfile

/// Writes sample data to audio files with libsndfile (used by the kit generator, tests and tools).
public enum AudioFile {
    public enum Container: Sendable {
        case wav16, wav24, wavFloat, flac16, flac24, aiff16, oggVorbis, oggOpus, mp3

        var format: Int32 {
            switch self {
            case .wav16: return Int32(SF_FORMAT_WAV) | Int32(SF_FORMAT_PCM_16)
            case .wav24: return Int32(SF_FORMAT_WAV) | Int32(SF_FORMAT_PCM_24)
            case .wavFloat: return Int32(SF_FORMAT_WAV) | Int32(SF_FORMAT_FLOAT)
            case .flac16: return Int32(SF_FORMAT_FLAC) | Int32(SF_FORMAT_PCM_16)
            case .flac24: return Int32(SF_FORMAT_FLAC) | Int32(SF_FORMAT_PCM_24)
            case .aiff16: return Int32(SF_FORMAT_AIFF) | Int32(SF_FORMAT_PCM_16)
            case .oggVorbis: return Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_VORBIS)
            case .oggOpus: return Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_OPUS)
            case .mp3: return Int32(SF_FORMAT_MPEG) | Int32(SF_FORMAT_MPEG_LAYER_III)
            }
        }
    }

    public struct WriteError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Writes interleaved samples with `channels` channels.
    public static func write(_ samples: [Float], channels: Int = 1, sampleRate: Int, to path: String,
                             as container: Container = .wav24) throws {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = container.format
        guard let f = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw WriteError(description: "cannot write \(path): \(sndfileMessage())")
        }
        sf_command(f, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        let frames = samples.count / channels
        let written = samples.withUnsafeBufferPointer { sf_writef_float(f, $0.baseAddress, sf_count_t(frames)) }
        sf_close(f)
        guard written == frames else { throw WriteError(description: "\(path): short write") }
    }

    /// Reads a whole file as interleaved Float32; returns the samples, channels and rate.
    public static func read(_ path: String) throws -> (samples: [Float], channels: Int, sampleRate: Int) {
        var info = SF_INFO()
        guard let f = sf_open(path, Int32(SFM_READ), &info) else {
            throw WriteError(description: "\(path): \(sndfileMessage())")
        }
        defer { sf_close(f) }
        var out = [Float](repeating: 0, count: Int(info.frames) * Int(info.channels))
        let n = out.withUnsafeMutableBufferPointer { sf_readf_float(f, $0.baseAddress, info.frames) }
        out.removeLast(out.count - Int(n) * Int(info.channels))
        return (out, Int(info.channels), Int(info.samplerate))
    }
}

import CSndfile
import Glibc
import TemperaCore

/// The disk writer: an output backend that pulls blocks on the caller's thread, as fast as they render, and
/// writes them with libsndfile (WAV 16/24-bit or 32-bit float, FLAC 16/24-bit).
///
/// The file is written as documents are saved (`DocumentFile.AtomicWrite`): into an unnamed file beside the
/// target that takes its name only when the render is complete, so a render that fails or is killed leaves
/// the old file (or none), never half a WAV. Unlike a document it is not synced to the disk before it takes the
/// name: a render is made again from its document (docs/decisions/startup.md).
final class FileOutput: AudioOutput {
    private var file: OpaquePointer?
    private var atomic: DocumentFile.AtomicWrite?
    /// What libsndfile writes, gathered into large writes.
    private var writer: WriteBehind?
    /// The thread libsndfile converts and writes on while the next buffer renders.
    private var background: BackgroundWriter?
    private var render: UnsafeMutablePointer<RenderState>?
    private let buffer: UnsafeMutablePointer<Float>
    private let capacity: Int
    let path: String
    /// With a true-peak ceiling: the limiter every block passes through on its way to the file.
    private var truePeak: TruePeakLimiter?
    /// Rendered frames not yet written: written in runs of `writeFrames`, not one call per block (each call is a
    /// system call; a song's 512-frame blocks made thousands).
    private var pending: [Float] = []
    static let writeFrames = 32_768

    /// Creates the file; throws a one-line error naming it.
    init(path: String, format: OfflineRenderer.Format, bits: OfflineRenderer.Bits, sampleRate: Double,
         blockFrames: Int, truePeakCeiling: Float? = nil) throws {
        self.path = path
        truePeak = truePeakCeiling.map { TruePeakLimiter(ceiling: $0, sampleRate: sampleRate) }
        capacity = blockFrames
        buffer = .allocate(capacity: blockFrames * 2)
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = 2
        let major = format == .wav ? Int32(SF_FORMAT_WAV) : Int32(SF_FORMAT_FLAC)
        switch bits {
        case .int16: info.format = major | Int32(SF_FORMAT_PCM_16)
        case .int24: info.format = major | Int32(SF_FORMAT_PCM_24)
        case .float32:
            guard format == .wav else {
                throw OfflineRenderer.RenderError(description: "FLAC holds 16 or 24 bits, not 32-bit float")
            }
            info.format = major | Int32(SF_FORMAT_FLOAT)
        }
        guard sf_format_check(&info) != 0 else {
            throw OfflineRenderer.RenderError(
                description: "\(path): libsndfile cannot write \(format.rawValue) at \(Int(sampleRate)) Hz")
        }
        var target: DocumentFile.AtomicWrite
        do {
            target = try DocumentFile.AtomicWrite(path, verb: "write", readable: true)
        } catch {
            throw OfflineRenderer.RenderError(description: "\(error)")
        }
        let writer = WriteBehind(descriptor: target.descriptor)
        var io = WriteBehind.callbacks
        guard let f = sf_open_virtual(&io, Int32(SFM_WRITE), &info, writer.userData) else {
            target.discard()
            throw OfflineRenderer.RenderError(description: "cannot write '\(path)': \(sndfileMessage())")
        }
        self.writer = writer
        atomic = target
        // Integer formats clip at full scale instead of wrapping around.
        sf_command(f, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        file = f
        background = BackgroundWriter(file: f)
    }

    deinit {
        close()
        buffer.deallocate()
    }

    func open(render: UnsafeMutablePointer<RenderState>, shared: UnsafeMutablePointer<EngineShared>, sampleRate: Double) {
        self.render = render
    }

    var state: OutputState { file == nil ? .failed("\(path): closed") : .running(latencyMs: 0) }

    /// Renders `frames` frames (at most the block size given at creation) and writes them; the last
    /// `fadeOutLast` frames fade to silence (the end of a render with no tail).
    func pull(frames: Int, fadeOutLast: Int = 0) throws {
        guard let render, let file else { return }
        precondition(frames <= capacity)
        RenderState.render(render, into: buffer, frames: frames)
        Fades.fadeOut(buffer, frames: frames, last: fadeOutLast)
        let block = UnsafeBufferPointer(start: buffer, count: frames * 2)
        if truePeak != nil { truePeak!.process(block, into: &pending) } else { pending.append(contentsOf: block) }
        if pending.count >= 2 * Self.writeFrames { try writePending(file) }
    }

    /// Hands what is rendered to the writing thread.
    private func writePending(_ file: OpaquePointer) throws {
        guard !pending.isEmpty else { return }
        guard background?.write(&pending) ?? false else { throw writeFailure(file) }
    }

    /// The one line for a write that failed: the system's reason when a write to the file failed, else libsndfile's.
    private func writeFailure(_ file: OpaquePointer?) -> OfflineRenderer.RenderError {
        let why = writer.map(\.failure).flatMap { $0 == 0 ? nil : String(cString: strerror($0)) } ?? sndfileMessage(file)
        return OfflineRenderer.RenderError(description: "\(path): write failed (\(why))")
    }

    /// Completes the file and puts it in place, reporting a failure to finish it (the target is then untouched).
    func finish() throws {
        guard let f = file, var target = atomic else { return }
        // The frames the limiter still holds, and what is not written yet.
        if truePeak != nil { truePeak!.flush(into: &pending) }
        do {
            try writePending(f)
            guard background?.finish() ?? false else { throw writeFailure(f) }
        } catch {
            close()
            throw error
        }
        background = nil
        file = nil
        atomic = nil
        render = nil
        guard sf_close(f) == 0 else {
            target.discard()
            throw OfflineRenderer.RenderError(description: "\(path): could not be closed")
        }
        // libsndfile wrote the header again at the end: all it wrote must be in the file before it is named.
        guard writer?.flush() ?? true else {
            target.discard()
            throw writeFailure(nil)
        }
        do {
            try target.commit(durable: false)
        } catch {
            target.discard()
            throw OfflineRenderer.RenderError(description: "\(error)")
        }
    }

    /// Abandons an unfinished file: the target stays as it was.
    func close() {
        background?.finish()
        background = nil
        if let f = file { sf_close(f) }
        atomic?.discard()
        file = nil
        atomic = nil
        render = nil
    }
}

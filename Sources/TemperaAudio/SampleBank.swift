import TemperaCore

/// The samples of a document's 16 slots, loaded once and cached by file and note, so an edit that leaves a
/// slot's file alone never reloads it. Editor thread only.
public final class SampleBank {
    private struct Key: Hashable {
        var path: String
        var note: Int?
    }

    private var cache: [Key: SampleBuffer] = [:]
    private var failures: [Key: String] = [:]
    let sampleRate: Double
    let kitDirectory: String?
    /// SoundFont slots' notes, rendered into samples here, off the audio thread.
    let soundFonts: SoundFontBank

    init(sampleRate: Double, kitDirectory: String? = nil) {
        self.sampleRate = sampleRate
        self.kitDirectory = kitDirectory
        soundFonts = SoundFontBank(sampleRate: sampleRate)
    }

    /// The kit's tone for MIDI-note slots without a file: a mallet on middle C, so note N sounds pitch N.
    public static let noteSampleName = "note"

    /// One buffer per slot (nil: empty or failed) and one line per file that failed, naming it.
    /// A MIDI-note slot without a file plays `kit/note.wav` pitched to its note.
    func samples(for slots: [ClipSlot], baseDirectory: String?) -> ([SampleBuffer?], [String]) {
        var buffers: [SampleBuffer?] = []
        var warnings: [String] = []
        var used = Set<Key>()
        for (i, slot) in slots.enumerated() {
            guard !slot.isEmpty else { buffers.append(nil); continue }
            if slot.soundFont != nil {
                let (buffer, problem) = soundFonts.sample(for: slot, baseDirectory: baseDirectory)
                if let problem { warnings.append("slot \(i + 1): \(problem)") }
                buffers.append(buffer)
                continue
            }
            let reference = slot.file ?? "kit/\(Self.noteSampleName).wav"
            let path = SamplePaths.resolve(reference, baseDirectory: baseDirectory, kitDirectory: kitDirectory)
            let key = Key(path: path, note: slot.note)
            used.insert(key)
            if let b = cache[key] { buffers.append(b); continue }
            if let message = failures[key] {
                buffers.append(nil)
                warnings.append("slot \(i + 1): \(message)")
                continue
            }
            do {
                let b = try SampleLoader.load(path: path, sampleRate: sampleRate, note: slot.note, name: reference)
                cache[key] = b
                buffers.append(b)
            } catch {
                let message = "\(error)"
                failures[key] = message
                buffers.append(nil)
                warnings.append("slot \(i + 1): \(message)")
            }
        }
        // Forget what no slot uses any more (published snapshots keep their own references).
        cache = cache.filter { used.contains($0.key) }
        failures = failures.filter { used.contains($0.key) }
        soundFonts.sweep()
        return (buffers, warnings)
    }

    /// Forgets failures so the next load tries those files again (after the user fixed them).
    func retryFailures() {
        failures.removeAll()
        soundFonts.retryFailures()
    }
}

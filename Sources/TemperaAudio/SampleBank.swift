import Foundation
import TemperaCore

/// The samples of a document's 16 slots, loaded once and cached by file, note and pitch, so an edit that leaves
/// a slot's files alone never reloads them. One thread at a time: the engine runs every use on its load queue
/// (hence `@unchecked Sendable`); an offline render owns its own bank.
public final class SampleBank: @unchecked Sendable {
    private struct Key: Hashable {
        var path: String
        var note: Int?
        var pitch: Double
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

    /// One list of buffers per slot: one per velocity layer, else the slot's one sound (nil where a file failed;
    /// empty for an empty slot). And one line per file that failed, naming it.
    /// A MIDI-note slot without a file plays `kit/note.wav` pitched to its note.
    func samples(for slots: [ClipSlot], baseDirectory: String?) -> ([[SampleBuffer?]], [String]) {
        var buffers: [[SampleBuffer?]] = []
        var warnings: [String] = []
        var used = Set<Key>()
        // A missing kit folder is one problem, said once, not once for every slot that uses it.
        let kitFolder = kitDirectory ?? SamplePaths.kitDirectory()
        var isFolder: ObjCBool = false
        let kitMissing = !FileManager.default.fileExists(atPath: kitFolder, isDirectory: &isFolder) || !isFolder.boolValue
        var kitSlots: [Int] = []
        for (i, slot) in slots.enumerated() {
            // A slot that only sends MIDI is silent here.
            guard !slot.isEmpty, !slot.isSilentMidi else { buffers.append([]); continue }
            if slot.soundFont != nil && slot.layers.isEmpty {
                let (bands, problem) = soundFonts.samples(for: slot, baseDirectory: baseDirectory)
                if let problem { warnings.append("slot \(i + 1): \(problem)") }
                buffers.append(bands)
                continue
            }
            var sounds: [(reference: String, pitch: Double, label: String)] = []
            if slot.layers.isEmpty {
                sounds = [(slot.file ?? "kit/\(Self.noteSampleName).wav", 0, "slot \(i + 1)")]
            } else {
                sounds = slot.layers.enumerated().map { k, l in (l.file, l.pitch, "slot \(i + 1) layer \(k + 1)") }
            }
            var list: [SampleBuffer?] = []
            for sound in sounds {
                if kitMissing && sound.reference.hasPrefix("kit/") {
                    if kitSlots.last != i + 1 { kitSlots.append(i + 1) }
                    list.append(nil)
                    continue
                }
                let path = SamplePaths.resolve(sound.reference, baseDirectory: baseDirectory, kitDirectory: kitDirectory)
                let key = Key(path: path, note: slot.note, pitch: sound.pitch)
                used.insert(key)
                if let b = cache[key] {
                    list.append(b)
                    if b.replacedNonFinite > 0 { warnings.append(Self.nonFiniteWarning(b, sound.label, sound.reference)) }
                    continue
                }
                if let message = failures[key] {
                    list.append(nil)
                    warnings.append("\(sound.label): \(message)")
                    continue
                }
                do {
                    let b = try SampleLoader.load(path: path, sampleRate: sampleRate, note: slot.note, pitch: sound.pitch,
                                                  name: sound.reference)
                    cache[key] = b
                    list.append(b)
                    if b.replacedNonFinite > 0 { warnings.append(Self.nonFiniteWarning(b, sound.label, sound.reference)) }
                } catch {
                    let message = "\(error)"
                    failures[key] = message
                    list.append(nil)
                    warnings.append("\(sound.label): \(message)")
                }
            }
            buffers.append(list)
        }
        if !kitSlots.isEmpty {
            let which = kitSlots.count == 1 ? "slot \(kitSlots[0]) plays" : "\(kitSlots.count) slots play"
            warnings.insert("the default kit is missing (no folder \(kitFolder); set TEMPERA_SAMPLES to its Samples "
                + "folder): \(which) silence", at: 0)
        }
        // Forget what no slot uses any more (published snapshots keep their own references).
        cache = cache.filter { used.contains($0.key) }
        failures = failures.filter { used.contains($0.key) }
        soundFonts.sweep()
        return (buffers, warnings)
    }

    /// The line that says a sample held NaN or infinities, which play as silence.
    static func nonFiniteWarning(_ b: SampleBuffer, _ label: String, _ reference: String) -> String {
        let n = b.replacedNonFinite
        return "\(label): \(reference): \(n) sample value\(n == 1 ? " was" : "s were") not a number (NaN or infinite) "
            + "and play\(n == 1 ? "s" : "") as silence"
    }

    /// Forgets failures so the next load tries those files again (after the user fixed them).
    func retryFailures() {
        failures.removeAll()
        soundFonts.retryFailures()
    }
}

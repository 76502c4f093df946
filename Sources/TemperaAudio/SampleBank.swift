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
        /// A gate slot's file, its end as recorded (`SampleLoader.load`'s `fadeEnd` false).
        var whole = false
    }

    private var cache: [Key: SampleBuffer] = [:]
    private var failures: [Key: String] = [:]
    let sampleRate: Double
    let kitDirectory: String?
    /// SoundFont slots' notes, rendered into samples here, off the audio thread.
    let soundFonts: SoundFontBank
    /// Cached conversions are mapped into memory, not read (a render's bank; never a player's, see `SampleBuffer`).
    let mapsCachedSamples: Bool

    init(sampleRate: Double, kitDirectory: String? = nil, mapsCachedSamples: Bool = false) {
        self.sampleRate = sampleRate
        self.kitDirectory = kitDirectory
        self.mapsCachedSamples = mapsCachedSamples
        soundFonts = SoundFontBank(sampleRate: sampleRate)
    }

    /// The kit's tone for MIDI-note slots without a file: a mallet on middle C, so note N sounds pitch N.
    public static let noteSampleName = "note"

    /// One list of buffers per slot: one per velocity layer, else the slot's one sound (nil where a file failed;
    /// empty for an empty slot). And one line per file that failed, naming it.
    /// A MIDI-note slot without a file plays `kit/note.wav` pitched to its note. `layersUsed`, when given, names
    /// per slot the layers to load (nil: all); the others are left nil (an offline render loads only what it plays).
    /// The files not loaded yet are loaded on every core at once.
    func samples(for slots: [ClipSlot], baseDirectory: String?, layersUsed: [Set<Int>?]? = nil)
        -> ([[SampleBuffer?]], [String]) {
        // A missing kit folder is one problem, said once, not once for every slot that uses it.
        let kitFolder = kitDirectory ?? SamplePaths.kitDirectory()
        var isFolder: ObjCBool = false
        let kitMissing = !FileManager.default.fileExists(atPath: kitFolder, isDirectory: &isFolder) || !isFolder.boolValue
        // What each slot plays, and which of those files are still to load.
        var plan: [[Sound]?] = []
        var toLoad: [Sound] = []
        var queued = Set<Key>()
        for (i, slot) in slots.enumerated() {
            guard !slot.isEmpty, !slot.isSilentMidi, !(slot.soundFont != nil && slot.layers.isEmpty) else {
                plan.append(nil)
                continue
            }
            var sounds: [Sound] = []
            let wanted = layersUsed.flatMap { i < $0.count ? $0[i] : nil }
            if slot.layers.isEmpty {
                sounds = [Sound(reference: slot.file ?? "kit/\(Self.noteSampleName).wav", pitch: 0, label: "slot \(i + 1)")]
            } else {
                sounds = slot.layers.enumerated().map { k, l in
                    Sound(reference: l.file, pitch: l.pitch, label: "slot \(i + 1) layer \(k + 1)",
                          skipped: wanted.map { !$0.contains(k) } ?? false)
                }
            }
            for k in sounds.indices where !sounds[k].skipped {
                if kitMissing && sounds[k].reference.hasPrefix("kit/") { continue }
                let path = SamplePaths.resolve(sounds[k].reference, baseDirectory: baseDirectory, kitDirectory: kitDirectory)
                let key = Key(path: path, note: slot.note, pitch: sounds[k].pitch, whole: slot.mode == .gate)
                sounds[k].key = key
                if cache[key] == nil && failures[key] == nil && queued.insert(key).inserted { toLoad.append(sounds[k]) }
            }
            plan.append(sounds)
        }
        load(toLoad)

        var buffers: [[SampleBuffer?]] = []
        var warnings: [String] = []
        var used = Set<Key>()
        var kitSlots: [Int] = []
        for (i, slot) in slots.enumerated() {
            guard let sounds = plan[i] else {
                // A slot that only sends MIDI is silent here; a SoundFont slot renders its notes.
                if !slot.isEmpty, !slot.isSilentMidi, slot.soundFont != nil {
                    let (bands, problem) = soundFonts.samples(for: slot, baseDirectory: baseDirectory)
                    if let problem { warnings.append("slot \(i + 1): \(problem)") }
                    buffers.append(bands)
                } else {
                    buffers.append([])
                }
                continue
            }
            var list: [SampleBuffer?] = []
            for sound in sounds {
                guard !sound.skipped else { list.append(nil); continue }
                guard let key = sound.key else {
                    // The default kit is missing.
                    if kitSlots.last != i + 1 { kitSlots.append(i + 1) }
                    list.append(nil)
                    continue
                }
                used.insert(key)
                if let b = cache[key] {
                    list.append(b)
                    if b.replacedNonFinite > 0 { warnings.append(Self.nonFiniteWarning(b, sound.label, sound.reference)) }
                } else {
                    list.append(nil)
                    warnings.append("\(sound.label): \(failures[key] ?? "not loaded")")
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

    /// One file a slot plays: its reference, its layer's pitch, how messages name it, and where it is (nil until
    /// resolved; stays nil when the default kit is missing).
    private struct Sound {
        var reference: String
        var pitch: Double
        var label: String
        var skipped = false
        var key: Key?
    }

    /// Loads `sounds` (their keys set) into the cache, or their failures, on as many threads as there are cores:
    /// reading and converting a kit is the slow part of opening a document at another rate.
    private func load(_ sounds: [Sound]) {
        guard !sounds.isEmpty else { return }
        let results = UnsafeMutableBufferPointer<Result<SampleBuffer, Error>?>.allocate(capacity: sounds.count)
        results.initialize(repeating: nil)
        defer {
            results.deinitialize()
            results.deallocate()
        }
        let rate = sampleRate, mapped = mapsCachedSamples
        let work = { (k: Int) in
            let s = sounds[k], key = s.key!
            results[k] = Result {
                try SampleLoader.load(path: key.path, sampleRate: rate, note: key.note, pitch: key.pitch, fadeEnd: !key.whole,
                                      name: s.reference, mapped: mapped)
            }
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        if sounds.count == 1 || cores < 2 {
            for k in sounds.indices { work(k) }
        } else {
            // Each iteration writes only its own result.
            nonisolated(unsafe) let run = work
            DispatchQueue.concurrentPerform(iterations: sounds.count) { run($0) }
        }
        for (k, s) in sounds.enumerated() {
            switch results[k]! {
            case .success(let b): cache[s.key!] = b
            case .failure(let error): failures[s.key!] = "\(error)"
            }
        }
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

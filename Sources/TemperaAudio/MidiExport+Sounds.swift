import Foundation
import TemperaCore

extension MidiExport {
    /// How long each slot sounds, in seconds, for the note offs of one-shots: its sample as playback loads it
    /// (pitched to its note; a SoundFont slot's rendered note), shortened by a decay envelope; nil for an empty
    /// slot, a gate, or one whose sound cannot be loaded (with a line saying why). A slot with velocity layers
    /// has one length a layer instead (`layers`, its slot's entry nil): the note lasts as long as the layer its
    /// velocity plays, and the slot's own `file` (which it never plays) is not read.
    ///
    /// - Warning: loads samples and renders notes: call it off the audio thread.
    public static func soundSeconds(of slots: [ClipSlot], baseDirectory: String?)
        -> (seconds: [Double?], layers: [[Double?]], warnings: [String]) {
        var warnings: [String] = []
        let rate = 48_000.0
        let fonts = SoundFontBank(sampleRate: rate)
        func length(_ slot: ClipSlot, _ reference: String, pitch: Double, label: String) -> Double? {
            let path = SamplePaths.resolve(reference, baseDirectory: baseDirectory)
            do {
                let buffer = try SampleLoader.load(path: path, sampleRate: rate, note: slot.note, pitch: pitch,
                                                   name: reference)
                var seconds = Double(buffer.frames) / rate
                if let decay = slot.decay { seconds = min(seconds, (slot.attack + decay) / 1000) }
                return seconds
            } catch {
                warnings.append("\(label): \(error)")
                return nil
            }
        }
        var layers: [[Double?]] = []
        let lengths: [Double?] = slots.enumerated().map { i, slot in
            layers.append([])
            guard !slot.isEmpty, !slot.isSilentMidi, slot.mode == .oneShot else { return nil }
            if slot.soundFont != nil && slot.layers.isEmpty {
                let (note, problem) = fonts.sample(for: slot, baseDirectory: baseDirectory)
                if let problem { warnings.append("slot \(i + 1): \(problem)") }
                return note.map { Double($0.frames) / rate }
            }
            if !slot.layers.isEmpty {
                layers[i] = slot.layers.enumerated().map { k, l in
                    length(slot, l.file, pitch: l.pitch, label: "slot \(i + 1) layer \(k + 1)")
                }
                return nil
            }
            return length(slot, slot.file ?? "kit/\(SampleBank.noteSampleName).wav", pitch: 0, label: "slot \(i + 1)")
        }
        return (lengths, layers, warnings)
    }

    /// The document as MIDI file bytes, its sounds' lengths read from disk (see `soundSeconds`), and every
    /// line of what could not be said exactly.
    public static func export(_ doc: Document, baseDirectory: String?, loops: Int = 1, song: Bool = false)
        -> (bytes: [UInt8], warnings: [String]) {
        let (lengths, layers, loadWarnings) = soundSeconds(of: doc.slots, baseDirectory: baseDirectory)
        let options = Options(loops: loops, soundSeconds: lengths, layerSeconds: layers)
        let (midi, warnings) = file(doc, options: options, song: song)
        return (midi.bytes(), loadWarnings + warnings)
    }
}

import ArgumentParser
import Foundation
import TemperaAudio
import TemperaCore

/// `tempera export FILE -o OUT.mid [--song] [--loops N]`: the document as a Standard MIDI File.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a document as a Standard MIDI File (type 1, 960 ticks per beat).",
        discussion: """
            The first track holds the tempo and time signature; then one track per tempera track, named after it. \
            An onset at playback time T (as 'tempera events' prints it) is at tick round(T*960*BPM/60). A slot's \
            note is its MIDI note, else the General MIDI drum note of its name (kick 36, snare 38, rim 37, \
            clap 39, closed-hat 42, open-hat 46, low/mid/high tom 45/47/50, crash 49, ride 51, cowbell 56, \
            shaker 70, clave 75, woodblock 76, conga 63, ...) on channel 10. Velocity = max(1, round(amp*127)). \
            A note ends where its sound does: a one-shot after its sample's length (or at a '-'), a gate at the \
            next marker of its track that is not '+'. With --song the song is written, each section at its own \
            tempo (a tempo event where it changes); its ticks count the beats of the sections before it.
            """)

    @Argument(help: "The tempera document.")
    var file: String

    @Option(name: .shortAndLong, help: "The MIDI file to write.")
    var output: String

    @Option(help: "Passes of the loop region to write (with --song: of the whole song).")
    var loops = 1

    @Flag(help: "Write the document's song (its sections) instead of the loop.")
    var song = false

    func run() throws {
        guard (1...100_000).contains(loops) else { throw fail("--loops must be from 1 to 100000, not \(loops)") }
        let document = try CommandLineFailure.loadDocument(file, song: song)
        let base = (file as NSString).deletingLastPathComponent
        let (lengths, loadWarnings) = Self.soundSeconds(of: document.slots, baseDirectory: base.isEmpty ? "." : base)
        let options = MidiExport.Options(loops: loops, soundSeconds: lengths)
        let (midi, warnings) = MidiExport.file(document, options: options, song: song)
        for w in loadWarnings + warnings { warn(w) }
        do {
            try DocumentFile.writeAtomically(midi.bytes(), to: output)
        } catch let error as CommandError {
            throw fail(error.message)
        }
    }

    /// How long each slot sounds, in seconds: its sample as playback loads it (pitched to its note), shortened
    /// by a decay envelope; nil for an empty slot or one whose file cannot be read (with a line saying why).
    static func soundSeconds(of slots: [ClipSlot], baseDirectory: String) -> ([Double?], [String]) {
        var warnings: [String] = []
        let rate = 48_000.0
        let fonts = SoundFontBank(sampleRate: rate)
        let lengths: [Double?] = slots.enumerated().map { i, slot in
            guard !slot.isEmpty, slot.mode == .oneShot else { return nil }
            if slot.soundFont != nil {
                let (note, problem) = fonts.sample(for: slot, baseDirectory: baseDirectory)
                if let problem { warnings.append("slot \(i + 1): \(problem)") }
                return note.map { Double($0.frames) / rate }
            }
            let reference = slot.file ?? "kit/\(SampleBank.noteSampleName).wav"
            let path = SamplePaths.resolve(reference, baseDirectory: baseDirectory)
            do {
                let buffer = try SampleLoader.load(path: path, sampleRate: rate, note: slot.note, name: reference)
                var seconds = Double(buffer.frames) / rate
                if let decay = slot.decay { seconds = min(seconds, (slot.attack + decay) / 1000) }
                return seconds
            } catch {
                warnings.append("slot \(i + 1): \(error)")
                return nil
            }
        }
        return (lengths, warnings)
    }
}

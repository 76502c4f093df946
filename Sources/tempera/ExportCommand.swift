import ArgumentParser
import Foundation
import TemperaAudio
import TemperaCore
import TemperaStudio

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
        // The registry's writer, as the editor's `:export` and a player's `export` write.
        let prepared = try Formats.writer(for: output, sound: false).prepare(document, base.isEmpty ? "." : base, output,
                                                                             Formats.WriteOptions(loops: loops, song: song))
        for w in prepared.warnings { warn(w) }
        do {
            try prepared.write { _ in }
        } catch let error as CommandError {
            throw fail(error.message)
        }
    }
}

import ArgumentParser
import TemperaCore

/// `tempera import FILE.mid -o OUT.json`: a Standard MIDI File as a tempera document.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Make a tempera document from a Standard MIDI File (.mid).",
        discussion: """
            MIDI files of format 0 and 1 with ticks-per-quarter time (not SMPTE): one track per channel and note \
            that sounds, each note a marker at the exact second of the file's tempo map, velocity/127 as its \
            amplitude. Channel 10 notes play the General MIDI drum of that note (the default kit's sample when \
            it has the sound); other notes are gate slots ended by their note off. The document loops over the \
            whole file at tempo x1. What cannot be carried (more than 16 sounds) is said on stderr.
            """)

    @Argument(help: "The file to import (.mid or .midi).")
    var file: String

    @Option(name: .shortAndLong, help: "The tempera document to write.")
    var output: String

    func run() throws {
        let bytes: [UInt8]
        do {
            bytes = try DocumentFile.readFile(file)
        } catch let error as CommandError {
            throw fail(error.message)
        }
        // What a file holds is told by its first bytes, whatever its name: each format its own importer.
        guard bytes.starts(with: Array("MThd".utf8)) else {
            throw CommandLineFailure.report("\(file): not a file tempera imports (a Standard MIDI File starts with MThd)")
        }
        let document: Document
        do {
            let midi = try MidiFile.parse(bytes)
            let (doc, warnings) = try MidiImport.document(from: midi)
            for w in warnings { warn(w) }
            document = doc
        } catch let error as MidiFileError {
            throw CommandLineFailure.report("\(file): \(error.message)")
        }
        do {
            try DocumentFile.save(document, to: output)
        } catch let error as CommandError {
            throw fail(error.message)
        }
    }
}

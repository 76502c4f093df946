import ArgumentParser
import TemperaCore
import TemperaStudio

/// `tempera import FILE -o OUT.json`: a Standard MIDI File, a Hydrogen song or a recording as a tempera document.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Make a tempera document from a Standard MIDI File (.mid), a Hydrogen song (.h2song) or a recording (.wav, .flac, .ogg, .mp3, any format libsndfile reads).",
        discussion: """
            MIDI files of format 0 and 1 with ticks-per-quarter time (not SMPTE): one track per channel and note \
            that sounds, each note a marker at the exact second of the file's tempo map, velocity/127 as its \
            amplitude. Channel 10 notes play the General MIDI drum of that note (the default kit's sample when \
            it has the sound); other notes are gate slots ended by their note off. The document loops over the \
            whole file at tempo x1. What cannot be carried (more than 16 sounds) is said on stderr.

            A Hydrogen song: each pattern becomes a group (edit it once, every place it plays follows) and each \
            distinct column of its pattern sequence a region of the timeline holding an instance of each of its \
            patterns; the sequence becomes the song (sections of equal columns, repeated). Instruments with notes \
            become slots with their kit's velocity layers, gain, pan and mute group (the kit read where it is \
            installed), velocity becomes amplitude and lead/lag an exact time offset. One line on stderr for each \
            thing it cannot carry (more than 16 instruments or patterns, probability, humanize, swing...).

            A recording (any file libsndfile reads): its onsets, found with libaubio (high-frequency content, \
            hop 64 samples) and each moved to the first sample of its attack, become markers whose amplitude is \
            the attack's peak against the loudest. The document takes the recording's tempo: a loop is whole \
            bars, so its beat, meter, grid and loop come from its length and its onsets. --split puts low, middle and high \
            attacks (kick, snare, hats) on three tracks; --slice puts the file in slot 1 and makes each marker \
            play its own slice of it (from=SECONDS), so the document plays the recording as it is and can then \
            be re-timed. A line on stderr says what was found.
            """)

    @Argument(help: "The file to import (.mid, .h2song, or a sound file).")
    var file: String

    @Option(name: .shortAndLong, help: "The tempera document to write.")
    var output: String

    @Flag(help: "A recording: low, middle and high attacks on three tracks (kick, snare, hat).")
    var split = false

    @Flag(help: "A recording: the file in slot 1, each marker playing its own slice of it.")
    var slice = false

    @Option(help: "A recording: aubio's peak-picking threshold; lower finds softer onsets (default 0.1).")
    var threshold: Double?

    func run() throws {
        // Every format is read where the editor's `:import` reads it (`Formats`); only where the document names a
        // recording is this command's: relative to the output's folder when the recording lies inside it.
        let folder = PathRebase.folder(of: output)
        var reference = PathRebase.rebase(file, from: PathRebase.folder(of: nil), to: folder) ?? file
        if reference.hasPrefix(folder + "/") { reference.removeFirst(folder.count + 1) }
        do {
            let options = Formats.ImportOptions(split: split, slice: slice, threshold: threshold, fileReference: reference)
            let imported = try Formats.importDocument(path: file, options: options)
            try DocumentFile.save(imported.document, to: output)
            for line in imported.lines { warn(line) }
        } catch let error as CommandError {
            // Lines about the file name it first; the others say they are tempera's.
            throw CommandLineFailure.report(error.message.hasPrefix(file + ":") ? error.message : "tempera: " + error.message)
        }
    }
}

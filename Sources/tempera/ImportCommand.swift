import ArgumentParser
import TemperaAudio
import TemperaCore
import TemperaKits

/// `tempera import FILE -o OUT.json`: a Standard MIDI File, a Hydrogen song or a recording as a tempera document.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Make a tempera document from a Standard MIDI File (.mid), a Hydrogen song (.h2song) or a recording (.wav, .flac, .ogg).",
        discussion: """
            MIDI files of format 0 and 1 with ticks-per-quarter time (not SMPTE): one track per channel and note \
            that sounds, each note a marker at the exact second of the file's tempo map, velocity/127 as its \
            amplitude. Channel 10 notes play the General MIDI drum of that note (the default kit's sample when \
            it has the sound); other notes are gate slots ended by their note off. The document loops over the \
            whole file at tempo x1. What cannot be carried (more than 16 sounds) is said on stderr.

            A Hydrogen song: each distinct column of its pattern sequence becomes a region of the timeline and             the sequence the song (sections of equal columns, repeated); instruments with notes become slots             with their kit's velocity layers, gain, pan and mute group (the kit read where it is installed),             velocity becomes amplitude and lead/lag an exact time offset. One line on stderr for each thing it             cannot carry (more than 16 instruments, probability, humanize, swing...).

            A recording (any file libsndfile reads): its onsets, found with libaubio (high-frequency content, \
            hop 64 samples) and each moved to the first sample of its attack, become markers whose amplitude is \
            the attack's peak against the loudest; the loop is the whole file. --split puts low, middle and high \
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

    @Option(help: "A recording: aubio's peak-picking threshold; lower finds softer onsets (default 0.2).")
    var threshold: Double?

    func run() throws {
        // The kind is told from the head alone: a recording is read (or refused) by its own reader, from its header.
        let head: [UInt8]
        do {
            head = try DocumentFile.readHead(file, count: 4096)
        } catch let error as CommandError {
            throw fail(error.message)
        }
        // What a file holds is told by its first bytes, whatever its name: each format its own importer.
        if AudioImport.looksLikeAudio(head) {
            try importAudio()
            return
        }
        if split || slice {
            throw CommandLineFailure.report("\(file): --split and --slice are for recordings (a sound file)")
        }
        if Self.looksLikeHydrogenSong(head) {
            do {
                let (doc, warnings) = try HydrogenSong.document(path: file)
                for w in warnings { warn(w) }
                try DocumentFile.save(doc, to: output)
                return
            } catch let error as KitError {
                throw CommandLineFailure.report("tempera: \(error.description)")
            } catch let error as CommandError {
                throw fail(error.message)
            }
        }
        guard head.starts(with: Array("MThd".utf8)) else {
            throw CommandLineFailure.report("\(file): not a file tempera imports (a Standard MIDI File starts with MThd, "
                + "a Hydrogen song with <song>)")
        }
        let document: Document
        do {
            let midi = try MidiFile.parse(try DocumentFile.readFile(file))
            let (doc, warnings) = try MidiImport.document(from: midi)
            for w in warnings { warn(w) }
            document = doc
        } catch let error as MidiFileError {
            throw CommandLineFailure.report("\(file): \(error.message)")
        } catch let error as CommandError {
            throw fail(error.message)
        }
        do {
            try DocumentFile.save(document, to: output)
        } catch let error as CommandError {
            throw fail(error.message)
        }
    }

    /// A recording: onsets as markers (see the discussion above).
    func importAudio() throws {
        // The document names the file relative to its own folder when the file lies inside it, else absolutely.
        let folder = PathRebase.folder(of: output)
        var reference = PathRebase.rebase(file, from: PathRebase.folder(of: nil), to: folder) ?? file
        if reference.hasPrefix(folder + "/") { reference.removeFirst(folder.count + 1) }
        do {
            var options = AudioImport.Options(split: split, slice: slice, fileReference: reference)
            if let threshold {
                guard threshold > 0, threshold <= 10 else { throw CommandLineFailure.report("tempera: --threshold must be above 0 and at most 10") }
                options.settings.threshold = threshold
            }
            let (doc, onsets, sound) = try AudioImport.document(path: file, options: options)
            try DocumentFile.save(doc, to: output)
            var line = "\(file): " + AudioImport.summary(onsets, duration: sound.duration)
            if split {
                line += "; " + doc.tracks.map { "\($0.name) \($0.markers.count)" }.joined(separator: ", ")
            }
            warn(line)
        } catch let error as AudioImport.ImportError {
            throw CommandLineFailure.report("tempera: \(error.description)")
        } catch let error as CommandError {
            throw fail(error.message)
        }
    }

    /// XML whose first element is `<song>` (after the declaration and comments).
    static func looksLikeHydrogenSong(_ bytes: [UInt8]) -> Bool {
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self)
        var rest = Substring(head)
        while true {
            rest = rest.drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" || $0 == "\u{FEFF}" }
            if rest.hasPrefix("<?") || rest.hasPrefix("<!") {
                guard let close = rest.firstIndex(of: ">") else { return false }
                rest = rest[rest.index(after: close)...]
                continue
            }
            return rest.hasPrefix("<song>") || rest.hasPrefix("<song ")
        }
    }
}

import Foundation
import TemperaAudio
import TemperaCore
import TemperaKits

/// Every file format tempera reads as a document or writes from one, in one place: `tempera import`, the editor's
/// `:import` and any other front end ask `Formats`, so a new format is one entry here (its name, how its first
/// bytes are recognised, how it is read) and every way in takes it.
///
/// What a file holds is told by its first bytes, whatever its name: a recording (anything libsndfile reads), a
/// Hydrogen song (XML whose root is `<song>`), a Standard MIDI File (`MThd`).
public enum Formats {
    /// How a file is read: what `tempera import` and `:import` may ask of it.
    public struct ImportOptions: Sendable {
        /// A recording: low, middle and high attacks on three tracks.
        public var split = false
        /// A recording: the file in slot 1, each marker playing its slice.
        public var slice = false
        /// A recording: aubio's peak-picking threshold (nil: its default).
        public var threshold: Double?
        /// A recording: how the document names the file (relative to where it will be saved, or absolute).
        public var fileReference = ""

        public init(split: Bool = false, slice: Bool = false, threshold: Double? = nil, fileReference: String = "") {
            self.split = split
            self.slice = slice
            self.threshold = threshold
            self.fileReference = fileReference
        }
    }

    /// A file read as a document, and what could not be carried over or what was found, one line each.
    public struct Imported {
        public var document: Document
        /// The format's name ("a recording", "a Hydrogen song", "a MIDI file").
        public var format: String
        /// One line each: what was found (a recording's onsets) or what could not be carried over.
        public var lines: [String]
    }

    /// One format tempera imports.
    public struct Importer: Sendable {
        /// What the format is called in messages: "a Hydrogen song".
        public let name: String
        /// Whether a file's first bytes are this format.
        public let recognises: @Sendable ([UInt8]) -> Bool
        /// Reads the file at `path`; a file it cannot take throws a one-line `CommandError`.
        public let read: @Sendable (String, ImportOptions) throws -> (Document, [String])
        /// Takes `split` and `slice`.
        public let isRecording: Bool
    }

    /// Every format, the first that recognises a file reading it.
    public static let importers: [Importer] = [
        Importer(name: "a recording", recognises: AudioImport.looksLikeAudio, read: readRecording, isRecording: true),
        Importer(name: "a Hydrogen song", recognises: looksLikeHydrogenSong, read: { path, _ in
            do {
                return try HydrogenSong.document(path: path)
            } catch let error as KitError {
                throw CommandError(error.description)
            }
        }, isRecording: false),
        Importer(name: "a MIDI file", recognises: { $0.starts(with: Array("MThd".utf8)) }, read: { path, _ in
            do {
                return try MidiImport.document(from: try MidiFile.parse(try DocumentFile.readFile(path)))
            } catch let error as MidiFileError {
                throw CommandError("\(path): \(error.message)")
            }
        }, isRecording: false),
    ]

    /// What `import` says when no format takes a file.
    public static let importable = "a recording, a Standard MIDI File or a Hydrogen song"

    /// Reads `path` with the format its first bytes name. One-line `CommandError`s for a file that cannot be read,
    /// one no format takes, or `split`/`slice` asked of a file that is not a recording.
    public static func importDocument(path: String, options: ImportOptions = ImportOptions()) throws -> Imported {
        // The kind is told from the head alone: each format's reader reads (or refuses) the rest itself, a
        // recording from its header before any sample, so a huge file is refused without being read.
        let head = try DocumentFile.readHead(path, count: 4096)
        guard let importer = importers.first(where: { $0.recognises(head) }) else {
            throw CommandError("\(path): not a file tempera imports (\(importable))")
        }
        if !importer.isRecording, options.split || options.slice {
            throw CommandError("\(path): split and slice are for recordings (a sound file)")
        }
        let (document, lines) = try importer.read(path, options)
        return Imported(document: document, format: importer.name, lines: lines)
    }

    /// A recording: its onsets as markers; the one line saying what was found.
    static func readRecording(_ path: String, _ options: ImportOptions) throws -> (Document, [String]) {
        var settings = AudioImport.Options(split: options.split, slice: options.slice,
                                           fileReference: options.fileReference.isEmpty ? path : options.fileReference)
        if let threshold = options.threshold {
            guard threshold > 0, threshold <= 10 else { throw CommandError("the threshold must be above 0 and at most 10") }
            settings.settings.threshold = threshold
        }
        do {
            let (doc, onsets, sound) = try AudioImport.document(path: path, options: settings)
            var line = "\(path): " + AudioImport.summary(onsets, duration: sound.duration)
            if options.split { line += "; " + doc.tracks.map { "\($0.name) \($0.markers.count)" }.joined(separator: ", ") }
            return (doc, [line])
        } catch let error as AudioImport.ImportError {
            throw CommandError(error.description)
        }
    }

    /// XML whose first element is `<song>` (after the declaration and comments).
    public static func looksLikeHydrogenSong(_ bytes: [UInt8]) -> Bool {
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

import Foundation
import TemperaAudio
import TemperaCore
import TemperaPlayback

extension Formats {
    /// How a document is written: what `tempera export` and `tempera render` ask on their command lines, and what
    /// `:export` and `:render` leave at the defaults.
    public struct WriteOptions: Sendable {
        /// Passes of the loop region (with the song: of the whole song).
        public var loops = 1
        /// The notes of the song (its sections) instead of the loop; nil: as the document plays.
        public var song: Bool?
        /// A sound file's sample rate.
        public var sampleRate = 48_000.0
        /// A sound file's sample format.
        public var bits = OfflineRenderer.Bits.int24
        /// The longest a sound file rings on after its last pass, seconds.
        public var maxTail = 10.0
        /// A sound file's true (inter-sample) peak held at or below `OfflineRenderer.truePeakCeiling`.
        public var truePeak = false

        public init(loops: Int = 1, song: Bool? = nil, sampleRate: Double = 48_000,
                    bits: OfflineRenderer.Bits = .int24, maxTail: Double = 10, truePeak: Bool = false) {
            self.loops = loops
            self.song = song
            self.sampleRate = sampleRate
            self.bits = bits
            self.maxTail = maxTail
            self.truePeak = truePeak
        }
    }

    /// A document ready to be written: what could not be said exactly (known before anything is written, so a
    /// command line prints it before its progress bar), and the writing itself.
    public struct Prepared {
        /// One line each.
        public let warnings: [String]
        /// Writes the file atomically, telling `progress` how far it got (0...1, from the writing thread).
        public let write: ((Double) -> Void) throws -> Void
    }

    /// One format tempera writes a document as: a sound file rendered as playback sounds (`render`), or the notes
    /// (`export`).
    public struct Writer: Sendable {
        /// What the format is called in messages: "a FLAC file".
        public let name: String
        /// The file name endings that ask for it (lower case, no dot).
        public let extensions: [String]
        /// A rendered sound file (else the document's notes).
        public let isSound: Bool
        /// Prepares the document for the path (relative samples read from the folder given, "." when nil).
        public let prepare: @Sendable (Document, String?, String, WriteOptions) throws -> Prepared

        /// Prepares and writes in one go; the lines of what could not be said exactly.
        public func write(_ document: Document, baseDirectory: String?, to path: String,
                          options: WriteOptions = WriteOptions(), progress: (Double) -> Void = { _ in }) throws -> [String] {
            let prepared = try prepare(document, baseDirectory, path, options)
            try prepared.write(progress)
            return prepared.warnings
        }
    }

    /// Every format written, the first of each kind the default when a name's ending asks for none.
    public static let writers: [Writer] = [
        Writer(name: "a WAV file", extensions: ["wav"], isSound: true, prepare: sound(.wav)),
        Writer(name: "a FLAC file", extensions: ["flac"], isSound: true, prepare: sound(.flac)),
        Writer(name: "a Standard MIDI File", extensions: ["mid", "midi"], isSound: false, prepare: { document, base, path, options in
            let (bytes, warnings) = MidiExport.export(document, baseDirectory: base, loops: options.loops,
                                                      song: options.song ?? document.song.plays)
            return Prepared(warnings: warnings, write: { _ in try DocumentFile.writeAtomically(bytes, to: path) })
        }),
    ]

    /// The writer of a sound file (`sound`) or of notes that `path`'s ending asks for, else the first of its kind.
    public static func writer(for path: String, sound: Bool) -> Writer {
        let ending = (path as NSString).pathExtension.lowercased()
        let kind = writers.filter { $0.isSound == sound }
        return kind.first { $0.extensions.contains(ending) } ?? kind[0]
    }

    /// The sound file writer of a format's name (`wav`, `flac`), nil for a name no writer takes.
    public static func soundWriter(named name: String) -> Writer? {
        writers.first { $0.isSound && $0.extensions.contains(name.lowercased()) }
    }

    /// `export PATH` from the editor: the document's notes as it plays (its song when the song plays, else one
    /// pass of the loop), and the one line saying where they went and what could not be said exactly.
    public static func export(_ document: Document, baseDirectory: String?, to path: String) throws -> String {
        let warnings = try writer(for: path, sound: false).write(document, baseDirectory: baseDirectory, to: path)
        var message = "exported \(document.song.plays ? "the song" : "the loop") to \(path)"
        if let first = warnings.first {
            message += " (" + first + (warnings.count > 1 ? "; \(warnings.count - 1) more" : "") + ")"
        }
        return message
    }

    /// A sound file of `format`, as playback sounds.
    static func sound(_ format: OfflineRenderer.Format) -> @Sendable (Document, String?, String, WriteOptions) throws -> Prepared {
        { document, base, path, options in
            let renderer = OfflineRenderer(document: document, baseDirectory: base ?? ".", sampleRate: options.sampleRate,
                                           loops: options.loops, maxTail: options.maxTail)
            return Prepared(warnings: renderer.warnings, write: { progress in
                try renderer.write(to: path, format: format, bits: options.bits, truePeak: options.truePeak, progress: progress)
            })
        }
    }
}

/// The editor's renders away from the live output (`:render`), written by the registry of formats.
public struct StudioFiles: OfflineRendering {
    public init() {}

    public func render(_ document: Document, baseDirectory: String?, to path: String,
                       progress: @escaping @Sendable (Double) -> Void) throws {
        _ = try Formats.writer(for: path, sound: true).write(document, baseDirectory: baseDirectory, to: path,
                                                              progress: progress)
    }
}

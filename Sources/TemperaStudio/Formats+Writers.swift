import Foundation
import TemperaAudio
import TemperaCore
import TemperaPlayback

extension Formats {
    /// One format tempera writes a document as: a sound file rendered as playback sounds (`render`), or the notes
    /// (`export`).
    public struct Writer: Sendable {
        /// What the format is called in messages: "a FLAC file".
        public let name: String
        /// The file name endings that ask for it (lower case, no dot).
        public let extensions: [String]
        /// A rendered sound file (else the document's notes).
        public let isSound: Bool
        /// Writes the document to the path (relative samples read from the folder given), atomically, telling
        /// `progress` how far it got (0...1, from the writing thread); the lines of what could not be said exactly.
        public let write: @Sendable (Document, String?, String, @escaping @Sendable (Double) -> Void) throws -> [String]
    }

    /// Every format written, the first of each kind the default when a name's ending asks for none.
    public static let writers: [Writer] = [
        Writer(name: "a WAV file", extensions: ["wav"], isSound: true, write: sound(.wav)),
        Writer(name: "a FLAC file", extensions: ["flac"], isSound: true, write: sound(.flac)),
        Writer(name: "a Standard MIDI File", extensions: ["mid", "midi"], isSound: false, write: { document, base, path, _ in
            let (bytes, warnings) = MidiExport.export(document, baseDirectory: base, song: document.song.plays)
            try DocumentFile.writeAtomically(bytes, to: path)
            return warnings
        }),
    ]

    /// The writer of a sound file (`sound`) or of notes that `path`'s ending asks for, else the first of its kind.
    public static func writer(for path: String, sound: Bool) -> Writer {
        let ending = (path as NSString).pathExtension.lowercased()
        let kind = writers.filter { $0.isSound == sound }
        return kind.first { $0.extensions.contains(ending) } ?? kind[0]
    }

    /// A sound file of `format`, 24-bit, as playback sounds.
    static func sound(_ format: OfflineRenderer.Format)
        -> @Sendable (Document, String?, String, @escaping @Sendable (Double) -> Void) throws -> [String] {
        { document, base, path, progress in
            let renderer = OfflineRenderer(document: document, baseDirectory: base ?? ".")
            try renderer.write(to: path, format: format, bits: .int24, progress: progress)
            return renderer.warnings
        }
    }
}

/// The editor's renders away from the live output (`:render`), written by the registry of formats.
public struct StudioFiles: OfflineRendering {
    public init() {}

    public func render(_ document: Document, baseDirectory: String?, to path: String,
                       progress: @escaping @Sendable (Double) -> Void) throws {
        _ = try Formats.writer(for: path, sound: true).write(document, baseDirectory, path, progress)
    }
}

import Foundation
import TemperaCore
import TemperaStudio

extension Dispatcher {
    /// `:export PATH`: the document as a Standard MIDI File (what `tempera export` writes, by the registry of
    /// formats): the song when the song plays, else one pass of the loop. Samples are read from the document's
    /// folder, as playback reads them; the file is written atomically, and the status line says where, or what
    /// went wrong, in one line.
    func exportMidi(_ argument: String) {
        let path = Dispatcher.expand(argument)
        let doc = session.document
        let base = files.baseDirectory
        let song = doc.song.plays
        let warnings: [String]
        do {
            warnings = try Formats.writer(for: path, sound: false).write(doc, base, path, { _ in })
        } catch {
            return fail(error)
        }
        var message = "exported \(song ? "the song" : "the loop") to \(path)"
        if let first = warnings.first {
            message += " (" + first + (warnings.count > 1 ? "; \(warnings.count - 1) more" : "") + ")"
        }
        say(message)
    }
}

import Foundation
import TemperaCore
import TemperaPlayback

extension Dispatcher {
    /// `:export PATH`: the document as a Standard MIDI File (what `tempera export` writes): the song when the
    /// song plays, else one pass of the loop. Samples are read from the document's folder, as playback reads
    /// them; the file is written atomically, and the status line says where, or what went wrong, in one line.
    func exportMidi(_ argument: String) {
        guard let offline else { return say("no MIDI writer in this session", error: true) }
        let path = Dispatcher.expand(argument)
        let doc = session.document
        let base = session.path.map { (Autosave.absolute($0) as NSString).deletingLastPathComponent }
        let song = doc.song.plays
        let (bytes, warnings) = offline.midi(doc, baseDirectory: base, song: song)
        do {
            try DocumentFile.writeAtomically(bytes, to: path)
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

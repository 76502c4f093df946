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
        do {
            say(try Formats.export(session.document, baseDirectory: files.baseDirectory, to: path))
        } catch {
            fail(error)
        }
    }
}

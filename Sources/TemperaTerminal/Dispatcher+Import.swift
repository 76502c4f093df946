import Foundation
import TemperaCore
import TemperaStudio

extension Dispatcher {
    /// `:import FILE [split] [slice]`: a recording, a Standard MIDI File or a Hydrogen song as a new, unsaved
    /// document in place of this one, read by the same registry of formats as `tempera import` (`Formats`). A
    /// sliced recording names the file by its absolute path, so the document plays it wherever it is saved.
    func importDocument(_ path: String, split: Bool, slice: Bool) {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let imported: Formats.Imported
        do {
            imported = try Formats.importDocument(
                path: path, options: Formats.ImportOptions(split: split, slice: slice, fileReference: absolute))
        } catch {
            return fail(error)
        }
        whenDiscarded {
            self.replaceSession(Session(document: imported.document))
            var message = "imported \(path)"
            if let first = imported.lines.first {
                // A recording's line names the file first; other formats' lines are what could not be carried.
                message = first.hasPrefix(path + ": ") ? "imported " + first
                    : message + " (\(imported.lines.count) warning\(imported.lines.count == 1 ? "" : "s"): \(first))"
            }
            self.say(message)
        }
    }
}

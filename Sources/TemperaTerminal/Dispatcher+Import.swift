import Foundation
import TemperaCore
import TemperaStudio

extension Dispatcher {
    /// `:import FILE [split] [slice]`: a recording, a Standard MIDI File or a Hydrogen song read by the same
    /// registry of formats as `tempera import` (`Formats`) and added to this document as one undo step: its
    /// tracks below the current track from the cursor's time, the slots they play added (`Session.add`). A
    /// sliced recording names the file by its absolute path, so the document plays it wherever it is saved.
    func importDocument(_ path: String, split: Bool, slice: Bool) {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let imported: Formats.Imported
        let added: String
        do {
            imported = try Formats.importDocument(
                path: path, options: Formats.ImportOptions(split: split, slice: slice, fileReference: absolute))
            added = try session.add(imported.document, name: (path as NSString).lastPathComponent)
        } catch {
            return fail(error)
        }
        var message = "imported \(path)"
        if let first = imported.lines.first {
            // A recording's line names the file first; other formats' lines are what could not be carried.
            message = first.hasPrefix(path + ": ") ? "imported " + first
                : message + " (\(imported.lines.count) warning\(imported.lines.count == 1 ? "" : "s"): \(first))"
        }
        say(message + "; " + added)
    }
}

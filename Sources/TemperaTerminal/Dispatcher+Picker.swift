import Foundation
import TemperaCore
import TemperaPlayback

/// The file and kit chooser of the Clips tab: keys move through it, Enter opens a folder or chooses, Space
/// previews a file on the output, Backspace goes up a folder, Esc closes. Choosing is one `slot N file=...` or
/// `kit load NAME from=N` command, so it is one undo step like any other.
extension Dispatcher {
    /// Opens the file picker for the chosen slot, in the folder it last showed (else the slot's file's, the
    /// document's or the current one).
    func openFilePicker() {
        guard case .clip(let n) = session.chosenClip, ClipSlot.range.contains(n) else {
            return say("choose a clip slot first (1-16)", error: true)
        }
        let fm = FileManager.default
        var isDir: ObjCBool = false
        var folder = pickerFolder ?? ""
        if folder.isEmpty || !fm.fileExists(atPath: folder, isDirectory: &isDir) || !isDir.boolValue {
            if let file = session.document.slot(n).file, file.hasPrefix("/") {
                folder = (file as NSString).deletingLastPathComponent
            } else if let path = session.path, path.hasPrefix("/") {
                folder = (path as NSString).deletingLastPathComponent
            } else {
                folder = fm.currentDirectoryPath
            }
        }
        view.picker = Picker.files(in: folder, slot: n)
        say("slot \(n): Enter chooses, Space previews, Backspace goes up, Esc closes")
    }

    func handlePicker(_ key: Key) {
        guard var p = view.picker else { return }
        let page = max(1, height - 5)
        switch key.name {
        case "up", "k": p.move(-1)
        case "down", "j": p.move(1)
        case "pgup": p.move(-page)
        case "pgdn": p.move(page)
        case "home": p.move(-p.entries.count)
        case "end": p.move(p.entries.count)
        case "esc", "q":
            view.picker = nil
            return say("nothing chosen")
        case "backspace", "left", "h":
            guard case .file(let slot) = p.purpose, p.folder != "/" else { break }
            let from = (p.folder as NSString).lastPathComponent
            p = Picker.files(in: p.parent, slot: slot)
            // Land on the folder we came from.
            if let i = p.entries.firstIndex(where: { $0.name == from && $0.isFolder }) { p.index = i }
        case "space", "p":
            guard case .file = p.purpose, let e = p.selected, !e.isFolder else { break }
            guard let player else { return say("no audio output in this session", error: true) }
            if let problem = player.preview(path: p.path(of: e)) { say(problem, error: true) } else { say("preview: \(e.name)") }
        case "enter", "right", "l":
            guard let e = p.selected else { break }
            switch p.purpose {
            case .file(let slot):
                if e.isFolder {
                    p = Picker.files(in: p.path(of: e), slot: slot)
                } else {
                    view.picker = nil
                    pickerFolder = p.folder
                    do {
                        try command(.slot(slot, Command.SlotSettings(file: p.path(of: e))))
                        say("slot \(slot): \(e.name)")
                    } catch {
                        fail(error)
                    }
                    return
                }
            case .kit(let slot):
                view.picker = nil
                do {
                    try command(.kitLoad(e.name, from: slot))
                } catch {
                    fail(error)
                }
                return
            }
        default:
            break
        }
        view.picker = p
    }
}

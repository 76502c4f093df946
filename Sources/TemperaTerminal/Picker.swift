import Foundation
import TemperaCore

/// The chooser the Clips tab opens over the screen: the files of a folder for a slot (Enter on a slot), or the
/// installed drum kits (`K`). A value: the dispatcher moves it with keys and `PickerView` draws it.
public struct Picker: Hashable, Sendable {
    public enum Purpose: Hashable, Sendable {
        /// An audio file for slot N.
        case file(slot: Int)
        /// A kit to load from slot N on.
        case kit(slot: Int)
    }

    public struct Entry: Hashable, Sendable {
        public var name: String
        /// A folder (files), or `..`.
        public var isFolder: Bool
        /// What the list shows after the name (a kit's instruments and licence).
        public var detail: String
    }

    public var purpose: Purpose
    /// The folder listed (files); "" for kits.
    public var folder: String
    public var entries: [Entry]
    public var index = 0

    /// The endings of the files listed: what libsndfile reads.
    public static let audioExtensions: Set<String> = ["wav", "flac", "ogg", "oga", "aif", "aiff", "mp3", "au", "caf", "w64"]

    /// `folder`'s sub-folders and audio files, `..` first (hidden ones left out), each group by name.
    public static func files(in folder: String, slot: Int) -> Picker {
        let fm = FileManager.default
        let names = ((try? fm.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") }
            .sorted { $0.localizedStandardCompare($1) == .orderedAscending }
        var folders: [Entry] = [], files: [Entry] = []
        for name in names {
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: folder + "/" + name, isDirectory: &isDir) else { continue }
            if isDir.boolValue {
                folders.append(Entry(name: name, isFolder: true, detail: ""))
            } else if audioExtensions.contains((name as NSString).pathExtension.lowercased()) {
                files.append(Entry(name: name, isFolder: false, detail: ""))
            }
        }
        let up = folder == "/" ? [] : [Entry(name: "..", isFolder: true, detail: "")]
        return Picker(purpose: .file(slot: slot), folder: folder, entries: up + folders + files)
    }

    /// The kits a source lists.
    public static func kits(_ kits: [(name: String, instruments: Int, licence: String)], slot: Int) -> Picker {
        Picker(purpose: .kit(slot: slot), folder: "", entries: kits.map { k in
            Entry(name: k.name, isFolder: false, detail: "\(k.instruments) instruments" + (k.licence.isEmpty ? "" : ", \(k.licence)"))
        })
    }

    public var isKits: Bool {
        if case .kit = purpose { return true }
        return false
    }

    public var selected: Entry? { entries.indices.contains(index) ? entries[index] : nil }

    /// The full path of an entry of a file listing.
    public func path(of entry: Entry) -> String {
        if entry.name == ".." { return parent }
        return (folder == "/" ? "" : folder) + "/" + entry.name
    }

    /// The folder above.
    public var parent: String {
        let p = (folder as NSString).deletingLastPathComponent
        return p.isEmpty ? "/" : p
    }

    public mutating func move(_ delta: Int) {
        guard !entries.isEmpty else { return }
        index = min(max(index + delta, 0), entries.count - 1)
    }
}

/// Draws a picker over the screen (all but the status line), like the help overlay.
enum PickerView {
    static func draw(_ p: Picker, ascii: Bool, into canvas: inout Canvas) {
        let w = canvas.width, h = canvas.height - 1
        guard w > 10, h > 4 else { return }
        canvas.fill(x: 0, y: 0, width: w, height: h)
        let ell: Character = ascii ? "~" : "…"
        let title: String
        let keys: String
        switch p.purpose {
        case .file(let slot):
            title = "slot \(slot): choose a file in \(p.folder)"
            keys = "Enter open / choose  Backspace up a folder  Space preview  Esc close"
        case .kit(let slot):
            title = "load a kit from slot \(slot) on"
            keys = "Enter load  Esc close"
        }
        _ = canvas.put(1, 0, Format.fit(title, w - 2, ellipsis: ell), .title)
        _ = canvas.put(1, 1, Format.fit(keys, w - 2, ellipsis: ell), .dim)
        let rows = h - 3
        if p.entries.isEmpty {
            let empty = p.isKits
                ? "no kits found (Hydrogen's drumkits: hydrogen-drumkits, ~/.hydrogen/data/drumkits)"
                : "no folders or audio files here"
            _ = canvas.put(3, 3, Format.fit(empty, w - 4, ellipsis: ell), .dim)
            return
        }
        let top = p.index < rows ? 0 : p.index - rows + 1
        for (row, i) in (top..<min(p.entries.count, top + rows)).enumerated() {
            let e = p.entries[i]
            let name = e.isFolder && e.name != ".." ? e.name + "/" : e.name
            let text = Format.pad(name, max(1, min(40, w - 6))) + (e.detail.isEmpty ? "" : "  " + e.detail)
            let mark = i == p.index ? (ascii ? ">" : "▸") : " "
            _ = canvas.put(1, 3 + row, mark + " " + Format.fit(text, w - 4, ellipsis: ell),
                           i == p.index ? .toolActive : e.isFolder ? .accent : .normal)
        }
    }
}

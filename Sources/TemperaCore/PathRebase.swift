#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Relative file references (slot samples, SoundFonts) are relative to the document's folder. When a document
/// is saved into another folder, `PathRebase` rewrites them so they still name the same files: relative to the
/// new folder when the file lies inside it, else absolute. Absolute, `~/` and `kit/` references stay as they
/// are. Pure string work on `/`-separated paths; `..` and `.` are folded.
public enum PathRebase {
    /// The absolute folder of a document path (the working directory for a bare name or no path).
    public static func folder(of documentPath: String?) -> String {
        guard let p = documentPath else { return workingDirectory() }
        let absolute = p.hasPrefix("/") ? p : workingDirectory() + "/" + p
        var parts = normalized(absolute)
        if !parts.isEmpty { parts.removeLast() }
        return "/" + parts.joined(separator: "/")
    }

    /// `reference` (relative to `oldFolder`) as seen from `newFolder`; nil when it needs no change.
    public static func rebase(_ reference: String, from oldFolder: String, to newFolder: String) -> String? {
        guard !reference.isEmpty, !reference.hasPrefix("/"), !reference.hasPrefix("~/"), !reference.hasPrefix("kit/"),
              reference != "default", oldFolder != newFolder else { return nil }
        let target = normalized(oldFolder + "/" + reference)
        let base = normalized(newFolder)
        if target.count > base.count, Array(target.prefix(base.count)) == base {
            return target.dropFirst(base.count).joined(separator: "/")
        }
        return "/" + target.joined(separator: "/")
    }

    /// The document with every relative reference rebased; the slots that changed are counted.
    public static func rebase(_ document: Document, from oldFolder: String, to newFolder: String) -> (Document, Int) {
        var doc = document
        var count = 0
        for i in doc.slots.indices {
            var slot = doc.slots[i]
            if let f = slot.file, let r = rebase(f, from: oldFolder, to: newFolder) { slot.file = r }
            if let f = slot.soundFont, let r = rebase(f, from: oldFolder, to: newFolder) { slot.soundFont = r }
            if slot != doc.slots[i] {
                doc.slots[i] = slot
                count += 1
            }
        }
        return (doc, count)
    }

    /// Two document paths name the same file (`song.tempera` and `./song.tempera` from the working directory):
    /// compared absolute, `.` and `..` folded (a `~` is the caller's to expand first).
    public static func samePath(_ a: String, _ b: String) -> Bool { absolute(a) == absolute(b) }

    static func absolute(_ path: String) -> [String] {
        normalized(path.hasPrefix("/") ? path : workingDirectory() + "/" + path)
    }

    static func normalized(_ path: String) -> [String] {
        var out: [String] = []
        for part in path.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": if !out.isEmpty { out.removeLast() }
            default: out.append(String(part))
            }
        }
        return out
    }

    static func workingDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

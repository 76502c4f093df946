import Foundation
import TemperaCore

/// The Hydrogen drumkits installed on this machine, read where they are (never copied): the system's
/// `/usr/share/hydrogen/data/drumkits/*/` and the user's `~/.hydrogen/data/drumkits/*/`, plus any folder holding
/// a `drumkit.xml` given by path. Editor thread only (it reads files).
public final class HydrogenKits: KitSource {
    /// The folders searched for kits, in order: a kit name found in an earlier one wins.
    public let roots: [String]

    public static let systemRoot = "/usr/share/hydrogen/data/drumkits"

    /// The user's folder: `$HOME/.hydrogen/data/drumkits`.
    public static func userRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        (environment["HOME"] ?? NSHomeDirectory()) + "/.hydrogen/data/drumkits"
    }

    public init(roots: [String] = [HydrogenKits.userRoot(), HydrogenKits.systemRoot]) {
        self.roots = roots
    }

    /// Every folder under the roots that holds a `drumkit.xml`, sorted by name within a root.
    public func folders() -> [String] {
        let fm = FileManager.default
        var out: [String] = []
        for root in roots {
            guard let names = try? fm.contentsOfDirectory(atPath: root) else { continue }
            for name in names.sorted() where fm.fileExists(atPath: root + "/" + name + "/drumkit.xml") {
                out.append(root + "/" + name)
            }
        }
        return out
    }

    public func list() -> [(name: String, instruments: Int, licence: String)] {
        var seen = Set<String>()
        var out: [(name: String, instruments: Int, licence: String)] = []
        for folder in folders() {
            guard let kit = try? HydrogenKit.read(folder: folder), seen.insert(kit.name).inserted else { continue }
            out.append((kit.name, kit.sounding.count, Self.shortLicence(kit.licence)))
        }
        return out
    }

    /// A licence as one short phrase (some kits write a paragraph, or a URL after the name).
    static func shortLicence(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.count > 48 ? String(line.prefix(47)) + "…" : line
    }

    public func load(_ nameOrPath: String) throws -> Kit {
        try read(nameOrPath).kit
    }

    /// The kit a name or path means: a path to a folder or to its `drumkit.xml`, else a kit's name (its
    /// `<name>` or its folder's, exactly, then ignoring case).
    public func read(_ nameOrPath: String) throws -> HydrogenKit {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        let expanded = nameOrPath.hasPrefix("~/") ? NSHomeDirectory() + nameOrPath.dropFirst(1) : nameOrPath
        if fm.fileExists(atPath: expanded, isDirectory: &isDir) {
            if isDir.boolValue {
                guard fm.fileExists(atPath: expanded + "/drumkit.xml") else {
                    throw KitError("kit: \(expanded) holds no drumkit.xml")
                }
                return try HydrogenKit.read(folder: expanded)
            }
            if (expanded as NSString).lastPathComponent == "drumkit.xml" {
                return try HydrogenKit.read(folder: (expanded as NSString).deletingLastPathComponent)
            }
            throw KitError("kit: \(expanded) is neither a kit folder nor a drumkit.xml")
        }
        if nameOrPath.contains("/") { throw KitError("kit: \(nameOrPath) does not exist") }
        let folders = self.folders()
        var byName: [(folder: String, kit: HydrogenKit?)] = []
        for f in folders {
            let folderName = (f as NSString).lastPathComponent
            let kit = try? HydrogenKit.read(folder: f)
            if folderName == nameOrPath || kit?.name == nameOrPath { return try kit ?? HydrogenKit.read(folder: f) }
            byName.append((f, kit))
        }
        let lower = nameOrPath.lowercased()
        for (f, kit) in byName where (f as NSString).lastPathComponent.lowercased() == lower || kit?.name.lowercased() == lower {
            return try kit ?? HydrogenKit.read(folder: f)
        }
        throw KitError("no kit named '\(nameOrPath)' (kit list names the \(folders.count) installed)")
    }
}

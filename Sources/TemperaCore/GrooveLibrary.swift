#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The user's grooves, kept across documents: one file a groove, `NAME.json`, in
/// `$XDG_DATA_HOME/tempera/grooves` (default `~/.local/share/tempera/grooves`), holding the groove as a document
/// keeps it in a group (`{"grid": G, "step": SECONDS, "offsets": [...], "amps": [...]}`). Written atomically.
public struct GrooveLibrary: Sendable, Equatable {
    /// The folder the grooves are in.
    public var folder: String

    public init(folder: String) { self.folder = folder }

    /// The user's library, from an environment (the process's by default): `$XDG_DATA_HOME/tempera/grooves`, or
    /// `$HOME/.local/share/tempera/grooves` when the variable is unset or not an absolute path.
    public static func user(environment: [String: String]? = nil) -> GrooveLibrary {
        func variable(_ name: String) -> String? {
            if let environment { return environment[name] }
            return getenv(name).map { String(cString: $0) }
        }
        if let data = variable("XDG_DATA_HOME"), data.hasPrefix("/") { return GrooveLibrary(folder: data + "/tempera/grooves") }
        let home = variable("HOME").flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        return GrooveLibrary(folder: (home == "/" ? "" : home) + "/.local/share/tempera/grooves")
    }

    /// The longest name a groove may have.
    public static let maxName = 100

    /// Why `name` cannot name a groove, or nil: letters, digits, `-`, `_` and `.`, not starting with a dot.
    public static func nameProblem(_ name: String) -> String? {
        let allowed = name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)
        }
        guard !name.isEmpty, name.count <= maxName, allowed, !name.hasPrefix(".") else {
            return "a groove's name is letters, digits, '-', '_' and '.' (at most \(maxName), not starting with '.'), not '\(Limits.echo(name))'"
        }
        return nil
    }

    /// The file groove `name` is kept in.
    public func path(_ name: String) -> String { folder + "/" + name + ".json" }

    /// The names of the grooves kept, sorted.
    public func names() -> [String] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var out: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            guard name.hasSuffix(".json") else { continue }
            let stem = String(name.dropLast(5))
            if GrooveLibrary.nameProblem(stem) == nil { out.append(stem) }
        }
        return out.sorted()
    }

    /// Keeps `groove` as `name` (replacing one of that name), creating the folder as needed; atomic.
    public func save(_ groove: Groove, as name: String) throws {
        if let why = GrooveLibrary.nameProblem(name) { throw CommandError(why) }
        try makeFolder(folder)
        do {
            try DocumentFile.writeAtomically(Array((groove.json + "\n").utf8), to: path(name))
        } catch {
            throw CommandError("could not keep groove \(name) in \(folder): \(GrooveLibrary.message(error))")
        }
    }

    /// Reads groove `name`; a missing or damaged file is one line naming it.
    public func load(_ name: String) throws -> Groove {
        if let why = GrooveLibrary.nameProblem(name) { throw CommandError(why) }
        let file = path(name)
        guard access(file, F_OK) == 0 else {
            let kept = names()
            throw CommandError("no groove \(name) in \(folder)"
                + (kept.isEmpty ? " (keep one with 'groove save NAME')" : " (kept: \(kept.joined(separator: ", ")))"))
        }
        if let why = RegularFile.problem(file) { throw CommandError("groove \(name): \(file) \(why)") }
        do {
            let bytes = try DocumentFile.readFile(file, limit: 16 << 20)
            return try DocumentFile.Decoder.groove(try JSONValue.parse(bytes))
        } catch {
            throw CommandError("groove \(name): \(file) is not a groove: \(GrooveLibrary.message(error))")
        }
    }

    /// Creates `path` and the folders above it as needed.
    func makeFolder(_ path: String) throws {
        var made = ""
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            made += "/" + part
            if mkdir(made, 0o755) != 0 && errno != EEXIST {
                throw CommandError("could not make the grooves' folder \(made): \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw CommandError("the grooves' folder \(path) is not a folder")
        }
    }

    static func message(_ error: Error) -> String {
        (error as? CommandError)?.description ?? "\(error)"
    }
}

extension Groove {
    /// As a file keeps it: `{"grid": 4, "step": 0.125, "offsets": [0.01, null, ...], "amps": [0.9, null, ...]}`.
    public var json: String {
        func list(_ xs: [Double?]) -> String { "[" + xs.map { $0.map(DocumentFile.number) ?? "null" }.joined(separator: ", ") + "]" }
        return "{\"grid\": \(steps), \"step\": \(DocumentFile.number(step)), \"offsets\": \(list(offsets)), \"amps\": \(list(amps))}"
    }
}

extension Session {
    /// Where `groove save` and `groove load` keep grooves: `grooveFolder` when set, else the user's library.
    var grooveLibrary: GrooveLibrary { grooveFolder.map(GrooveLibrary.init(folder:)) ?? GrooveLibrary.user() }

    /// `groove save NAME [N]`: group N's groove (the first group holding one by default) kept in the library.
    func runGrooveSave(_ name: String, group n: Int?) throws -> String? {
        if let why = GrooveLibrary.nameProblem(name) { throw CommandError(why) }
        let number: Int
        if let n {
            guard GroupBank.range.contains(n) else { throw CommandError("no group \(n) (groups are 1-16)") }
            number = n
        } else {
            guard let first = GroupBank.range.first(where: { document.groups[$0].groove != nil }) else {
                throw CommandError("no group holds a groove (take one with 'groove extract N')")
            }
            number = first
        }
        guard let groove = document.groups[number].groove else {
            throw CommandError("group \(number) holds no groove (take one with 'groove extract \(number)')")
        }
        let library = grooveLibrary
        try library.save(groove, as: name)
        return "groove \(name) kept (group \(number), \(groove.offsets.count) step\(groove.offsets.count == 1 ? "" : "s")) in \(library.folder)"
    }

    /// `groove load NAME [N]`: a kept groove into group N (the first empty group by default), one undo step.
    func runGrooveLoad(_ name: String, group n: Int?) throws -> String? {
        let number: Int
        if let n {
            guard GroupBank.range.contains(n) else { throw CommandError("no group \(n) (groups are 1-16)") }
            number = n
        } else {
            guard let free = GroupBank.range.first(where: { document.groups[$0].isEmpty }) else {
                throw CommandError("every group is in use: say which to load into (groove load \(name) N)")
            }
            number = free
        }
        let groove = try grooveLibrary.load(name)
        try perform("groove load \(name)") { $0.setGroup(number, Self.grooveGroup(groove)) }
        return "group \(number): groove \(name), \(groove.offsets.count) step\(groove.offsets.count == 1 ? "" : "s") of 1/\(groove.steps) beat"
    }
}

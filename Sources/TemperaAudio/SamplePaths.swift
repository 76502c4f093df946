import Foundation

/// Where a slot's file reference points on disk.
///
/// A reference is absolute, relative to the document's folder, or `kit/NAME.wav` for the shipped kit. The kit
/// folder is `$TEMPERA_SAMPLES`, else `../share/tempera/Samples` beside the executable's folder (an installed
/// copy, whatever its prefix), else the first `Samples/` holding `kick.wav` found walking up from the
/// executable's folder (a build sits two levels below the repository), else `/usr/local/share/tempera/Samples`.
public enum SamplePaths {
    public static let installedKit = "/usr/local/share/tempera/Samples"

    /// The folder of the default kit.
    public static func kitDirectory(environment: [String: String] = ProcessInfo.processInfo.environment,
                                    executable: String? = nil) -> String {
        if let dir = environment["TEMPERA_SAMPLES"], !dir.isEmpty { return dir }
        let exe = executable ?? executablePath()
        var dir = URL(fileURLWithPath: exe).resolvingSymlinksInPath().deletingLastPathComponent()
        let fm = FileManager.default
        let installed = dir.deletingLastPathComponent().appendingPathComponent("share/tempera/Samples")
        if fm.fileExists(atPath: installed.appendingPathComponent("kick.wav").path) { return installed.path }
        for _ in 0..<8 {
            let candidate = dir.appendingPathComponent("Samples")
            if fm.fileExists(atPath: candidate.appendingPathComponent("kick.wav").path) { return candidate.path }
            let parent = dir.deletingLastPathComponent()
            if parent.path == dir.path { break }
            dir = parent
        }
        return installedKit
    }

    /// The path a reference names, given the document's folder (nil for a document never saved).
    public static func resolve(_ reference: String, baseDirectory: String?, kitDirectory: String? = nil) -> String {
        if reference.hasPrefix("/") { return reference }
        if reference.hasPrefix("kit/") {
            return (kitDirectory ?? Self.kitDirectory()) + "/" + reference.dropFirst(4)
        }
        if reference.hasPrefix("~/") {
            // `~` is $HOME, as in a shell (Foundation's home directory is the password file's, which differs
            // under sudo or a test's own HOME).
            let home = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            return home + "/" + reference.dropFirst(2)
        }
        let base = baseDirectory ?? FileManager.default.currentDirectoryPath
        return base + "/" + reference
    }

    private static func executablePath() -> String {
        if let p = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return p }
        return CommandLine.arguments.first ?? "."
    }
}

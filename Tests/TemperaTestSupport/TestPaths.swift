import Foundation

/// Where the package, its built program and its kit are, and fresh temporary folders for tests.
public enum TestPaths {
    /// The package's root folder (this file is at Tests/TemperaTestSupport/TestPaths.swift in it).
    public static var packageRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    /// The debug build of the `tempera` program (`swift build` makes it), or the program `TEMPERA_BINARY` names
    /// (a release build for measurements by hand, another version to compare with).
    public static var binary: String {
        ProcessInfo.processInfo.environment["TEMPERA_BINARY"] ?? packageRoot + "/.build/debug/tempera"
    }

    /// The synthesised default kit.
    public static var kitDirectory: String { packageRoot + "/Samples" }

    /// A fresh temporary folder named after `name`, created empty.
    public static func temporaryDirectory(_ name: String) -> String {
        let dir = NSTemporaryDirectory() + "tempera-\(name)-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
}

import Foundation
import XCTest

/// The built `tempera` program (`TestPaths.binary`) run to its end through `Spawn`; the test is skipped, saying
/// so, when the program is not built.
public enum TemperaProgram {
    /// The exit status, standard output and standard error of `tempera ARGUMENTS`, with `environment` added to
    /// this process's own, and how long it ran.
    @discardableResult
    public static func run(_ arguments: [String], environment: [String: String] = [:]) throws
        -> (status: Int32, stdout: String, stderr: String, seconds: Double) {
        guard FileManager.default.isExecutableFile(atPath: TestPaths.binary) else {
            throw XCTSkip("build tempera first (swift build)")
        }
        let start = Date()
        let r = Spawn.run(TestPaths.binary, arguments, environment: environment)
        return (r.status, r.stdout, r.stderr, Date().timeIntervalSince(start))
    }
}

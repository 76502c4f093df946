import Foundation
import TemperaTestSupport
import XCTest

/// The repository as a newcomer meets it: no Swift file is longer than a screenful can hold in mind, and the
/// benchmark answers `--help`.
final class RepositoryTests: XCTestCase {
    let root = TestPaths.packageRoot

    /// Files still over the limit, each to be split by extension files; the list only shrinks.
    static let longFilesLeft: Set<String> = [
        "Sources/TemperaAudio/Renderer.swift", "Sources/TemperaNet/DocumentHost.swift",
        "Sources/TemperaCore/CommandParser.swift",
    ]

    func testNoSwiftFileIsOver600Lines() throws {
        var long: Set<String> = []
        for folder in ["Sources", "Tests", "Fuzz"] {
            let base = root + "/" + folder
            for case let file as String in FileManager.default.enumerator(atPath: base)! where file.hasSuffix(".swift") {
                let text = try String(contentsOfFile: base + "/" + file, encoding: .utf8)
                if text.split(separator: "\n", omittingEmptySubsequences: false).count - 1 > 600 {
                    long.insert(folder + "/" + file)
                }
            }
        }
        XCTAssertEqual(long.subtracting(Self.longFilesLeft), [], "over 600 lines: split by topic into Type+Topic.swift")
        XCTAssertEqual(Self.longFilesLeft.subtracting(long), [], "now within 600 lines: take it off longFilesLeft")
    }

    func testTheBenchAnswersHelpAndRefusesAnUnknownSection() throws {
        let bench = root + "/.build/debug/tempera-bench"
        guard FileManager.default.isExecutableFile(atPath: bench) else { throw XCTSkip("build first (swift build)") }
        let help = Spawn.run(bench, ["--help"])
        XCTAssertEqual(help.status, 0, help.stderr)
        for section in ["core", "files", "audio", "song", "ramped", "terminal", "jack"] {
            XCTAssertTrue(help.stdout.contains("\n  " + section + " "), "--help lacks \(section)")
        }
        let unknown = Spawn.run(bench, ["core", "nosuch"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertEqual(unknown.stdout, "", "no section ran")
        XCTAssertEqual(unknown.stderr,
                       "tempera-bench: no section 'nosuch' (sections: core, files, audio, song, ramped, terminal, jack; --help)\n")
    }
}

import Foundation
import TemperaTestSupport
import XCTest

/// The repository as a newcomer meets it: `make run` installs only what building and running need and `make test`
/// the rest, CI runs exactly the README's test command, no Swift file is longer than a screenful can hold in
/// mind, and the benchmark answers `--help`.
final class RepositoryTests: XCTestCase {
    let root = TestPaths.packageRoot

    /// The words of a Makefile variable (its continuation lines included).
    func makeVariable(_ name: String) throws -> [String] {
        let text = try String(contentsOfFile: root + "/Makefile", encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        let start = try XCTUnwrap(lines.firstIndex { $0.hasPrefix(name + " =") }, "the Makefile has no \(name)")
        var words: [String] = []
        var i = start
        while i < lines.count {
            var line = lines[i]
            if i == start { line = String(line.dropFirst(name.count + 2)) }
            let continues = line.hasSuffix("\\")
            words += line.replacingOccurrences(of: "\\", with: " ").split(separator: " ").map(String.init)
            if !continues { break }
            i += 1
        }
        return words
    }

    func testMakeRunInstallsOnlyWhatBuildingAndRunningNeed() throws {
        let run = Set(try makeVariable("RUN_PACKAGES"))
        let test = Set(try makeVariable("TEST_PACKAGES"))
        XCTAssertTrue(run.isDisjoint(with: test), "listed twice: \(run.intersection(test))")
        // Servers and tools only the tests start.
        for package in ["openssh-server", "jackd2", "hydrogen", "pulseaudio", "tmux", "sox", "python3-mido"] {
            XCTAssertFalse(run.contains(package), "make run would install \(package)")
            XCTAssertTrue(test.contains(package), "make test would not install \(package)")
        }
        // Every library a C target of the package links or opens.
        for package in ["libncursesw5-dev", "libpulse-dev", "libsndfile1-dev", "libsamplerate0-dev", "libxml2-dev",
                        "libfluidsynth-dev", "libjack-jackd2-dev", "ableton-link-dev", "libaubio5", "pkg-config"] {
            XCTAssertTrue(run.contains(package), "make run would not install \(package)")
        }
        let makefile = try String(contentsOfFile: root + "/Makefile", encoding: .utf8)
        XCTAssertTrue(makefile.contains("\nrun: deps release\n"), "make run installs only RUN_PACKAGES")
        XCTAssertTrue(makefile.contains("\ntest: test-deps\n"), "make test installs TEST_PACKAGES too")
    }

    func testEveryPackageATestAsksForIsInstalledByMakeTest() throws {
        let packages = Set(try makeVariable("RUN_PACKAGES") + makeVariable("TEST_PACKAGES"))
        // The tests name the package to install when something is missing: "install python3-mido (make test does)".
        let pattern = try NSRegularExpression(pattern: #"install ([a-z0-9.+-]+) \(make test does\)|([a-z0-9.+-]+) is missing: install it \(make test does\)"#)
        var named: Set<String> = []
        let tests = root + "/Tests"
        for case let file as String in FileManager.default.enumerator(atPath: tests)! where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: tests + "/" + file, encoding: .utf8)
            for m in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                for g in 1...2 where m.range(at: g).location != NSNotFound {
                    named.insert(String(text[Range(m.range(at: g), in: text)!]))
                }
            }
        }
        XCTAssertGreaterThanOrEqual(named.count, 3, "the tests' messages were not found")
        XCTAssertEqual(named.subtracting(packages), [], "named by a test, installed by nothing")
    }

    func testCIRunsTheReadmesTestCommand() throws {
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        let ci = try String(contentsOfFile: root + "/.ci/run", encoding: .utf8)
        let command = try XCTUnwrap(readme.components(separatedBy: "\n").first { $0.hasPrefix("make test ") || $0 == "make test" })
        let run = ci.components(separatedBy: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.last
        XCTAssertEqual(run, String(command.prefix { $0 != "#" }).trimmingCharacters(in: .whitespaces))
    }

    func testEveryClassThatStartsAJackServerIsInTheJackGroup() throws {
        // JACK allows eight servers on a machine: the suite's groups run side by side, so the classes that start one
        // run one after another in one group.
        let r = Spawn.run(root + "/scripts/test-suite", ["list"])
        XCTAssertEqual(r.status, 0, r.stderr)
        var groups: [String: Set<String>] = [:]
        var current = ""
        for line in r.stdout.split(separator: "\n").map(String.init) {
            if line.hasPrefix("  ") { groups[current, default: []].insert(String(line.dropFirst(2))) }
            else if line.hasSuffix(":") { current = String(line.dropLast()) }
        }
        XCTAssertGreaterThan(groups["fast"]?.count ?? 0, 50)
        let listed = groups.values.reduce(into: Set<String>()) { $0.formUnion($1) }
        var starters: Set<String> = []
        let tests = root + "/Tests"
        let declaration = try NSRegularExpression(pattern: #"class (\w+): (?:XCTestCase|JackTestCase)"#)
        for case let file as String in FileManager.default.enumerator(atPath: tests)!
        where file.hasSuffix(".swift") && !file.hasPrefix("TemperaTestSupport") && !file.hasSuffix("/RepositoryTests.swift") {
            let text = try String(contentsOfFile: tests + "/" + file, encoding: .utf8)
            guard text.contains("JackTestServer") || text.contains(": JackTestCase") else { continue }
            let module = String(file.prefix { $0 != "/" })
            for m in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let name = module + "." + String(text[Range(m.range(at: 1), in: text)!])
                if listed.contains(name) { starters.insert(name) }
            }
        }
        XCTAssertGreaterThanOrEqual(starters.count, 5)
        XCTAssertEqual(starters.subtracting(groups["jack"] ?? []), [], "start a JACK server outside the jack group")
    }

    /// Files still over the limit, each to be split by extension files; the list only shrinks.
    static let longFilesLeft: Set<String> = []

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
        for section in ["core", "files", "audio", "song", "ramped", "terminal", "jack", "samples", "startup", "renders", "markers"] {
            XCTAssertTrue(help.stdout.contains("\n  " + section + " "), "--help lacks \(section)")
        }
        let unknown = Spawn.run(bench, ["core", "nosuch"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertEqual(unknown.stdout, "", "no section ran")
        XCTAssertEqual(unknown.stderr,
                       "tempera-bench: no section 'nosuch' (sections: core, files, audio, song, ramped, terminal, jack, samples, startup, renders, markers; --help)\n")
    }

    /// The repository stands alone: no comment, document or script cites a design document that is not in it
    /// (reasons live in docs/decisions).
    func testNothingCitesADocumentOutsideTheRepository() throws {
        let pattern = try NSRegularExpression(pattern: #"DESIGN(\.md)? ?(§|section )[0-9]|\.\./shared/|§[0-9]|(DESIGN|PLATFORM|STYLE)\.md"#)
        var found: [String] = []
        for folder in ["Sources", "Tests", "docs", "scripts", "man", "Fuzz"] {
            let base = root + "/" + folder
            guard let walk = FileManager.default.enumerator(atPath: base) else { continue }
            for case let file as String in walk {
                let path = base + "/" + file
                guard !file.hasSuffix(".wav"), let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
                for (n, line) in text.components(separatedBy: "\n").enumerated()
                where pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                    found.append("\(folder)/\(file):\(n + 1)")
                }
            }
        }
        for file in ["README.md", "Makefile", "Package.swift"] {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            if pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil { found.append(file) }
        }
        XCTAssertEqual(found, [], "cites a document outside the repository")
    }
}

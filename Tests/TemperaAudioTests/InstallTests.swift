import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// `make install`: an installed copy finds its kit relative to itself and plays, from anywhere, with no
/// environment; the man page renders; `make uninstall` takes it all away.
final class InstallTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("install") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Runs a shell line with an empty environment (only PATH), from `folder`.
    func bare(_ line: String, in folder: String, extra: String = "") -> (status: Int32, stdout: String, stderr: String) {
        Spawn.run("/usr/bin/env", ["-i", "PATH=/usr/bin:/bin"] + (extra.isEmpty ? [] : [extra])
                  + ["/bin/sh", "-c", "cd '\(folder)' && \(line)"])
    }

    func testAnInstalledCopyRendersTheDemoFromAnywhereAndTheManPageRenders() throws {
        let prefix = dir + "/prefix", elsewhere = dir + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        // The copying step of `make install`, from the debug build the test suite already made (building again
        // here would wait on the build lock the running tests hold).
        let install = Spawn.run("/usr/bin/make", ["-s", "-C", TestPaths.packageRoot, "install-files", "PREFIX=\(prefix)",
                                                  "CONFIG=debug"])
        XCTAssertEqual(install.status, 0, install.stderr)
        let fm = FileManager.default
        for file in ["bin/tempera", "share/tempera/Samples/kick.wav", "share/tempera/Themes/dark.theme",
                     "share/tempera/Keymaps/default.keys", "share/man/man1/tempera.1",
                     "share/bash-completion/completions/tempera", "share/zsh/site-functions/_tempera",
                     "share/fish/vendor_completions.d/tempera.fish"] {
            XCTAssertTrue(fm.fileExists(atPath: prefix + "/" + file), file)
        }
        XCTAssertTrue(try String(contentsOfFile: prefix + "/share/bash-completion/completions/tempera", encoding: .utf8)
            .contains("render"))

        try DocumentFile.save(Document.demo(), to: dir + "/demo.json")
        let render = bare("'\(prefix)/bin/tempera' render '\(dir)/demo.json' -o out.wav --tail 0", in: elsewhere)
        XCTAssertEqual(render.status, 0, render.stderr)
        XCTAssertEqual(render.stderr, "", "every sample found")
        let audio = try AudioFile.read(elsewhere + "/out.wav")
        let peak = audio.samples.map(abs).max() ?? 0
        XCTAssertGreaterThan(peak, 0.1, "not silent")

        let man = bare("MANPAGER=cat man -l '\(prefix)/share/man/man1/tempera.1'", in: elsewhere)
        XCTAssertEqual(man.status, 0, man.stderr)
        XCTAssertTrue(man.stdout.contains("tempera - a terminal editor for irregular rhythms"), man.stdout)

        // A missing kit: one line, not one per slot.
        let missing = bare("'\(prefix)/bin/tempera' render '\(dir)/demo.json' -o out2.wav --tail 0", in: elsewhere,
                           extra: "TEMPERA_SAMPLES=\(dir)/nowhere")
        XCTAssertEqual(missing.status, 0)
        XCTAssertEqual(missing.stderr, "tempera: the default kit is missing (no folder \(dir)/nowhere; set TEMPERA_SAMPLES "
            + "to its Samples folder): 16 slots play silence\n")

        let uninstall = Spawn.run("/usr/bin/make", ["-s", "-C", TestPaths.packageRoot, "uninstall", "PREFIX=\(prefix)"])
        XCTAssertEqual(uninstall.status, 0, uninstall.stderr)
        XCTAssertFalse(fm.fileExists(atPath: prefix + "/bin/tempera"))
        XCTAssertFalse(fm.fileExists(atPath: prefix + "/share/tempera"))
        XCTAssertFalse(fm.fileExists(atPath: prefix + "/share/man/man1/tempera.1"))
    }
}

import Foundation
import XCTest
@testable import TemperaCore

/// The commands that reach past the document (`play`, `locate`, `open`, `import`, `q`...) are entries of the
/// table like the others; without a host (a script) they are refused in one line, and `tempera script` skips
/// them, saying so, and runs the rest.
extension CommandLineTests {
    func testACommandThatNeedsAHostIsRefusedInOneLineWithoutOne() throws {
        let s = Session(document: .newDocument())
        for line in ["play", "stop", "locate 1", "open x.tempera", "import loop.wav", "export a.mid", "render a.wav", "q",
                     "theme dark"] {
            let name = String(line.prefix { $0 != " " })
            XCTAssertThrowsError(try s.run(line: line), line) { error in
                XCTAssertEqual(error as? CommandError, CommandError("\(name) needs the editor or a player (tempera play, serve)"))
            }
        }
        XCTAssertFalse(s.isModified)
        XCTAssertEqual(s.history.undoSteps.count, 0)
        XCTAssertEqual(try CommandParser.parse("w song.tempera"), .save("song.tempera"), "w is another name of save")
        XCTAssertEqual(try CommandParser.parse("import \"my loop.wav\" split slice"),
                       .importFile("my loop.wav", split: true, slice: true))
        XCTAssertEqual(try CommandParser.parse("open my song.tempera"), .open("my song.tempera"),
                       "an unquoted file name with a space reads as the : line always took it")
        XCTAssertThrowsError(try CommandParser.parse("locate -1"))
        // The rest of what a front end drives runs on the document itself, in a script too.
        for line in ["record on", "record off", "save", "undo", "redo"] {
            XCTAssertNoThrow(try CommandParser.parse(line), line)
        }
    }

    func testAScriptSkipsWhatNeedsAPlayerWithOneLineAndRunsTheRest() throws {
        let doc = path("host.tempera")
        let script = try write("host.txt", "tempo 2\nplay\nlocate 1/2\ntempo 3\n")
        let result = try tempera(["script", doc, script])
        XCTAssertEqual(result.status, 0, result.err)
        XCTAssertEqual(result.err, "tempera: \(script):2: skipped 'play': it needs the editor or a player\n"
            + "tempera: \(script):3: skipped 'locate 0.5': it needs the editor or a player\n")
        XCTAssertEqual(try DocumentFile.load(doc).transport.tempo, 3)
    }
}

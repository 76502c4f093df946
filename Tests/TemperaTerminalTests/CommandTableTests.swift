import Foundation
import TemperaTestSupport
import XCTest
@testable import TemperaCore
@testable import TemperaTerminal

/// The command table is the one declaration of every command: each entry reads back its own printed form, has
/// help, and is in the generated reference; the `:` line, completion, suggestions and the help screen draw on
/// it; the generated files are current (`make reference` writes them again).
final class CommandTableTests: XCTestCase {
    func testEveryCommandReadsBackItsOwnPrintedForm() throws {
        XCTAssertGreaterThanOrEqual(CommandTable.entries.count, 70)
        for entry in CommandTable.entries {
            let spec = entry.spec
            XCTAssertFalse(entry.examples.isEmpty, "\(spec.usage): no examples")
            for example in entry.examples {
                let command = Command(example)
                let text = command.text
                XCTAssertTrue(text.hasPrefix(spec.head), "'\(text)' does not start with its name '\(spec.head)'")
                let parsed = try XCTUnwrap(try CommandParser.parse(text), text)
                XCTAssertEqual(parsed, command, "'\(text)' reads back as '\(parsed.text)'")
                XCTAssertTrue(parsed.is(entry), "'\(text)' reads back as another entry")
                XCTAssertEqual(parsed.text, text)
            }
        }
    }

    func testEveryCommandHasUsageHelpAndAPlaceInTheReference() {
        let markdown = CommandReference.markdown(), man = CommandReference.man()
        let help = Help.lines(.standard).map(\.text).joined(separator: "\n")
        var usages: Set<String> = []
        for spec in CommandTable.entries.map({ $0.spec }) {
            XCTAssertFalse(spec.help.trimmingCharacters(in: .whitespaces).isEmpty, "\(spec.usage) has no help")
            XCTAssertFalse(spec.help.contains("\n"), "\(spec.usage): help is one line")
            XCTAssertTrue(spec.usage.hasPrefix(spec.head), "\(spec.usage) does not start with \(spec.head)")
            XCTAssertTrue(usages.insert(spec.usage).inserted, "\(spec.usage) is declared twice")
            XCTAssertTrue(markdown.contains("- `\(spec.usage)`: \(spec.help)"), "docs/commands.md misses \(spec.usage)")
            XCTAssertTrue(man.contains(spec.usage.replacingOccurrences(of: "-", with: "\\-")), "the man page misses \(spec.usage)")
            XCTAssertTrue(help.contains(spec.usage), "the ? screen misses \(spec.usage)")
            XCTAssertTrue(help.contains(spec.help), "the ? screen misses the help of \(spec.usage)")
        }
    }

    func testTheGeneratedReferenceIsCurrent() throws {
        let root = TestPaths.packageRoot
        let docs = root + "/docs/commands.md", manPage = root + "/man/tempera.1"
        let page = try String(contentsOfFile: manPage, encoding: .utf8)
        let updated = try XCTUnwrap(CommandReference.updatingManPage(page), "the man page lost its commands:begin/end marks")
        if ProcessInfo.processInfo.environment["TEMPERA_WRITE_REFERENCE"] == "1" {
            try FileManager.default.createDirectory(atPath: root + "/docs", withIntermediateDirectories: true)
            try CommandReference.markdown().write(toFile: docs, atomically: true, encoding: .utf8)
            try updated.write(toFile: manPage, atomically: true, encoding: .utf8)
        }
        XCTAssertEqual(try String(contentsOfFile: docs, encoding: .utf8), CommandReference.markdown(),
                       "docs/commands.md is stale: run make reference")
        XCTAssertEqual(page, updated, "man/tempera.1's command section is stale: run make reference")
    }

    func testScriptHelpListsEveryCommandWithItsHelp() throws {
        let text = CommandTable.helpText(indent: 2)
        for entry in CommandTable.entries {
            XCTAssertTrue(text.contains("  " + entry.spec.usage + "\n      " + entry.spec.help), entry.spec.usage)
        }
        XCTAssertEqual(CommandParser.forms, CommandTable.entries.map { $0.spec.usage })
    }

    func testNamesAndSuggestionsComeFromTheTable() {
        XCTAssertEqual(Set(CommandParser.names), Set(CommandTable.entries.map { $0.spec.head }))
        for name in CommandParser.names where name.count > 2 { XCTAssertTrue(CommandTable.completions.contains(name), name) }
        for entry in CommandTable.entries where !entry.spec.aliases.isEmpty {
            for alias in entry.spec.aliases {
                XCTAssertEqual(CommandTable.entry(named: alias)?.spec.usage, entry.spec.usage)
                let example = Command(entry.examples[0]).text
                let line = alias + example.dropFirst(entry.spec.head.count)
                XCTAssertEqual(try CommandParser.parse(line), Command(entry.examples[0]), line)
            }
        }
        XCTAssertEqual(try? CommandParser.parse("quantise 4"), nil)
        XCTAssertThrowsError(try CommandParser.parse("quantise 4")) { error in
            XCTAssertEqual(error as? CommandError, CommandError("unknown command 'quantise' (did you mean 'quantize'?)", column: 1))
        }
    }

    func testAFamilyRoutesByItsWordsAndNamesWhatItTakes() {
        func error(_ line: String) -> String? {
            do {
                _ = try CommandParser.parse(line)
                return nil
            } catch { return "\(error)" }
        }
        XCTAssertEqual(try CommandParser.parse("track 2 mute on"), .trackMute(track: 2, on: true))
        XCTAssertEqual(try CommandParser.parse("track mute"), .trackMute(track: nil, on: nil))
        XCTAssertEqual(try CommandParser.parse("track 3"), .trackSelect(3))
        XCTAssertEqual(try CommandParser.parse("section 2 tempo 1/2"), .section(2, .tempo(0.5)))
        XCTAssertEqual(try CommandParser.parse("scale handle=2 to=1"), .scaleHandle(k: 2, to: 1))
        XCTAssertEqual(try CommandParser.parse("temper s=1 span=2 top=3 bottom=2"),
                       .temperDefine(span: 2, top: 3, topBeats: .all, bottom: 2, bottomBeats: .all, map: nil, slider: 1))
        XCTAssertEqual(error("kit lst"), "column 5: expected list or load, not 'lst' (did you mean 'list'?)")
        XCTAssertEqual(error("kit"), "column 5: missing list or load (kit list | kit load NAME|PATH [from=N])")
        XCTAssertEqual(error("mode snap on"), "column 6: expected 'clip', not 'snap' (mode clip on|off)")
        XCTAssertEqual(error("section 2"),
                       "column 11: missing what to change: repeats, tempo, bpm, meter, region, name, move, delete, duplicate, tracks, play ("
                       + CommandTable.entries.filter { $0.spec.head == "section" }.map { $0.spec.usage }.joined(separator: " | ") + ")")
    }

    func testTheColonLineRunsEditorCommandsFromTheTable() throws {
        let d = Dispatcher(session: Session(document: .newDocument()))
        try d.runLine("help")
        XCTAssertEqual(d.view.helpOffset, 0)
        try d.runLine("theme")
        XCTAssertEqual(d.view.messageIsError, true)
        XCTAssertTrue(d.view.message?.hasPrefix("theme needs a name") == true, d.view.message ?? "")
        try d.runLine("q!")
        XCTAssertTrue(d.quitRequested)
    }

    func testACommandThatLeavesTheShareIsRefusedOnASharedDocument() throws {
        let s = Session(document: .newDocument())
        var sent: [String] = []
        s.remote = { sent.append($0.text); return nil }
        let d = Dispatcher(session: s)
        try d.runLine("new")
        XCTAssertEqual(d.view.message, "new is not available on a shared document")
        XCTAssertTrue(d.view.messageIsError)
        try d.runLine("open elsewhere.tempera")
        XCTAssertEqual(d.view.message, "open is not available on a shared document")
        XCTAssertTrue(d.session === s)
        try d.runLine("tempo 1.5")
        XCTAssertEqual(sent, ["tempo 1.5"])
    }

    func testAKeyThatOnlyRunsACommandNamesTheCommandLine() throws {
        let map = KeyMap.standard
        XCTAssertEqual(map.action(for: Key(name: "u")!, in: .global), Action(.run, "undo"))
        XCTAssertEqual(map.action(for: Key(name: "*")!, in: .global), Action(.run, "select all"))
        XCTAssertEqual(map.hints["undo"], "u", "the status line still names the undo key")
        // A key file of an earlier version, naming the old actions, still binds them to the same commands.
        let old = try KeyMap().merging("global F5 undo\nglobal F6 select.tracks\nglobal F7 track.mute\nglobal F8 quantize 4\n",
                                       file: "keys")
        XCTAssertEqual(old.action(for: Key(name: "F5")!, in: .global), Action(.run, "undo"))
        XCTAssertEqual(old.action(for: Key(name: "F6")!, in: .global), Action(.run, "select all tracks=all"))
        XCTAssertEqual(old.action(for: Key(name: "F7")!, in: .global), Action(.run, "track mute"))
        XCTAssertEqual(old.action(for: Key(name: "F8")!, in: .global), Action(.run, "quantize 4"))
        XCTAssertThrowsError(try KeyMap().merging("global F9 quantise 4\n", file: "keys"))
        // Every key that runs a command runs one that reads, and the ? screen says what it does.
        let help = Help.lines(map).map(\.text).joined(separator: "\n")
        for b in map.bindings where b.action.verb == .run {
            let command = try XCTUnwrap(try CommandParser.parse(b.action.argument), b.action.argument)
            XCTAssertTrue(help.contains(command.spec.help), "? does not say what \(b.action) does")
        }
        // Pressed, the key runs the command as the : line would.
        let d = Dispatcher(session: Session(document: .demo()))
        d.handle(Key(name: "*")!)
        XCTAssertGreaterThan(d.session.selectionCount, 0)
        d.handle(Key(name: "C-t")!)
        XCTAssertEqual(d.session.undoName, "track add")
        d.handle(Key(name: "u")!)
        XCTAssertEqual(d.view.message, "undid track add")
    }
}

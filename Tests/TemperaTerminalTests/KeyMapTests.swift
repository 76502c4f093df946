import Foundation
import TemperaTestSupport
import XCTest
import TemperaShipped
@testable import TemperaTerminal

final class KeyMapTests: XCTestCase {
    func testKeyNamesAreCanonical() {
        XCTAssertEqual(Key(name: "C-Z")?.name, "C-z")
        XCTAssertEqual(Key(name: "S-a")?.name, "A")
        XCTAssertEqual(Key(name: "s-Left")?.name, "S-left")
        XCTAssertEqual(Key(name: "M-C-x")?.name, "C-M-x")
        XCTAssertEqual(Key(name: "Return")?.name, "enter")
        XCTAssertEqual(Key(name: "f1")?.name, "F1")
        XCTAssertEqual(Key(name: "C--")?.name, "C--")
        XCTAssertEqual(Key(name: "-")?.name, "-")
        XCTAssertEqual(Key(name: "?")?.name, "?")
        XCTAssertEqual(Key(" ").name, "space")
        XCTAssertNil(Key(name: "F13"))
        XCTAssertNil(Key(name: "banana"))
        XCTAssertNil(Key(name: "X-a"))
    }

    func testShippedDefaultMapParsesAndMatchesTheCompiledInCopy() throws {
        let file = try String(contentsOfFile: repositoryRoot + "/Sources/TemperaShipped/Keymaps/default.keys", encoding: .utf8)
        XCTAssertEqual(ShippedFiles.defaultKeys, file, "the compiled-in map is Sources/TemperaShipped/Keymaps/default.keys")
        XCTAssertNoThrow(try KeyMap().merging(file, file: "default.keys"))
    }

    func testDefaultMapGivesSoundInOneKeyAndADrawnClipInOneMore() {
        let map = KeyMap.standard
        XCTAssertEqual(map.action(for: .space, in: [.timeline, .global]), Action("play"))
        XCTAssertEqual(map.action(for: Key("a"), in: [.timeline, .global]), Action("draw.clip"))
        XCTAssertEqual(map.action(for: Key("3"), in: [.timeline, .global]), Action("clip.3"))
    }

    func testEveryToolTabAndModeHasAKeyHint() {
        let hints = KeyMap.standard.hints
        for tool in Tool.allCases { XCTAssertNotNil(hints[tool.action], tool.action) }
        for tab in Tab.allCases { XCTAssertNotNil(hints[tab.action], tab.action) }
        XCTAssertEqual(hints["tool.shift"], "m")
        XCTAssertEqual(hints["play"], "Space")
        XCTAssertEqual(hints["mode.clip"], "c")
        XCTAssertEqual(hints["tool.delete"], "D")
        XCTAssertEqual(hints["cursor.fine.left"], "S-Left")
    }

    func testMoreSpecificContextWinsOverGlobal() {
        let map = KeyMap.standard
        XCTAssertEqual(map.action(for: .left, in: [.designer, .tab, .global]), Action("designer.beat.left"))
        XCTAssertEqual(map.action(for: .left, in: [.tab, .global]), Action("slot.left"))
        XCTAssertEqual(map.action(for: .left, in: [.timeline, .global]), Action("cursor.left"))
    }

    func testUserLinesOverrideAndUnbind() throws {
        let map = try KeyMap.standard.merging("""
            # mine
            global  space   rewind
            global  q       none
            timeline  D     run delete
            global  F5      command fill "
            """, file: "keys")
        XCTAssertEqual(map.action(for: .space, in: [.global]), Action("rewind"))
        XCTAssertNil(map.action(for: Key("q"), in: [.global]))
        XCTAssertEqual(map.action(for: Key("D"), in: [.timeline, .global]), Action("run", "delete"))
        XCTAssertEqual(map.action(for: Key(name: "F5")!, in: [.global]), Action("command", "fill \""))
    }

    func testBadLinesNameFileAndLine() {
        let cases: [(String, String)] = [
            ("global space plya", "keys:1: unknown action 'plya'"),
            ("\nglobal spacebar play", "keys:2: unknown key 'spacebar'"),
            ("everywhere space play", "keys:1: unknown context 'everywhere' (global, timeline, tab, clips, groups, designer, song, pads, prompt)"),
            ("global space", "keys:1: expected 'context key action [argument]'"),
            ("global D run", "keys:1: 'run' needs a command to run"),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try KeyMap.standard.merging(text, file: "keys")) { e in
                XCTAssertEqual(String(describing: e), message)
            }
        }
    }

    func testUserKeysFileIsReadAfterTheDefaults() throws {
        let dir = TestPaths.temporaryDirectory("keys")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "global  F12  help\n".write(toFile: dir + "/keys", atomically: true, encoding: .utf8)
        let map = try KeyMap.load(paths: ConfigPaths(config: dir, state: dir))
        XCTAssertEqual(map.action(for: Key(name: "F12")!, in: [.global]), Action("help"))
        XCTAssertEqual(map.action(for: .space, in: [.global]), Action("play"))
    }

    func testHelpAt80ColumnsWrapsADescriptionRatherThanCuttingIt() {
        var canvas = Canvas(width: 80, height: 24)
        Help.draw(KeyMap.standard, offset: 0, ascii: false, into: &canvas)
        let rows = (0..<24).map { String(canvas.line($0)) }
        let y = rows.firstIndex { $0.contains("loop.edit") }!
        XCTAssertEqual(rows[y], " │ L                loop.edit                  type the loop region's exact   │ ")
        XCTAssertEqual(rows[y + 1], " │                                             start and end                  │ ")
    }

    func testHelpListsEveryBindingInForce() throws {
        let map = try KeyMap.standard.merging("global F9 loop\n", file: "keys")
        let text = Help.lines(map).map(\.text).joined(separator: "\n")
        for b in map.bindings {
            XCTAssertTrue(text.contains(KeyMap.label(b.key)), "help misses \(b.key)")
            XCTAssertTrue(text.contains(b.action.name), "help misses \(b.action)")
        }
        XCTAssertTrue(text.contains("l F9"))
    }

    func testEveryActionInTheCatalogIsDescribedOnce() {
        let names = Action.catalog.map(\.name)
        XCTAssertEqual(Set(names).count, names.count)
    }

    func testDecoderNamesModifiedKeysFromTerminfo() {
        XCTAssertEqual(InputDecoder.extended("kLFT5"), Key(name: "C-left"))
        XCTAssertEqual(InputDecoder.extended("kRIT3"), Key(name: "M-right"))
        XCTAssertEqual(InputDecoder.extended("kUP6"), Key(name: "C-S-up"))
        XCTAssertEqual(InputDecoder.extended("kDC2"), Key(name: "S-delete"))
        XCTAssertNil(InputDecoder.extended("kLFT9"))
    }

    func testDecoderReadsControlCharacters() {
        let d = InputDecoder()
        XCTAssertEqual(d.character(26), Key(name: "C-z"))
        XCTAssertEqual(d.character(13), .enter)
        XCTAssertEqual(d.character(127), .backspace)
        XCTAssertEqual(d.character(9), .tab)
        XCTAssertEqual(d.character(0x3f), Key("?"))
        XCTAssertEqual(d.character(0xe9), Key("é"))
    }
}

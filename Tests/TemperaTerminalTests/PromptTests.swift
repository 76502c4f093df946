import CNcursesw
import XCTest
@testable import TemperaTerminal

final class PromptTests: XCTestCase {
    func testEditingKeepsTheInsertionPoint() {
        var p = Prompt("tempo 2")
        p.left()
        p.insert("1")
        XCTAssertEqual(p.line, "tempo 12")
        p.home()
        p.delete()
        XCTAssertEqual(p.line, "empo 12")
        p.end()
        p.backspace()
        XCTAssertEqual(p.line, "empo 1")
        XCTAssertEqual(p.cursor, 6)
    }

    func testWordDeleteAndKillWorkLikeAShell() {
        var p = Prompt("fill \"1 - 2\"  ")
        p.deleteWordBackward()
        XCTAssertEqual(p.line, "fill \"1 - ")
        p.move(to: 4)
        p.killToEnd()
        XCTAssertEqual(p.line, "fill")
        p.clear()
        XCTAssertEqual(p.line, "")
    }

    func testHistoryWalksBackAndReturnsToTheDraft() {
        let history = CommandHistory(["tempo 2", "loop off"])
        var p = Prompt("")
        p.insert("sc")
        p.historyPrevious(in: history)
        XCTAssertEqual(p.line, "loop off")
        p.historyPrevious(in: history)
        p.historyPrevious(in: history)
        XCTAssertEqual(p.line, "tempo 2")
        p.historyNext(in: history)
        XCTAssertEqual(p.line, "loop off")
        p.historyNext(in: history)
        XCTAssertEqual(p.line, "sc")
    }

    func testRememberSkipsBlanksAndRepeats() {
        var history = CommandHistory()
        history.remember("tempo 2")
        history.remember("tempo 2")
        history.remember("   ")
        XCTAssertEqual(history.lines, ["tempo 2"])
    }

    func testTheHistoryIsKeptBetweenRunsUpToItsLimit() throws {
        let dir = NSTemporaryDirectory() + "tempera-history-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let paths = ConfigPaths(config: dir + "/config", state: dir + "/state")
        XCTAssertEqual(CommandHistory.load(paths: paths).lines, [], "no file yet: an empty history")
        var history = CommandHistory()
        for n in 1...(CommandHistory.limit + 5) { history.remember("tempo \(n)") }
        XCTAssertEqual(history.lines.count, 200)
        XCTAssertEqual(history.lines.first, "tempo 6")
        history.save(paths: paths)
        XCTAssertEqual(try String(contentsOfFile: dir + "/state/history", encoding: .utf8).split(separator: "\n").last, "tempo 205")
        XCTAssertEqual(CommandHistory.load(paths: paths), history)
    }

    func testCompletionExtendsToTheCommonPrefix() {
        var p = Prompt("s")
        let names = ["select", "shift", "scale", "subdivide", "snap", "slot", "save"]
        XCTAssertEqual(p.complete(from: names), ["save", "scale", "select", "shift", "slot", "snap", "subdivide"])
        XCTAssertEqual(p.line, "s")
        var q = Prompt("sh")
        q.complete(from: names)
        XCTAssertEqual(q.line, "shift ")
        var r = Prompt("te")
        r.complete(from: ["temper", "tempo"])
        XCTAssertEqual(r.line, "temp")
    }

    func testMouseReportsBecomePressDragReleaseAndWheel() {
        var d = InputDecoder()
        XCTAssertEqual(d.mouse(state: CNcursesw_BUTTON1_PRESSED(), x: 10, y: 5), MouseEvent(.press, x: 10, y: 5))
        XCTAssertEqual(d.mouse(state: CNcursesw_REPORT_MOUSE_POSITION(), x: 12, y: 5), MouseEvent(.drag, x: 12, y: 5))
        XCTAssertEqual(d.mouse(state: CNcursesw_BUTTON1_RELEASED(), x: 12, y: 5), MouseEvent(.release, x: 12, y: 5))
        XCTAssertNil(d.mouse(state: CNcursesw_REPORT_MOUSE_POSITION(), x: 13, y: 5), "motion without a button is ignored")
        XCTAssertEqual(d.mouse(state: CNcursesw_BUTTON4_PRESSED() | CNcursesw_BUTTON_SHIFT(), x: 1, y: 2),
                       MouseEvent(.wheelUp, x: 1, y: 2, button: 4, shift: true))
        XCTAssertEqual(d.mouse(state: CNcursesw_BUTTON3_PRESSED() | CNcursesw_BUTTON_CTRL(), x: 1, y: 2),
                       MouseEvent(.press, x: 1, y: 2, button: 3, ctrl: true))
    }

    func testFunctionKeysWithModifiersFollowXterm() {
        let d = InputDecoder()
        XCTAssertEqual(d.key(code: CNcursesw_KEY_F(1), name: nil), Key(name: "F1"))
        XCTAssertEqual(d.key(code: CNcursesw_KEY_F(13), name: nil), Key(name: "S-F1"))
        XCTAssertEqual(d.key(code: CNcursesw_KEY_F(26), name: nil), Key(name: "C-F2"))
        XCTAssertEqual(d.key(code: KEY_BTAB, name: nil), Key(name: "S-tab"))
        XCTAssertEqual(d.key(code: KEY_SLEFT, name: nil), Key(name: "S-left"))
    }
}

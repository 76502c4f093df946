import XCTest
import TemperaCore
@testable import TemperaTerminal

/// The editor's fixes and its musical time in a real terminal (tmux), each checked in the saved file.
extension TmuxTests {
    func testShiftDownOnASelectionLowersTheSavedAmplitude() throws {
        let path = home + "/amp.tempera"
        launch([path])
        waitFor("new file")
        // 1 a: clip 1 on the marker at 0; s Enter: pick it; three Shift+Down; save.
        keys("1", "a", "s", "Enter", "S-Down", "S-Down", "S-Down")
        waitFor("amp 0.6 on 1 marker")
        keys("C-s")
        waitFor("saved " + path)
        let first = try XCTUnwrap(DocumentFile.load(path).tracks[0].markers.first)
        XCTAssertEqual(first.content, .clip(1))
        XCTAssertEqual(first.amp, 0.6, "0.9 lowered three tenths")
    }

    func testTheMouseWorksUnderTmuxTerminalNamesInBothEncodings() throws {
        let path = home + "/mouse.tempera"
        launch([path], term: "tmux-256color")
        waitFor("new file")
        // SGR, which curses does not parse for tmux-256color: a click on the Groups tab's title.
        let screen = waitFor("timeline")
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let row = try XCTUnwrap(lines.firstIndex { $0.contains(" groups ") })
        // Columns counted in characters, not bytes, for the box drawing before the title.
        let chars = Array(lines[row])
        let x = try XCTUnwrap((0..<(chars.count - 6)).first { String(chars[$0..<($0 + 6)]) == "groups" })
        click(x: x + 1, y: row)
        waitFor("the groups tab", { $0.contains("[groups]") })
        XCTAssertFalse(self.screen().contains("[<"), "an SGR report became keystrokes")
        // X10: ESC [ M and three bytes offset by 32, on the Clips tab's title.
        let clipsX = try XCTUnwrap((0..<(chars.count - 5)).first { String(chars[$0..<($0 + 5)]) == "clips" })
        type("\u{1b}[M" + String(UnicodeScalar(32)!) + String(UnicodeScalar(33 + clipsX + 1)!) + String(UnicodeScalar(33 + row)!))
        type("\u{1b}[M" + String(UnicodeScalar(35)!) + String(UnicodeScalar(33 + clipsX + 1)!) + String(UnicodeScalar(33 + row)!))
        waitFor("the clips tab", { $0.contains("[clips]") })
    }
}

extension TmuxTests {
    func testTheDesignerHasTheKeysVisiblyAndRenameAndSaveAsBehave() throws {
        let path = home + "/focus.tempera"
        launch([path])
        waitFor("new file")
        keys("F4")
        waitFor("designer focused", { $0.contains("auditioning track 1") && $0.contains("Esc: back to the timeline") })
        // R renames even here; the letters typed go into the name, not to the designer.
        keys("R")
        waitFor("rename track 1:")
        keys("C-u")
        type("nag")
        keys("Enter")
        waitFor("renamed", { $0.contains("nag") })
        keys("Escape")
        waitFor("keys on the timeline")
        XCTAssertFalse(screen().contains("auditioning"))
        // Save as offers the path; Ctrl-u removes only the path.
        keys("S")
        waitFor(":saveas " + path)
        keys("C-u")
        type(home + "/other.tempera")
        keys("Enter")
        waitFor("saved " + home + "/other.tempera")
        XCTAssertEqual(try DocumentFile.load(home + "/other.tempera").tracks[0].name, "nag")
    }
}

extension TmuxTests {
    /// A plain 4/4 groove from a new document (a bar of sixteenths, grid on): kick on the beats, snare on 2 and
    /// 4, eighth hats, saved, in at most 20 keys, every clip at its exact time.
    func testAFourFourGrooveTakesAtMostTwentyKeysFromANewDocument() throws {
        let path = home + "/groove.tempera"
        launch([path])
        waitFor("new file")
        let strokes = ["F", "1", "x", "4", "Enter",
                       "Down", "F", ".", "2", ".", "2", "Enter",
                       "Down", "F", "3", "x", "8", "Enter",
                       "C-s"]
        XCTAssertLessThanOrEqual(strokes.count, 20)
        for key in strokes { keys(key) }
        waitFor("saved " + path)
        let doc = try DocumentFile.load(path)
        XCTAssertEqual(doc.transport.grid, 4, "a new document has the grid on")
        func hits(_ track: Int) -> [Double: Content] {
            var out: [Double: Content] = [:]
            for m in doc.tracks[track].markers { if let c = m.content { out[m.time] = c } }
            return out
        }
        XCTAssertEqual(hits(0), [0: .clip(1), 0.5: .clip(1), 1: .clip(1), 1.5: .clip(1)])
        XCTAssertEqual(hits(1), [0.5: .clip(2), 1.5: .clip(2)])
        XCTAssertEqual(hits(2), Dictionary(uniqueKeysWithValues: (0..<8).map { (Double($0) * 0.25, Content.clip(3)) }))
        XCTAssertEqual(hits(3), [:])
    }
}

import XCTest
import Foundation
@testable import TemperaTerminal
import TemperaCore
final class DebugTests: XCTestCase {
    func testDebug() {
        var view = ViewState()
        view.tab = .groups
        view.chosenGroup = 2
        view.keyHints = ToolPanelTests.keys
        var out = render(Session(document: groupsDocument()), view).text + "\n"
        view.patternInput = String(repeating: "1 ", count: 30) + "end"
        out += render(Session(document: .demo()), view, width: 120, height: 40).text + "\n"
        view.tab = .clips
        out += render(Session(document: .demo()), view).text + "\n"
        try! out.write(toFile: "/tmp/x/debug.txt", atomically: true, encoding: .utf8)
    }
}

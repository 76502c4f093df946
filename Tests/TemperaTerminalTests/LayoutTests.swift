import XCTest
@testable import TemperaTerminal
import TemperaCore

/// Renders the editor for tests.
func render(_ session: Session, _ view: ViewState = ViewState(), width: Int = 80, height: Int = 24) -> Canvas {
    var canvas = Canvas(width: width, height: height)
    EditorView.draw(session: session, view: view, into: &canvas)
    return canvas
}

final class LayoutTests: XCTestCase {
    func testPrintDemo() {
        let s = Session(document: .demo())
        var v = ViewState()
        v.transport.audio = "no audio server"
        v.keyHints = ["tool.drawSingle": "d", "tool.shift": "s", "mode.clip": "c", "mode.snap": "n", "tool.scale": "S"]
        v.viewport = Viewport(start: 0, secondsPerColumn: 2.0 / 66)
        s.selection[2] = [s.document.tracks[2].markers[3].id]
        s.cursor = 0.75
        v.transport.position = 0.5
        print(render(s, v).text)
        print(render(s, v, width: 120, height: 40).text)
        v.ascii = true
        print(render(s, v).text)
    }
}

import XCTest
@testable import TemperaTerminal
import TemperaAudio
import TemperaCore
import TemperaStudio

/// Renders the whole editor as the terminal would show it.
func render(_ session: Session, _ view: ViewState = ViewState(), width: Int = 80, height: Int = 24) -> Canvas {
    var canvas = Canvas(width: width, height: height)
    EditorView.draw(session: session, view: view, into: &canvas)
    return canvas
}

/// A document of tracks given as (time, amp, content) triples.
func document(_ tracks: [[(Double, Double, Content?)]], names: [String]? = nil) -> Document {
    let list = tracks.enumerated().map { i, items in
        Track(name: names?[i] ?? "t\(i + 1)",
              markers: MarkerList(items.enumerated().map { j, m in
                  Marker(id: MarkerID(j), time: m.0, amp: m.1, content: m.2)
              }))
    }
    var doc = Document(tracks: list)
    doc.pattern = ""
    return doc
}

/// Five tracks, so each gets two rows at 80x24: one row of bars, one of labels.
func fiveTracks(_ first: [(Double, Double, Content?)], others: [(Double, Double, Content?)] = []) -> Document {
    document([first, others, others, others, others])
}

/// The x of the first occurrence of `needle` in row `y`.
func column(of needle: String, inRow y: Int, _ canvas: Canvas) -> Int? {
    let row = Array(canvas.line(y)), n = Array(needle)
    guard !n.isEmpty, n.count <= row.count else { return nil }
    for x in 0...(row.count - n.count) where Array(row[x..<(x + n.count)]) == n { return x }
    return nil
}

/// A view at 10 ms a column from 0, so a marker at t lies at screen column 12 + t * 100 at 80 columns.
func tenMillisecondView() -> ViewState {
    ViewState(viewport: Viewport(start: 0, secondsPerColumn: 0.01))
}

/// A dispatcher on a 120x40 screen with the view fitted to the loop, as the editor starts; the cursor moves
/// freely unless `grid` is given.
func make(_ document: Document = .newDocument(), grid: Int? = nil) -> Dispatcher {
    var document = document
    document.transport.grid = grid
    let d = Dispatcher(session: Session(document: document), offline: StudioFiles(), width: 120, height: 40, clock: { 0 })
    d.fitView()
    return d
}

/// Presses keys named as in the key map (`C-s Tab Enter`), one after another.
func keys(_ d: Dispatcher, _ names: String) {
    for k in Key.sequence(names) { d.handle(k) }
}

/// Types text one character at a time.
func type(_ d: Dispatcher, _ text: String) {
    for c in text { d.handle(Key(c)) }
}

/// The document with the cursor grid off (the cursor moves by columns, clicks land where they fall).
func freeGrid(_ document: Document) -> Document {
    var d = document
    d.transport.grid = nil
    return d
}

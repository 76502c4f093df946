import TemperaCore
import TemperaTerminal

/// Drawing a full editor frame (all four areas, 200x60) from documents of 1,000 and 100,000 markers, at
/// whole-document zoom (every column holds many markers) and at a close zoom. A frame must take well under
/// 33 ms (30 frames a second) and should cost about the same whatever the document's size.
enum TerminalBench {
    /// `count` markers over `tracks` tracks, 0.1 s apart on average with a deterministic jitter, a clip on
    /// three markers in four, and one marker in ten selected.
    static func document(markers count: Int, tracks: Int = 4) -> (Document, [Int: Set<MarkerID>]) {
        let perTrack = count / tracks
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> Double {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Double(state % 1_000_000) / 1_000_000
        }
        var list: [Track] = []
        for t in 0..<tracks {
            let markers = (0..<perTrack).map { i in
                Marker(id: MarkerID(i), time: (Double(i) + 0.8 * next()) * 0.1, amp: 0.2 + 0.8 * next(),
                       content: i % 4 == 3 ? nil : .clip(1 + (i + t) % 16))
            }
            list.append(Track(name: "track \(t + 1)", markers: MarkerList(markers)))
        }
        var doc = Document(tracks: list)
        doc.transport.length = Double(perTrack) * 0.1
        doc.transport.loopEnd = doc.transport.length
        var selection: [Int: Set<MarkerID>] = [:]
        for t in 0..<tracks {
            let markers = doc.tracks[t].markers
            selection[t] = Set(stride(from: 0, to: markers.count, by: 10).map { markers[$0].id })
        }
        return (doc, selection)
    }

    /// Milliseconds per frame: the median and the fastest of `frames` draws (the machine may be shared, so
    /// the fastest is the cleanest figure of the drawing's own cost).
    static func measure(_ session: Session, _ view: ViewState, frames: Int = 40) -> (median: Double, best: Double) {
        var canvas = Canvas(width: 200, height: 60)
        EditorView.draw(session: session, view: view, into: &canvas)
        var times: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<frames {
            let elapsed = clock.measure { EditorView.draw(session: session, view: view, into: &canvas) }
            times.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        }
        let sorted = times.sorted()
        return (sorted[frames / 2], sorted[0])
    }

    static func run() {
        print("== Terminal: one full editor frame, 200x60, median of 40")
        let columns = Layout(width: 200, height: 60, trackCount: 4).timeline.width
        var results: [String: [Double]] = [:]
        let zooms = ["whole document", "1 s a column", "10 ms a column"]
        for count in [1_000, 100_000] {
            let (doc, selection) = document(markers: count)
            let session = Session(document: doc)
            session.selection = selection
            session.cursor = doc.transport.length / 2
            var view = ViewState()
            view.transport.position = doc.transport.length / 3
            for zoom in zooms {
                switch zoom {
                case zooms[0]: view.viewport = Viewport.fitting(0, doc.transport.length, columns: columns)
                case zooms[1]: view.viewport = Viewport(start: 0, secondsPerColumn: 1)
                default: view.viewport = Viewport(start: doc.transport.length / 2 - 1, secondsPerColumn: 0.01)
                }
                let (ms, best) = measure(session, view)
                results[zoom, default: []].append(best)
                let perColumn = min(Double(count) / 4, view.viewport.secondsPerColumn / 0.1)
                print("  \(pad(count == 1_000 ? "1,000" : "100,000", 8)) markers, \(pad(zoom, 15)): \(fixed(ms, 3)) ms/frame (best \(fixed(best, 3)))"
                      + (perColumn >= 2 ? "  (~\(Int(perColumn)) markers a column)" : ""))
            }
        }
        for zoom in zooms {
            let r = results[zoom]!
            print("  \(zoom): 100,000 / 1,000 markers = \(fixed(r[1] / r[0], 2))x, best frames (target: well under 33 ms)")
        }
    }

    static func pad(_ s: String, _ n: Int) -> String {
        String(repeating: " ", count: max(0, n - s.count)) + s
    }

    static func fixed(_ x: Double, _ decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let v = (x * scale).rounded() / scale
        var s = String(v)
        if let dot = s.firstIndex(of: ".") {
            let have = s.distance(from: dot, to: s.endIndex) - 1
            if have < decimals { s += String(repeating: "0", count: decimals - have) }
        }
        return s
    }
}

import TemperaCore

/// The editing engine's figures: what each command, its undo and its redo cost on a 10-marker selection in a
/// document of 1,000 markers and in one of 100,000, and how much the undo history holds after many edits.
/// The claim to check: a command's cost follows what it touches, not the size of the document.
enum CoreBench {
    static let sizes = [1_000, 100_000]
    static let repetitions = 300

    static func run() {
        print("== Core: editing engine (median of \(repetitions) runs, µs; selection of 10 markers)")
        var results: [Int: [String: (command: Double, undo: Double, redo: Double)]] = [:]
        for n in sizes { results[n] = measureCommands(markers: n) }
        let small = sizes[0], big = sizes[1]
        print(pad("command", 14) + pad("\(small) run", 11) + pad("undo", 9) + pad("redo", 9)
              + pad("\(big) run", 12) + pad("undo", 9) + pad("redo", 9) + "big/small (run undo redo)")
        for name in commandNames {
            let a = results[small]![name]!, b = results[big]![name]!
            print(pad(name, 14) + pad(fmt(a.command), 11) + pad(fmt(a.undo), 9) + pad(fmt(a.redo), 9)
                  + pad(fmt(b.command), 12) + pad(fmt(b.undo), 9) + pad(fmt(b.redo), 9)
                  + "\(ratio(b.command, a.command)) \(ratio(b.undo, a.undo)) \(ratio(b.redo, a.redo))")
        }
        measureDrag(sizes)
        measureWholeTrack(sizes)
        measureResort(sizes)
        measureHistoryMemory(sizes, edits: 1_000)
    }

    static let commandNames = ["shift", "scale", "scale handle", "subdivide", "rotate", "reverse", "delete",
                               "fill", "type", "draw", "draw clip", "marker add", "group stamp", "select range"]

    static func command(_ name: String) -> Command {
        switch name {
        case "shift": return .shift(0.001)
        case "scale": return .scale(factor: 1.5, handle: .last)
        case "scale handle": return .scaleHandle(k: 4, to: 0.0)   // `to` filled in per document
        case "subdivide": return .subdivide(1)
        case "rotate": return .rotate
        case "reverse": return .reverse
        case "delete": return .delete
        case "fill": return .fill(PatternCode(items: [.symbol(.clip(1), times: 1), .symbol(.rest, times: 1)],
                                              source: "1 -"))
        case "type": return .type(PatternCode(items: [.symbol(.clip(2), times: 3)], source: "2x3"))
        case "draw", "draw clip": return .draw(amp: 0.7)
        case "marker add": return .markerAdd(time: 0.5, amp: nil)
        case "group stamp": return .groupStamp(1, times: 1)
        default: return .select(.init(.range(0, 0)))
        }
    }

    /// A document of `n` markers over four tracks, 1/64 s apart, every fourth with a clip.
    static func document(markers n: Int) -> Document {
        var doc = Document(tracks: [])
        for t in 0..<4 {
            var list = MarkerList()
            for i in 0..<(n / 4) {
                // Slightly uneven, so rotating intervals changes times.
                let time = Double(i) / 64 + Double((i * 7) % 5) / 1000
                list.insert(Marker(id: doc.makeMarkerID(), time: time, amp: 0.6,
                                   content: i % 4 == 0 ? .clip(t + 1) : nil))
            }
            doc.tracks.append(Track(name: "t\(t + 1)", markers: list))
        }
        return doc
    }

    static func measureCommands(markers n: Int) -> [String: (command: Double, undo: Double, redo: Double)] {
        let session = Session(document: document(markers: n))
        let track = session.document.tracks[0].markers
        let middle = track.count / 2
        let ten = Set((middle..<(middle + 10)).map { track[$0].id })
        let t0 = track[middle].time, t9 = track[middle + 9].time
        session.selection = [0: ten]
        _ = try? session.run(.groupStore(1))
        session.chosenClip = .clip(9)
        var out: [String: (command: Double, undo: Double, redo: Double)] = [:]
        for name in commandNames {
            var cmd = command(name)
            switch name {
            case "scale handle": cmd = .scaleHandle(k: 4, to: t0 + (t9 - t0) * 0.5)
            case "select range": cmd = .select(.init(.range(t0, t9)))
            default: break
            }
            var runs: [Double] = [], undos: [Double] = [], redos: [Double] = []
            for _ in 0..<repetitions {
                session.selection = [0: ten]
                session.clipMode = name == "draw clip"
                session.cursor = t0
                let steps = session.history.recorded
                let a = ContinuousClock.now
                do { try session.run(cmd) } catch { fatalError("\(name): \(error)") }
                let b = ContinuousClock.now
                runs.append(micros(b - a))
                guard session.history.recorded > steps else { continue }
                let c = ContinuousClock.now
                _ = try? session.undo(1)
                let d = ContinuousClock.now
                _ = try? session.redo(1)
                let e = ContinuousClock.now
                _ = try? session.undo(1)
                undos.append(micros(d - c))
                redos.append(micros(e - d))
            }
            out[name] = (median(runs), median(undos), median(redos))
        }
        return out
    }

    /// A drag of 100 motion events (each a shift of the 10 selected markers) as one transaction.
    static func measureDrag(_ sizes: [Int]) {
        var line = "drag (100 shifts as one step), µs per motion:"
        for n in sizes {
            let session = Session(document: document(markers: n))
            let track = session.document.tracks[0].markers
            session.selection = [0: Set((track.count / 2..<track.count / 2 + 10).map { track[$0].id })]
            var samples: [Double] = []
            for _ in 0..<20 {
                session.beginTransaction("drag")
                let a = ContinuousClock.now
                for _ in 0..<100 { _ = try? session.run(.shift(0.0001)) }
                let b = ContinuousClock.now
                session.commitTransaction()
                samples.append(micros(b - a) / 100)
            }
            line += "  \(n): \(fmt(median(samples)))"
        }
        print(line)
    }

    /// Big selections: a whole track (a quarter of the document) shifted, then the step undone.
    static func measureWholeTrack(_ sizes: [Int]) {
        var line = "shift a whole track (n/4 markers), ms run / undo / redo (median of 7):"
        for n in sizes {
            let session = Session(document: document(markers: n))
            let all = Set(session.document.tracks[0].markers.map(\.id))
            var runs: [Double] = [], undos: [Double] = [], redos: [Double] = []
            for _ in 0..<7 {
                session.selection = [0: all]
                let a = ContinuousClock.now
                _ = try? session.run(.shift(0.01))
                let b = ContinuousClock.now
                _ = try? session.undo(1)
                let c = ContinuousClock.now
                _ = try? session.redo(1)
                let d = ContinuousClock.now
                _ = try? session.undo(1)
                runs.append(micros(b - a) / 1000)
                undos.append(micros(c - b) / 1000)
                redos.append(micros(d - c) / 1000)
            }
            line += "  \(n / 4): \(fmt(median(runs))) / \(fmt(median(undos))) / \(fmt(median(redos)))"
        }
        print(line)
    }

    /// For comparison, the prototype's way: move 10 markers in a plain array, then re-sort the whole track.
    static func measureResort(_ sizes: [Int]) {
        var line = "for comparison, shift 10 then re-sort the track (the prototype's way), µs:"
        for n in sizes {
            var markers = Array(document(markers: n).tracks[0].markers)
            let middle = markers.count / 2
            var samples: [Double] = []
            for r in 0..<30 {
                let a = ContinuousClock.now
                for i in middle..<(middle + 10) { markers[i].time += r % 2 == 0 ? 0.001 : -0.001 }
                markers.sort { $0.precedes($1) }
                let b = ContinuousClock.now
                samples.append(micros(b - a))
            }
            line += "  \(n / 4)-marker track: \(fmt(median(samples)))"
        }
        print(line)
    }

    /// Undo history held after `edits` shifts of 10 markers: grows with the edits, not the document.
    static func measureHistoryMemory(_ sizes: [Int], edits: Int) {
        var line = "undo history after \(edits) edits of 10 markers:"
        for n in sizes {
            let session = Session(document: document(markers: n))
            let track = session.document.tracks[0].markers
            for e in 0..<edits {
                let start = (e * 37) % (track.count - 10)
                session.selection = [0: Set((start..<start + 10).map { track[$0].id })]
                _ = try? session.run(.shift(0.00001))
            }
            let stored = session.history.storedMarkers
            let bytes = stored * MemoryLayout<Marker>.stride
            line += "  \(n) markers: \(session.history.undoSteps.count) steps, \(stored) marker records (\(bytes / 1024) KiB)"
        }
        print(line)
    }

    static func micros(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return Double(s) * 1e6 + Double(atto) / 1e12
    }

    static func median(_ xs: [Double]) -> Double {
        guard !xs.isEmpty else { return 0 }
        let s = xs.sorted()
        return s[s.count / 2]
    }

    static func fmt(_ x: Double) -> String {
        x >= 100 ? String(Int(x.rounded())) : String(Double(Int(x * 10)) / 10)
    }

    static func ratio(_ a: Double, _ b: Double) -> String {
        b > 0 ? String(Double(Int(a / b * 100)) / 100) : "-"
    }

    static func pad(_ s: String, _ w: Int) -> String {
        s.count >= w ? s + " " : s + String(repeating: " ", count: w - s.count)
    }
}

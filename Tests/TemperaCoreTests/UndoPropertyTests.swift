import XCTest
@testable import TemperaCore

/// Any sequence of commands, undone, gives back the exact original document; redone, the exact result.
/// Random documents and command sequences come from a seeded generator: a failure names its seed.
final class UndoPropertyTests: XCTestCase {
    private struct Gen {
        var rng: SeededRandom
        mutating func int(_ r: ClosedRange<Int>) -> Int { Int.random(in: r, using: &rng) }
        mutating func double(_ r: ClosedRange<Double>) -> Double { Double.random(in: r, using: &rng) }
        mutating func chance(_ p: Double) -> Bool { double(0...1) < p }
        /// A time, often on a sixteenth grid so equal times happen.
        mutating func time(_ upTo: Double = 4) -> Double { chance(0.5) ? Double(int(0...Int(upTo * 16))) / 16 : double(0...upTo) }
        mutating func content() -> Content? {
            switch int(0...5) {
            case 0, 1: return nil
            case 2: return .rest
            case 3: return .hold
            case 4: return .random
            default: return .clip(int(1...16))
            }
        }
        mutating func symbol() -> PatternCode.Symbol {
            switch int(0...4) {
            case 4: return .skip
            case 0: return .rest
            case 1: return .hold
            case 2: return .random
            default: return .clip(int(1...4))
            }
        }
        mutating func code() -> PatternCode {
            let items: [PatternCode.Item] = (0..<int(0...4)).map { _ in
                chance(0.2) ? .sequence([.symbol(symbol(), times: 1), .symbol(symbol(), times: 1)], times: int(1...3))
                            : .symbol(symbol(), times: int(1...3))
            }
            return PatternCode(items: items, source: "code\(int(0...99))")
        }

        mutating func document(markers: ClosedRange<Int> = 0...40, maxTracks: Int = 4) -> Document {
            var doc = Document(tracks: [])
            for t in 0..<int(1...maxTracks) {
                var list = MarkerList()
                for _ in 0..<int(markers) {
                    list.insert(Marker(id: doc.makeMarkerID(), time: time(), amp: double(0...1), content: content()))
                }
                doc.tracks.append(Track(name: "t\(t)", markers: list))
            }
            return doc
        }

        mutating func command(tracks: Int) -> Command {
            switch int(0...49) {
            case 0: return .trackAdd(name: chance(0.5) ? nil : "n")
            case 1: return .trackSelect(int(0...tracks + 1))
            case 2: return .length(double(-1...8))
            case 3: return .loopRange(time(), time())
            case 4: return .loop(on: chance(0.5))
            case 5: return .tempo(double(0...3))
            case 6: return .volume(double(0...1.2))
            case 7: return .slot(int(0...17), .init(file: chance(0.3) ? "x/s.wav" : nil, note: chance(0.3) ? int(-1...130) : nil,
                                                    gain: chance(0.5) ? double(0...2) : nil, mode: chance(0.5) ? .gate : nil))
            case 8, 9: return .cursor(time())
            case 10: return .markerAdd(time: time(), amp: chance(0.5) ? double(0...1.1) : nil)
            case 11: return .pulse(period: double(0...0.5), count: int(0...6), start: chance(0.5) ? time() : nil, amp: nil)
            case 12: return .clipMode(chance(0.5))
            case 13: return .snap(chance(0.5))
            case 14: return .chooseClip(content() ?? .clip(17))
            case 15: return .draw(amp: chance(0.5) ? double(0...1) : nil)
            case 16: return .drawGroup(int(0...4))
            case 17: return .type(code())
            case 18: return .fill(code())
            case 19, 20, 21:
                let kinds: [Command.Selection.Kind] = [.none, .all, .left, .right, .at(time()), .range(time(), time()),
                                                       .pattern(code())]
                return .select(.init(kinds[int(0...kinds.count - 1)], allTracks: chance(0.3), add: chance(0.3)))
            case 22: return .shift(chance(0.5) ? Double(int(-3...3)) : double(-1...1))
            case 23: return .scale(factor: double(-0.5...3), handle: chance(0.5) ? .first : .last)
            case 24: return .scaleHandle(k: int(0...6), to: time())
            case 25: return .subdivide(int(0...3))
            case 26: return .rotate
            case 27: return .reverse
            case 28: return .delete
            case 29: return .groupStore(int(0...4))
            case 30: return .groupStamp(int(0...4), times: int(0...3))
            case 31: return .undo(int(0...3))
            case 32: return .redo(int(0...3))
            case 34: return .beat(double(0...1))
            case 35: return .meter(int(0...9))
            case 36: return .bpm(double(0...400))
            case 37: return .grid(chance(0.3) ? nil : int(0...33))
            case 38: return .click(on: chance(0.5) ? nil : chance(0.5), level: chance(0.5) ? double(0...1.1) : nil)
            case 39: return .countIn(int(-1...3))
            case 40: return .amp(double(-1...1.2), relative: chance(0.5))
            case 41: return .copy
            case 42: return .cut
            case 43: return .paste
            case 44: return .duplicate
            case 45: return .trackDelete(track: chance(0.5) ? nil : int(0...tracks + 1))
            case 46: return .trackMove(track: chance(0.5) ? nil : int(0...tracks + 1), to: int(0...tracks + 1))
            case 47: return .trackDuplicate(track: chance(0.5) ? nil : int(0...tracks + 1))
            case 48: return .quantize(int(0...9), strength: double(0...1.2))
            default: return .select(.init(.all, allTracks: true))
            }
        }
    }

    /// Applies primitive edits through `perform`, as an extension such as the rhythm designer does.
    private func randomPerform(_ s: Session, _ g: inout Gen) throws {
        let fail = g.chance(0.2)
        try s.perform("primitive") { edit in
            for _ in 0..<g.int(1...4) {
                let t = g.int(0...edit.document.tracks.count - 1)
                let markers = edit.document.tracks[t].markers
                switch g.int(0...5) {
                case 0: edit.insert(Marker(id: 0, time: g.time(), amp: g.double(0...1), content: g.content()), track: t)
                case 1 where !markers.isEmpty: edit.remove(id: markers[g.int(0...markers.count - 1)].id, track: t)
                case 2 where !markers.isEmpty:
                    var m = markers[g.int(0...markers.count - 1)]
                    m.time = g.time()
                    m.content = g.content()
                    edit.replace(m, track: t)
                case 3 where g.chance(0.5): edit.setPattern("p\(g.int(0...9))")
                case 3: edit.setTrack(t, name: g.chance(0.5) ? "r\(g.int(0...9))" : nil, gain: g.double(0...1),
                                      mute: g.chance(0.5), solo: g.chance(0.3) ? true : nil)
                case 4:
                    var d = edit.document.designer
                    d.slider = g.double(-0.5...1.5)
                    edit.setDesigner(d)
                default: edit.setGroup(g.int(1...16), Group(elements: [GroupElement(offset: 0, amp: 0.5, content: .hold)], span: 1))
                }
            }
            if fail { throw CommandError("refused") }
        }
    }

    private func check(_ s: Session, seed: UInt64, step: Int, file: StaticString = #filePath, line: UInt = #line) {
        for (i, t) in s.document.tracks.enumerated() {
            XCTAssertNoThrow(try t.markers.checkInvariants(), "seed \(seed) step \(step) track \(i)", file: file, line: line)
        }
        for (t, ids) in s.selection {
            XCTAssertTrue(t < s.document.tracks.count && ids.allSatisfy { s.document.tracks[t].markers.contains(id: $0) },
                          "seed \(seed) step \(step): selection names a marker that is gone", file: file, line: line)
        }
        XCTAssertLessThanOrEqual(s.document.nextMarkerID, MarkerID.max)
    }

    func testUndoAllRestoresTheOriginalAndRedoAllTheResult() throws {
        let (failures, steps) = try exercise(seeds: 1...300, commands: 50) { $0.document() }
        // The generator must exercise both paths, or the test proves little.
        XCTAssertGreaterThan(failures, 1000)
        XCTAssertGreaterThan(steps, 5000)
    }

    /// The same on tracks long enough to span several chunks of the marker list, so edits split and merge them.
    func testUndoAllRestoresTheOriginalOnTracksOfSeveralChunks() throws {
        var chunked = 0
        let (_, steps) = try exercise(seeds: 1001...1012, commands: 30) { g in
            let doc = g.document(markers: 1100...3000, maxTracks: 2)
            if doc.tracks.contains(where: { $0.markers.chunks.count > 1 }) { chunked += 1 }
            return doc
        }
        XCTAssertGreaterThan(steps, 150)
        XCTAssertEqual(chunked, 12, "every document must span several chunks")
    }

    private func exercise(seeds: ClosedRange<UInt64>, commands: Int,
                          _ makeDocument: (inout Gen) -> Document) throws -> (failures: Int, steps: Int) {
        var failures = 0, steps = 0
        for seed in seeds {
            var g = Gen(rng: SeededRandom(seed: seed))
            let original = makeDocument(&g)
            let s = Session(document: original)
            for step in 0..<commands {
                let before = s.document
                let history = s.history.undoSteps.count
                do {
                    switch g.int(0...19) {
                    case 0: try randomPerform(s, &g)
                    case 1:
                        // A drag: several commands as one step, sometimes aborted.
                        let start = s.document
                        s.beginTransaction("drag")
                        for _ in 0..<g.int(1...4) {
                            // Undo and redo end a drag (they commit it first); the drag's own steps are edits.
                            let c = g.command(tracks: s.document.tracks.count)
                            if c.is(Command.Undo.self) { continue }
                            if c.is(Command.Redo.self) { continue }
                            // So do track deletes, moves and duplicates (they renumber tracks).
                            if c.is(Command.TrackDelete.self) { continue }
                            if c.is(Command.TrackMove.self) { continue }
                            if c.is(Command.TrackDuplicate.self) { continue }
                            _ = try? s.run(c)
                        }
                        if g.chance(0.3) {
                            s.abortTransaction()
                            XCTAssertTrue(s.document == start, "seed \(seed) step \(step): abort did not restore")
                        } else {
                            s.commitTransaction()
                        }
                    default: try s.run(g.command(tracks: s.document.tracks.count))
                    }
                    steps += 1
                } catch {
                    failures += 1
                    XCTAssertTrue(error is CommandError, "seed \(seed): \(error)")
                    XCTAssertTrue(s.document == before, "seed \(seed) step \(step): a failed command changed the document")
                    XCTAssertEqual(s.history.undoSteps.count, history, "seed \(seed) step \(step): a failed command made a step")
                }
                check(s, seed: seed, step: step)
            }
            let final = s.document
            let done = s.history.undoSteps.count
            if s.canUndo { try s.undo(Int.max) }
            XCTAssertTrue(s.document == original, "seed \(seed): undo all did not restore the original")
            check(s, seed: seed, step: -1)
            if done > 0 { try s.redo(done) }
            XCTAssertTrue(s.document == final, "seed \(seed): redo all did not give the result")
            check(s, seed: seed, step: -2)
        }
        return (failures, steps)
    }
}

import CAllocCounter
import Foundation
import TemperaAudio
import TemperaCore

/// The song's figures: compiling the schedule of a 100-section song over a 100,000-marker document, and what an
/// edit to one region costs while the song plays (it should cost what the loop's edit costs, not the song's size).
enum SongBench {
    static let rounds = Int(ProcessInfo.processInfo.environment["BENCH_ROUNDS"] ?? "") ?? 20

    static func run() {
        print("== Song: 100 sections (50 regions, each used twice) over 100,000 markers")
        let session = Session(document: document())
        let doc = session.document
        let events = doc.tracks.reduce(0) { $0 + $1.markers.filter { $0.content != nil }.count }

        let core = time(5) { _ in _ = SongSchedule(document: doc, sampleRate: 48_000) }
        print(String(format: "  SongSchedule (core, every region's events of %d onsets): %.1f ms", events, core))

        let engine = AudioEngine(output: .null)
        let t0 = Date()
        engine.load(document: doc, baseDirectory: nil)
        let first = Date().timeIntervalSince(t0) * 1000
        print(String(format: "  first publish of the song to the engine (compile every region + snapshot): %.1f ms", first))
        engine.start()
        engine.play()
        _ = engine.pump(frames: 4_800)

        var volume = doc
        let settings = time(rounds) { k in
            volume.transport.volume = 0.5 + Double(k) / 100
            engine.update(document: volume)
            _ = engine.pump(frames: 256)
        }
        print(String(format: "  publishing a volume change while the song plays (no region recompiled): %.1f ms", settings))

        // Ten markers in the middle of region 20 shifted by 1 ms, through the session (as the editor does).
        let region = doc.song.sections[20]
        selectTen(session, track: 1, from: region.start + 1)
        let edit = timeEdits(session, engine)
        print(String(format: "  an edit to 10 markers of one region while the song plays (shift + publish): %.1f ms", edit))

        // The same edit with the song off: today's loop over the whole timeline.
        _ = try? session.run(.song(on: false))
        _ = try? session.run(.loopRange(0, doc.transport.length))
        engine.update(document: session.document)
        let loop = timeEdits(session, engine)
        print(String(format: "  the same edit with the loop over the whole timeline instead: %.1f ms", loop))

        _ = try? session.run(.song(on: true))
        engine.update(document: session.document)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 2 * 256)
        defer { buffer.deallocate() }
        let (counted, calls) = allocationsWhileEditing(session, engine, into: buffer)
        print("  allocations in the render path while the song plays: \(counted) in \(calls) render calls"
            + " (10 edits and 10 jumps between sections)")

        // Pads hit while the song plays, each placed in the section heard: the hit, its place and the render.
        var padCounted = 0, hits = 0, placed = 0
        for k in 0..<10 {
            engine.jump(toSection: (k * 13) % 100)
            tempera_alloc_count_start()
            for b in 0..<94 {
                if b % 3 == 0 {
                    if engine.hitPad(slot: 1 + (k + b) % 16, velocity: 0.7).place != nil { placed += 1 }
                    hits += 1
                }
                engine.pump(into: buffer, frames: 256)
            }
            padCounted += tempera_alloc_count_stop()
        }
        print("  allocations with pads being hit while the song plays: \(padCounted) in \(10 * 94) render calls"
            + " and \(hits) pad hits (\(placed) placed in a section)")
    }

    /// Time that bends: the same song with a tempo map of 1,000 points (step, linear and exp in turn) that the
    /// sections without a tempo follow, every third section ramping over its repeats, and a track at ratio
    /// sqrt(2). An edit to one region while it plays should cost what it costs without them; the render path
    /// should not allocate.
    static func runRamped() {
        print("== Song with a tempo map of 1,000 points, section ramps and a track at ratio sqrt(2)")
        var doc = document()
        let shapes: [TempoMap.Shape] = [.step, .linear, .exp]
        doc.transport.tempoMap = TempoMap((0..<1_000).map {
            TempoMap.Point(time: Double($0) * 0.39, tempo: 0.8 + 0.4 * Double($0 % 7) / 6, shape: shapes[$0 % 3])
        })
        for j in doc.song.sections.indices {
            switch j % 3 {
            case 0: doc.song.sections[j].tempoEnd = 1.3
            case 1: doc.song.sections[j].tempo = nil
            default: break
            }
        }
        doc.tracks[3].ratioText = "sqrt(2)"
        doc.tracks[3].ratio = 2.0.squareRoot()
        let session = Session(document: doc)
        let core = time(5) { _ in _ = SongSchedule(document: doc, sampleRate: 48_000) }
        print(String(format: "  SongSchedule (core) with the map and ramps: %.1f ms", core))
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: nil)
        engine.start()
        engine.play()
        _ = engine.pump(frames: 4_800)
        let region = doc.song.sections[20]
        selectTen(session, track: 1, from: region.start + 1)
        let edit = timeEdits(session, engine)
        print(String(format: "  an edit to 10 markers of one region while the ramped song plays (shift + publish): %.1f ms", edit))
        // The same edit on the track at ratio sqrt(2): its events are compiled per region too, only this one again.
        selectTen(session, track: 3, from: region.start + 1)
        let ratioEdit = timeEdits(session, engine)
        print(String(format: "  the same edit on the track at ratio sqrt(2): %.1f ms", ratioEdit))
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 2 * 256)
        defer { buffer.deallocate() }
        let (counted, calls) = allocationsWhileEditing(session, engine, into: buffer)
        print("  allocations in the render path with the map of 1,000 points, ramps and the ratio track: \(counted) in"
            + " \(calls) render calls (10 edits and 10 jumps between sections)")
        // The loop through the map: pass after pass over the whole timeline.
        _ = try? session.run(.song(on: false))
        engine.update(document: session.document)
        tempera_alloc_count_start()
        for _ in 0..<940 { engine.pump(into: buffer, frames: 256) }
        let loopCounted = tempera_alloc_count_stop()
        print("  allocations in the render path playing the loop through the map: \(loopCounted) in 940 render calls")
    }

    /// Selects ten markers of track `t` from time `start` on: the edit the figures time.
    static func selectTen(_ session: Session, track t: Int, from start: Double) {
        let markers = session.document.tracks[t].markers
        let lo = markers.lowerBound(time: start)
        session.selection = [t: Set((lo..<(lo + 10)).map { markers[$0].id })]
    }

    /// Median milliseconds of shifting the selection by ±1 ms and publishing it, as the editor does.
    static func timeEdits(_ session: Session, _ engine: AudioEngine) -> Double {
        time(rounds) { k in
            _ = try? session.run(.shift(k % 2 == 0 ? 0.001 : -0.001))
            engine.update(document: session.document)
            _ = engine.pump(frames: 256)
        }
    }

    /// Allocations in the render path over ten edits, each published and followed by a jump between sections and
    /// 94 render calls: (allocations, render calls).
    static func allocationsWhileEditing(_ session: Session, _ engine: AudioEngine,
                                        into buffer: UnsafeMutablePointer<Float>) -> (Int, Int) {
        var counted = 0, calls = 0
        for k in 0..<10 {
            _ = try? session.run(.shift(k % 2 == 0 ? 0.001 : -0.001))
            engine.update(document: session.document)
            engine.jump(toSection: (k * 7) % 100)
            tempera_alloc_count_start()
            for _ in 0..<94 { engine.pump(into: buffer, frames: 256) }
            counted += tempera_alloc_count_stop()
            calls += 94
        }
        return (counted, calls)
    }

    /// Median milliseconds of `n` runs.
    static func time(_ n: Int, _ body: (Int) -> Void) -> Double {
        var xs: [Double] = []
        for k in 0..<n {
            let t0 = DispatchTime.now().uptimeNanoseconds
            body(k)
            xs.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
        }
        return xs.sorted()[n / 2]
    }

    /// Four tracks of 25,000 markers 1/64 s apart (about 390 s), every other one with a clip; 50 regions of 7.8 s
    /// and a song of 100 sections playing them twice over in two orders, tempos from x0.8 to x1.25.
    static func document() -> Document {
        var doc = CoreBench.document(markers: 100_000)
        for t in doc.tracks.indices {
            var list = doc.tracks[t].markers
            let fill = list.enumerated().map { i, m -> Marker in
                var m = m
                m.content = i % 2 == 0 ? .clip(t + 1) : nil
                return m
            }
            list = MarkerList(fill)
            doc.tracks[t].markers = list
        }
        doc.transport.length = 390
        doc.transport.loopEnd = 390
        let width = 7.8
        var sections: [Song.Section] = []
        for j in 0..<100 {
            let r = j < 50 ? j : 99 - j
            sections.append(Song.Section(name: "S\(j + 1)", start: Double(r) * width, end: Double(r + 1) * width,
                                         repeats: 1 + j % 3, tempo: [0.8, 1, 1.25][j % 3]))
        }
        doc.song = Song(sections: sections, on: true, loop: true)
        return doc
    }
}

import Foundation
import XCTest
@testable import TemperaCore

/// Time that bends: the tempo map's play time and its inverse in closed form, ramps over a section's
/// repeats, tracks with their own cycle and ratio. Expected values are computed here from the closed forms in docs/decisions/timing.md,
/// not from the code under test.
final class TempoMapTests: XCTestCase {
    /// 90 and 120 BPM at the default beat of 0.5 s: tempo scales 0.75 and 1.
    let t90 = 0.75, t120 = 1.0
    /// Four bars of 4/4 at a beat of 0.5 s.
    let fourBars = 8.0

    /// Quarter notes over four bars, the loop on them, the map from 90 to 120 BPM over them in `shape`.
    func rampDocument(_ shape: TempoMap.Shape) -> Document {
        var doc = Fixture.document([(0..<16).map { Double($0) * 0.5 }], contents: [Array(repeating: .clip(1), count: 16)])
        doc.transport.loopStart = 0
        doc.transport.loopEnd = fourBars
        doc.transport.length = fourBars
        doc.transport.tempoMap = TempoMap([TempoMap.Point(time: 0, tempo: t90, shape: shape),
                                           TempoMap.Point(time: fourBars, tempo: t120)])
        return doc
    }

    /// P(0, t) of a linear ramp from τ0 at 0 to τ1 at L: ln(τ(t)/τ0)/k, k = (τ1 − τ0)/L.
    func linearPlay(_ t: Double, from t0: Double, to t1: Double, over length: Double) -> Double {
        let k = (t1 - t0) / length
        return log((t0 + k * t) / t0) / k
    }

    /// P(0, t) of an exp ramp: (1 − e^(−λt))/(λ·τ0), λ = ln(τ1/τ0)/L.
    func expPlay(_ t: Double, from t0: Double, to t1: Double, over length: Double) -> Double {
        let lambda = log(t1 / t0) / length
        return (1 - exp(-lambda * t)) / (lambda * t0)
    }

    func testALinearRampFrom90To120BPMOverFourBarsPutsEveryQuarterOnRoundRateTimesTheClosedFormAt44100And48000() {
        let doc = rampDocument(.linear)
        for rate in [44_100.0, 48_000.0] {
            let onsets = Schedule(document: doc, sampleRate: rate).onsets(loops: 2)
            let pass = linearPlay(fourBars, from: t90, to: t120, over: fourBars)
            let expected: [Int64] = (0..<2).flatMap { (k: Int) -> [Int64] in
                (0..<16).map { (i: Int) -> Int64 in
                    let time: Double = Double(k) * pass + linearPlay(Double(i) * 0.5, from: t90, to: t120, over: fourBars)
                    return Int64((rate * time).rounded())
                }
            }
            XCTAssertEqual(onsets.map(\.frame), expected, "at \(rate) Hz")
        }
        // The ramp is heard: the first beat lasts 60/90 s, beats shorten towards 60/120 s.
        let first = Schedule(document: doc, sampleRate: 48_000).onsets(pass: 0)
        XCTAssertEqual(first[1].time - first[0].time, linearPlay(0.5, from: t90, to: t120, over: fourBars), accuracy: 1e-12)
        XCTAssertGreaterThan(first[1].time - first[0].time, 0.65)
        XCTAssertLessThan(first[15].time - first[14].time, 0.52)
    }

    func testAnExpRampFrom90To120BPMOverFourBarsPutsEveryQuarterOnRoundRateTimesTheClosedFormAt44100And48000() {
        let doc = rampDocument(.exp)
        for rate in [44_100.0, 48_000.0] {
            let onsets = Schedule(document: doc, sampleRate: rate).onsets(loops: 2)
            let pass = expPlay(fourBars, from: t90, to: t120, over: fourBars)
            let expected: [Int64] = (0..<2).flatMap { (k: Int) -> [Int64] in
                (0..<16).map { (i: Int) -> Int64 in
                    let time: Double = Double(k) * pass + expPlay(Double(i) * 0.5, from: t90, to: t120, over: fourBars)
                    return Int64((rate * time).rounded())
                }
            }
            XCTAssertEqual(onsets.map(\.frame), expected, "at \(rate) Hz")
        }
    }

    func testAnEmptyMapPlaysExactlyTheOldFormula() {
        var doc = rampDocument(.linear)
        doc.transport.tempoMap = TempoMap()
        doc.transport.tempo = 1.3
        let s = Schedule(document: doc, sampleRate: 44_100)
        XCTAssertTrue(s.clock.isConstant)
        for k in 0..<3 {
            for (i, o) in s.onsets(pass: k).enumerated() {
                XCTAssertEqual(o.frame, Int64(((Double(k) * 8 + Double(i) * 0.5) / 1.3 * 44_100).rounded()))
                XCTAssertEqual(o.time, (Double(k) * 8 + Double(i) * 0.5) / 1.3)
            }
        }
    }

    func testASectionRampRunsOverAllItsRepeatsAndTheNextSectionStartsWhereItsIntegralEnds() {
        for shape in [TempoMap.Shape.linear, .exp] {
            var doc = Fixture.document([[0, 0.5, 1, 1.5]], contents: [Array(repeating: .clip(1), count: 4)])
            doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 2, repeats: 3, tempo: t90),
                                       Song.Section(name: "B", start: 0, end: 2, repeats: 1)], on: true)
            doc.song.sections[0].tempoEnd = t120
            doc.song.sections[0].shape = shape
            let play = { (x: Double) in
                shape == .linear ? self.linearPlay(x, from: self.t90, to: self.t120, over: 6)
                    : self.expPlay(x, from: self.t90, to: self.t120, over: 6)
            }
            for rate in [44_100.0, 48_000.0] {
                let onsets = SongSchedule(document: doc, sampleRate: rate).onsets(songPass: 0)
                var expected: [Int64] = []
                for k in 0..<3 {
                    for t in [0, 0.5, 1, 1.5] { expected.append(Int64((rate * play(Double(k) * 2 + t)).rounded())) }
                }
                for t in [0, 0.5, 1, 1.5] { expected.append(Int64((rate * (play(6) + t / 1)).rounded())) }
                XCTAssertEqual(onsets.map(\.frame), expected, "\(shape) at \(rate) Hz")
                XCTAssertEqual(onsets.map(\.pass), [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0, 0, 0])
            }
            let timing = SongTiming(song: doc.song, tempo: 1)
            XCTAssertEqual(timing.sections[0].duration, play(6), accuracy: 1e-12)
            XCTAssertEqual(timing.tempo(section: 0, pass: 2, time: 2), t120, accuracy: 1e-12)
            XCTAssertEqual(timing.tempo(section: 0, pass: 0, time: 0), t90)
        }
    }

    func testAVariableMapSectionFollowsTheDocumentsMapOverItsRegionEachPassAlike() {
        var doc = Fixture.document([[0, 1, 2.5]], contents: [[.clip(1), .clip(1), .clip(1)]])
        doc.transport.tempoMap = TempoMap([TempoMap.Point(time: 1, tempo: 1.5, shape: .linear),
                                           TempoMap.Point(time: 3, tempo: 0.5)])
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 3, repeats: 2)], on: true)
        let map = doc.transport.tempoMap
        // Before the first point the document's tempo (1); from 1 to 3 linear from 1.5 to 0.5.
        let p = { (b: Double) in b <= 1 ? b : 1 + self.linearPlay(b - 1, from: 1.5, to: 0.5, over: 2) }
        let onsets = SongSchedule(document: doc, sampleRate: 48_000).onsets(songPass: 0)
        let expected = [0, 1, 2.5].map { p($0) } + [0, 1, 2.5].map { p(3) + p($0) }
        XCTAssertEqual(onsets.map(\.frame), expected.map { Int64(($0 * 48_000).rounded()) })
        XCTAssertEqual(map.play(from: 0, to: 3, base: 1), p(3), accuracy: 1e-12)
    }

    func testTheInverseRoundTripsTenThousandRandomTimesTo1e9Seconds() {
        let map = TempoMap([TempoMap.Point(time: 0, tempo: 0.75, shape: .linear),
                            TempoMap.Point(time: 3, tempo: 1.2, shape: .exp),
                            TempoMap.Point(time: 5.5, tempo: 0.6, shape: .step),
                            TempoMap.Point(time: 7, tempo: 0.9, shape: .exp),
                            TempoMap.Point(time: 9, tempo: 1.5, shape: .linear),
                            TempoMap.Point(time: 12, tempo: 1.1)])
        let pieces = map.pieces(base: 1)
        var rng = SeededRandom(seed: 20)
        var worst = 0.0
        pieces.withUnsafeBufferPointer { b in
            let ps = b.baseAddress!
            for _ in 0..<10_000 {
                let a = Double.random(in: 0..<1, using: &rng) * 15, u = a + Double.random(in: 0..<1, using: &rng) * 15
                let played = TempoCurve.play(from: a, to: u, ps: ps, count: b.count)
                let back = TempoCurve.time(after: played, from: a, ps: ps, count: b.count)
                worst = max(worst, abs(back - u))
            }
        }
        XCTAssertLessThan(worst, 1e-9)
        // Each piece's play time is its closed form.
        XCTAssertEqual(map.play(from: 0, to: 3, base: 1), log(1.2 / 0.75) / ((1.2 - 0.75) / 3), accuracy: 1e-12)
        let lambda = log(0.6 / 1.2) / 2.5
        XCTAssertEqual(map.play(from: 3.5, to: 5, base: 1),
                       (exp(-lambda * 0.5) - exp(-lambda * 2)) / (lambda * 1.2), accuracy: 1e-12)
        XCTAssertEqual(map.play(from: 5.5, to: 7, base: 1), 1.5 / 0.6, accuracy: 1e-12)
        XCTAssertEqual(map.play(from: 12, to: 20, base: 1), 8 / 1.1, accuracy: 1e-12)
    }

    func testARecordedInstantDuringARampLandsAtItsExactDocumentTimeThroughTheInverse() {
        var song = Song(sections: [Song.Section(name: "A", start: 1, end: 3, repeats: 3, tempo: t90)], on: true)
        song.sections[0].tempoEnd = t120
        let timing = SongTiming(song: song, tempo: 1)
        var rng = SeededRandom(seed: 7)
        for _ in 0..<1_000 {
            let k = Int(Double.random(in: 0..<1, using: &rng) * 3), t = 1 + Double.random(in: 0..<1, using: &rng) * 2
            let heard = timing.time(songPass: 0, section: 0, pass: k, time: t - 1)
            let p = timing.place(at: heard, looping: false)!
            XCTAssertEqual(p.pass, k)
            XCTAssertEqual(p.time, t, accuracy: 1e-9)
        }
    }

    func testATrackAtRatioSqrt2AgainstOneAt1IsStudy33ExactToTheFrame() {
        var doc = Fixture.document([[0, 0.3, 0.7, 1.4], [0, 0.3, 0.7, 1.4]],
                                   contents: [Array(repeating: .clip(1), count: 4), Array(repeating: .clip(2), count: 4)])
        doc.transport.loopStart = 0
        doc.transport.loopEnd = 2
        doc.tracks[1].ratioText = "sqrt(2)"
        doc.tracks[1].ratio = 2.0.squareRoot()
        let onsets = Schedule(document: doc, sampleRate: 48_000).onsets(loops: 3)
        let one = onsets.filter { $0.track == 1 }.map(\.frame), root = onsets.filter { $0.track == 2 }.map(\.frame)
        var plain: [Int64] = []
        for k in 0..<3 {
            for t in [0, 0.3, 0.7, 1.4] { plain.append(Int64(((Double(k) * 2 + t) * 48_000).rounded())) }
        }
        XCTAssertEqual(one, plain)
        var expected: [Int64] = []
        for m in 0..<10 {
            for t in [0, 0.3, 0.7, 1.4] {
                let x = (Double(m) * 2 + t) / 2.0.squareRoot()
                if x < 6 { expected.append(Int64((x * 48_000).rounded())) }
            }
        }
        XCTAssertEqual(root, expected)
        XCTAssertEqual(root.count, 18)
    }

    func testFourTracksAt17To20AreStudy36ExactToTheFrame() {
        let melody = [0, 0.25, 0.6, 1.1, 1.5, 1.75]
        var doc = Fixture.document(Array(repeating: melody, count: 4),
                                   contents: Array(repeating: Array(repeating: .clip(1), count: 6), count: 4))
        doc.transport.loopStart = 0
        doc.transport.loopEnd = 2
        doc.transport.tempo = 1.25
        let session = Session(document: doc)
        for (i, n) in [17, 18, 19, 20].enumerated() {
            XCTAssertNoThrow(try session.run(CommandParser.parse("track \(i + 1) ratio \(n)/17")!))
        }
        let onsets = Schedule(document: session.document, sampleRate: 44_100).onsets(loops: 4)
        for (i, n) in [17, 18, 19, 20].enumerated() {
            let r = Double(n) / 17
            var expected: [Int64] = []
            for m in 0..<20 {
                for t in melody {
                    let x = (Double(m) * 2 + t) / r
                    if x < 8 { expected.append(Int64((x / 1.25 * 44_100).rounded())) }
                }
            }
            XCTAssertEqual(onsets.filter { $0.track == i + 1 }.map(\.frame), expected, "ratio \(n)/17")
        }
    }

    func testATrackWithCycle0To3QuartersAgainstAOneSecondLoopStartsItsFourthCycleAt2Point25() {
        var doc = Fixture.document([[0, 0.5], [0]], contents: [[.clip(1), .clip(2)], [.clip(3)]])
        doc.transport.loopStart = 0
        doc.transport.loopEnd = 1
        let s = Session(document: doc)
        XCTAssertNoThrow(try s.run(CommandParser.parse("track 1 cycle 0 3/4")!))
        XCTAssertEqual(s.document.tracks[0].cycle, Track.Cycle(start: 0, end: 0.75))
        let onsets = Schedule(document: s.document, sampleRate: 48_000).onsets(loops: 3)
        let cycled = onsets.filter { $0.track == 1 }
        XCTAssertEqual(cycled.map(\.time), [0, 0.5, 0.75, 1.25, 1.5, 2, 2.25, 2.75])
        XCTAssertEqual(cycled.map(\.clip), [1, 2, 1, 2, 1, 2, 1, 2])
        XCTAssertEqual(cycled[6].loop, 2, "the fourth cycle starts 0.25 s into the third pass")
        XCTAssertEqual(cycled[6].frame, 108_000)
        XCTAssertEqual(onsets.filter { $0.track == 2 }.map(\.time), [0, 1, 2], "the other track loops as before")
        // In a song each section restarts the cycle and cuts it at its end.
        XCTAssertNoThrow(try s.run(CommandParser.parse("section add 0 1 x2")!))
        XCTAssertNoThrow(try s.run(.song(on: true)))
        let song = SongSchedule(document: s.document, sampleRate: 48_000).onsets(songPass: 0).filter { $0.track == 1 }
        XCTAssertEqual(song.map(\.time), [0, 0.5, 0.75, 1.25, 1.5])
        XCTAssertNoThrow(try s.run(CommandParser.parse("track 1 cycle off")!))
        XCTAssertNil(s.document.tracks[0].cycle)
    }

    func testTheCommandsParsePrintBackAndEachIsOneUndoableStep() throws {
        let lines = ["tempo at 8 1 shape=linear", "bpm at 0 90 shape=exp", "tempo at 2 1.5", "tempo at 8 delete",
                     "tempo clear", "section 1 tempo 0.75..1 shape=exp", "section 1 bpm 90..120", "section 1 bpm 100",
                     "section 1 meter 3", "section 1 meter off", "track 2 cycle 0 0.75", "track 2 cycle off",
                     "track 2 ratio \"sqrt(2)\""]
        for line in lines {
            let c = try XCTUnwrap(CommandParser.parse(line), line)
            XCTAssertEqual(try CommandParser.parse(c.text), c, line)
        }
        XCTAssertEqual(try CommandParser.parse("section 1 bpm 90..120"), .section(1, .ramp(from: 90, to: 120, bpm: true, shape: .linear)))
        XCTAssertEqual(try CommandParser.parse("track 2 ratio 18/17"), .trackRatio(track: 2, "18/17"))
        XCTAssertThrowsError(try CommandParser.parse("tempo at 1 2 shape=wobbly"))
        XCTAssertThrowsError(try CommandParser.parse("section 1 tempo 1..2 shape=step"))
        XCTAssertThrowsError(try CommandParser.parse("track 1 cycle 2 1"))
        XCTAssertThrowsError(try CommandParser.parse("track 1 ratio 0"))

        let s = Fixture.session([[0, 1], [0.5]])
        try s.run(CommandParser.parse("bpm at 0 90 shape=linear")!)
        try s.run(CommandParser.parse("bpm at 8 120")!)
        XCTAssertEqual(s.document.transport.tempoMap.points,
                       [TempoMap.Point(time: 0, tempo: 0.75, shape: .linear), TempoMap.Point(time: 8, tempo: 1)])
        try s.run(.undo(1))
        XCTAssertEqual(s.document.transport.tempoMap.points.count, 1)
        XCTAssertThrowsError(try s.run(CommandParser.parse("tempo at 3 delete")!))
        try s.run(CommandParser.parse("track 2 ratio sqrt(2)")!)
        XCTAssertEqual(s.document.tracks[1].ratio, 2.0.squareRoot())
        XCTAssertEqual(s.document.tracks[1].ratioText, "sqrt(2)")
        try s.run(.undo(1))
        XCTAssertEqual(s.document.tracks[1].ratio, 1)
        XCTAssertNil(s.document.tracks[1].ratioText)
        try s.run(CommandParser.parse("section add 0 2 x3")!)
        try s.run(CommandParser.parse("section 1 bpm 90..120 shape=exp")!)
        XCTAssertEqual(s.document.song.sections[0].tempo, 0.75)
        XCTAssertEqual(s.document.song.sections[0].tempoEnd, 1)
        XCTAssertEqual(s.document.song.sections[0].shape, .exp)
        try s.run(.undo(1))
        XCTAssertNil(s.document.song.sections[0].tempoEnd)
        XCTAssertThrowsError(try s.run(CommandParser.parse("section 1 bpm 90..100000")!))
    }

    func testTheFileKeepsTheMapRampsMetersCyclesAndRatiosAndAnOldDocumentIsWrittenAsBefore() throws {
        var doc = Fixture.document([[0, 0.5], [0.25]])
        let before = DocumentFile.encode(doc)
        XCTAssertFalse(before.contains("tempomap"))
        XCTAssertFalse(before.contains("cycle"))
        XCTAssertFalse(before.contains("ratio"))
        doc.transport.tempoMap = TempoMap([TempoMap.Point(time: 0, tempo: 0.75, shape: .exp),
                                           TempoMap.Point(time: 2.0.squareRoot(), tempo: 1.25, shape: .linear),
                                           TempoMap.Point(time: 4, tempo: 1)])
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 2, repeats: 3, tempo: 0.75)])
        doc.song.sections[0].tempoEnd = 1
        doc.song.sections[0].shape = .exp
        doc.song.sections[0].meter = Meter(7)
        doc.tracks[1].cycle = Track.Cycle(start: 0, end: 0.75)
        doc.tracks[1].ratioText = "18/17"
        doc.tracks[1].ratio = 18.0 / 17
        let text = DocumentFile.encode(doc)
        XCTAssertEqual(try DocumentFile.decode(text), doc)
        XCTAssertTrue(text.contains("\"tempomap\": [[0, 0.75, \"exp\"], [1.4142135623730951, 1.25, \"linear\"], [4, 1, \"step\"]]"))
        XCTAssertTrue(text.contains("\"cycle\": [0, 0.75], \"ratio\": \"18/17\""))
        XCTAssertThrowsError(try DocumentFile.decode(text.replacingOccurrences(of: "\"18/17\"", with: "\"18/0\"")))
        XCTAssertThrowsError(try DocumentFile.decode(text.replacingOccurrences(of: "[4, 1, \"step\"]", with: "[1, 1, \"step\"]")))
    }
}

import XCTest
@testable import TemperaCore

/// Probability, ratchets, humanize, grooves and fitting a temperament.
final class GrooveTests: XCTestCase {
    /// One track, one marker on slot 1 at 0 in a loop of 10 ms, with probability `p`.
    func probabilityDocument(_ p: Double) -> Document {
        var m = Marker(id: 0, time: 0, amp: 0.8, content: .clip(1))
        m.p = p
        var doc = Document(tracks: [Track(name: "p", markers: MarkerList([m]))])
        doc.transport.loopStart = 0
        doc.transport.loopEnd = 0.01
        doc.transport.length = 0.01
        return doc
    }

    func testProbabilityHalfSoundsAboutHalfThePassesTheSameWayEveryTime() {
        let doc = probabilityDocument(0.5)
        let onsets = Schedule(document: doc, sampleRate: 48_000).onsets(loops: 1000)
        XCTAssertEqual(Double(onsets.count), 500, accuracy: 50)
        // Decided by the seed, the pass, the track and the time: the same list every time, another seed another.
        XCTAssertEqual(Schedule(document: doc, sampleRate: 48_000).onsets(loops: 1000), onsets)
        var other = doc
        other.seed = 12345
        XCTAssertNotEqual(Schedule(document: other, sampleRate: 48_000).onsets(loops: 1000).map(\.loop), onsets.map(\.loop))
        XCTAssertEqual(Schedule(document: probabilityDocument(1), sampleRate: 48_000).onsets(loops: 1000).count, 1000)
        XCTAssertEqual(Schedule(document: probabilityDocument(0), sampleRate: 48_000).onsets(loops: 1000).count, 0)
        // The song's schedule decides alike, pass for pass.
        var song = doc
        song.song = Song(sections: [Song.Section(name: "a", start: 0, end: 0.01, repeats: 1000)], on: true, loop: false)
        XCTAssertEqual(SongSchedule(document: song, sampleRate: 48_000).onsets(songPass: 0).map(\.pass), onsets.map(\.loop))
    }

    func testMidiExportPlaysWhatTheScheduleDecides() {
        let doc = probabilityDocument(0.5)
        let (file, _) = MidiExport.file(doc, options: MidiExport.Options(loops: 200))
        let ons = file.tracks[1].filter { if case .noteOn = $0.message { return true } else { return false } }.count
        XCTAssertEqual(ons, Schedule(document: doc, sampleRate: 48_000).onsets(loops: 200).count)
    }

    func testARatchetIsEqualHitsToTheFrame() {
        var m = Marker(id: 0, time: 0.25, amp: 0.7, content: .clip(2))
        m.rep = 4
        let next = Marker(id: 1, time: 0.75, amp: 0.7, content: .clip(1))
        var doc = Document(tracks: [Track(name: "r", markers: MarkerList([m, next]))])
        doc.transport.loopEnd = 2
        let onsets = Schedule(document: doc, sampleRate: 48_000).onsets(loops: 1)
        // Four hits over the half second up to the next marker: 125 ms = 6000 frames apart, equal amplitudes.
        XCTAssertEqual(onsets.map(\.frame), [12_000, 18_000, 24_000, 30_000, 36_000])
        XCTAssertEqual(onsets.prefix(4).map(\.amp), [0.7, 0.7, 0.7, 0.7])
        XCTAssertEqual(onsets.prefix(4).map(\.clip), [2, 2, 2, 2])
        // With a span of its own: four hits over 40 ms, 480 frames apart.
        doc.tracks[0].markers = MarkerList([{ var r = m; r.repSpan = 0.04; return r }(), next])
        XCTAssertEqual(Schedule(document: doc, sampleRate: 48_000).onsets(loops: 1).map(\.frame),
                       [12_000, 12_480, 12_960, 13_440, 36_000])
        // A gate slot's hits each close at the next hit.
        let events = Schedule.events(of: doc.tracks[0], index: 0, start: 0, end: 2)
        XCTAssertEqual(events.map(\.gateEnd), [0.26, 0.27, 0.28, 0.75, 2].map { $0 - 0 }, accuracy: 1e-12)
        XCTAssertEqual(events.map(\.hit), [0, 1, 2, 3, 0])
    }

    func testTheFileKeepsProbabilityRatchetAndSliceOffset() throws {
        var m = Marker(id: 0, time: 0.5, amp: 0.8, content: .clip(3))
        m.p = 0.25
        m.rep = 3
        m.repSpan = 0.1
        m.from = 1.5
        var doc = Document(tracks: [Track(name: "x", markers: MarkerList([m, Marker(id: 1, time: 1, amp: 0.5)]))])
        doc.groups[2] = Group(elements: [GroupElement(offset: 0, amp: 1, content: .clip(1), extras: m.extras)], span: 1)
        let text = DocumentFile.encode(doc)
        XCTAssertTrue(text.contains("{\"t\": 0.5, \"amp\": 0.8, \"clip\": 3, \"p\": 0.25, \"rep\": 3, \"repspan\": 0.1, \"from\": 1.5}"), text)
        XCTAssertTrue(text.contains("{\"t\": 1, \"amp\": 0.5}"), text)
        let back = try DocumentFile.decode(text)
        XCTAssertEqual(back, doc)
        XCTAssertThrowsError(try DocumentFile.decode(text.replacingOccurrences(of: "\"p\": 0.25", with: "\"p\": 2"))) { e in
            XCTAssertTrue((e as! CommandError).message.contains("p must be from 0 to 1"), "\(e)")
        }
        XCTAssertThrowsError(try DocumentFile.decode(text.replacingOccurrences(of: "\"rep\": 3", with: "\"rep\": 0")))
    }

    func testASlicesOwnEndClosesItsGateAndIsKeptInTheFile() throws {
        var slice = Marker(id: 0, time: 0.5, amp: 1, content: .clip(1))
        slice.from = 0.5
        slice.to = 0.75
        // The next slice moved later than this one's end: the gate closes at its own end, not at the next marker.
        var doc = Document(tracks: [Track(name: "s", markers: MarkerList([slice, Marker(id: 1, time: 0.85, amp: 1, content: .clip(1))]))])
        doc.transport.loopEnd = 2
        XCTAssertEqual(Schedule.events(of: doc.tracks[0], index: 0, start: 0, end: 2).map(\.gateEnd), [0.75, 2], accuracy: 1e-12)
        // A next marker before the end closes it there.
        doc.tracks[0].markers = MarkerList([slice, Marker(id: 1, time: 0.6, amp: 1, content: .clip(1))])
        XCTAssertEqual(Schedule.events(of: doc.tracks[0], index: 0, start: 0, end: 2).map(\.gateEnd), [0.6, 2], accuracy: 1e-12)
        let text = DocumentFile.encode(doc)
        XCTAssertTrue(text.contains("{\"t\": 0.5, \"amp\": 1, \"clip\": 1, \"from\": 0.5, \"to\": 0.75}"), text)
        XCTAssertEqual(try DocumentFile.decode(text), doc)
        XCTAssertEqual(try CommandParser.parse("marker add 1 clip=1 from=0.5 to=0.75")?.text, "marker add 1 clip=1 from=0.5 to=0.75")
    }

    func testProbAndRatchetCommandsAreOneStepEachWithTheirText() throws {
        let s = Fixture.session([[0, 0.5, 1]], contents: [[.clip(1), .clip(1), .clip(1)]], selectTracks: [0])
        XCTAssertEqual(try s.run(try CommandParser.parse("prob 0.5")!), "p=0.5 on 3 markers")
        XCTAssertEqual(s.document.tracks[0].markers.map(\.p), [0.5, 0.5, 0.5])
        XCTAssertEqual(try s.run(try CommandParser.parse("ratchet 4:0.1")!), "rep=4:0.1 on 3 markers")
        XCTAssertEqual(s.document.tracks[0].markers.map(\.rep), [4, 4, 4])
        XCTAssertEqual(s.document.tracks[0].markers.map(\.repSpan), [0.1, 0.1, 0.1])
        try s.run(.undo(1))
        XCTAssertEqual(s.document.tracks[0].markers.map(\.rep), [1, 1, 1])
        try s.run(.undo(1))
        XCTAssertEqual(s.document.tracks[0].markers.map(\.p), [1, 1, 1])
        for text in ["prob 0.25", "ratchet 3", "ratchet 4:0.125", "humanize time=5", "humanize time=3 amp=0.1 seed=9",
                     "groove extract 2", "groove extract 3 grid=3", "groove apply 2", "groove apply 2 time=0.5 amp=0",
                     "temper fit", "temper fit max=12 span=2"] {
            let c = try XCTUnwrap(try CommandParser.parse(text))
            XCTAssertEqual(c.text, text)
        }
        XCTAssertThrowsError(try CommandParser.parse("prob 2")) { XCTAssertEqual(($0 as! CommandError).message, "prob must be from 0 to 1, not 2") }
        XCTAssertThrowsError(try CommandParser.parse("ratchet 0")) { XCTAssertEqual(($0 as! CommandError).message, "ratchet must be a whole number from 1 to 64, not 0") }
        XCTAssertThrowsError(try CommandParser.parse("groove push 1")) { XCTAssertTrue(($0 as! CommandError).message.hasPrefix("unknown groove command 'push'")) }
    }

    func testMarkerAddTakesTheFields() throws {
        let s = Fixture.session([[]])
        let text = "marker add 1 amp=1 clip=1 p=0.5 rep=4:0.25 from=1.5"
        let c = try XCTUnwrap(try CommandParser.parse(text))
        XCTAssertEqual(c.text, text)
        try s.run(c)
        let m = s.document.tracks[0].markers[0]
        XCTAssertEqual(m.extras, MarkerExtras(p: 0.5, rep: 4, repSpan: 0.25, from: 1.5))
        XCTAssertEqual(try CommandParser.parse("marker add 2 rep=3")?.text, "marker add 2 rep=3")
        XCTAssertThrowsError(try CommandParser.parse("marker add 2 p=1.5")) {
            XCTAssertEqual(($0 as! CommandError).message, "p must be from 0 to 1, not 1.5")
        }
    }

    func testHumanizeIsTheSameForOneSeedAndOneUndoStep() throws {
        let times = (0..<16).map { Double($0) * 0.125 }
        func humanized(_ seed: Int) throws -> [Marker] {
            let s = Fixture.session([times], selectTracks: [0])
            let steps = s.history.undoSteps.count
            try s.run(try CommandParser.parse("humanize time=10 amp=0.2 seed=\(seed)")!)
            XCTAssertEqual(s.history.undoSteps.count, steps + 1)
            return Array(s.document.tracks[0].markers)
        }
        let a = try humanized(1), b = try humanized(1), c = try humanized(2)
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a.map(\.time), c.map(\.time))
        for (m, t) in zip(a, times) { XCTAssertLessThanOrEqual(abs(m.time - t), 0.010) }
        XCTAssertTrue(zip(a, times).contains { abs($0.time - $1) > 0.003 }, "moved by more than a few ms somewhere")
        XCTAssertTrue(a.allSatisfy { abs($0.amp - 0.8) <= 0.2 + 1e-12 })
        let s = Fixture.session([times], selectTracks: [0])
        try s.run(try CommandParser.parse("humanize time=10 seed=1")!)
        try s.run(.undo(1))
        XCTAssertEqual(s.times(), times)
    }

    /// A swung bar of sixteenths (beat 0.5 s, grid 4): each off-beat sixteenth late by its own amount.
    static let swungOffsets: [Double] = [0, 0.011, -0.004, 0.017, 0.002, 0.013, 0, 0.021,
                                         -0.003, 0.009, 0.001, 0.015, 0, 0.012, -0.002, 0.019]

    func testGrooveExtractThenApplyReproducesTheOffsetsAndHalvesThem() throws {
        let straight = (0..<16).map { Double($0) * 0.125 }
        let swung = zip(straight, Self.swungOffsets).map { $0 + $1 }
        let amps: [Double] = (0..<16).map { (i: Int) -> Double in i % 4 == 0 ? 0.9 : 0.5 + 0.01 * Double(i) }
        // Track 1 swung, track 2 the same bar straight, one bar later.
        let s = Fixture.session([swung, straight.map { $0 + 2 }], amps: [amps, Array(repeating: 0.6, count: 16)],
                                selectTracks: [0])
        XCTAssertEqual(try s.run(try CommandParser.parse("groove extract 3 grid=4")!),
                       "group 3: groove of 16 steps (16 with markers), 1/4 beat")
        let groove = try XCTUnwrap(s.document.groups[3].groove)
        XCTAssertEqual(groove.offsets.map { $0! }, Self.swungOffsets, accuracy: 1e-15)
        // Kept with the document.
        XCTAssertEqual(try DocumentFile.decode(DocumentFile.encode(s.document)).groups, s.document.groups)

        s.selection = [1: Set(s.document.tracks[1].markers.map(\.id))]
        try s.run(try CommandParser.parse("groove apply 3")!)
        let applied = s.times(1).enumerated().map { k, t in t - (2 + Double(k) * 0.125) }
        XCTAssertEqual(applied, Self.swungOffsets, accuracy: 1e-12)
        XCTAssertEqual(s.document.tracks[1].markers.map(\.amp), amps, accuracy: 1e-12)
        try s.run(.undo(1))
        try s.run(try CommandParser.parse("groove apply 3 time=0.5 amp=0")!)
        let halved = s.times(1).enumerated().map { k, t in t - (2 + Double(k) * 0.125) }
        XCTAssertEqual(halved, Self.swungOffsets.map { $0 / 2 }, accuracy: 1e-12)
        XCTAssertEqual(s.document.tracks[1].markers.map(\.amp), Array(repeating: 0.6, count: 16))
        XCTAssertThrowsError(try s.run(try CommandParser.parse("groove apply 4")!)) {
            XCTAssertEqual(($0 as! CommandError).message, "group 4 holds no groove (take one with 'groove extract 4')")
        }
    }

    /// The tigrigna preset (3+2 on a twelve against an even five) at slider 0.37, stamped at 1 s.
    func stampedTigrigna(noise: Double = 0, seed: UInt64 = 3) -> [Double] {
        var t = TemperamentPreset.tigrigna.temperament
        t.slider = 0.37
        var random = SeededRandom(seed: seed)
        return t.stampMarkers(at: 1, sliders: [0.37], content: nil).map { $0.time + (noise > 0 ? Double.random(in: -noise...noise, using: &random) : 0) }
    }

    func testFitFindsTheTemperamentThatMadeTheMarkers() throws {
        let span = TemperamentPreset.tigrigna.temperament.span
        let fit = try Temperament.fit(stampedTigrigna(), span: span, prefer: (12, 5))
        XCTAssertEqual(fit.temperament.top, Temperament.Row(division: 12, beats: [0, 2, 4, 6, 9]))
        XCTAssertEqual(fit.temperament.bottom.division, 5)
        XCTAssertEqual(fit.temperament.bottom.beats, [0, 1, 2, 3, 4])
        XCTAssertEqual(fit.temperament.slider, 0.37, accuracy: 1e-6)
        XCTAssertLessThan(fit.rms, 0.00001)
        XCTAssertEqual(fit.origin, 1, accuracy: 1e-9)
        for seed: UInt64 in [1, 2, 3] {
            let noisy = try Temperament.fit(stampedTigrigna(noise: 0.003, seed: seed), span: span, prefer: (12, 5))
            XCTAssertEqual(noisy.temperament.slider, 0.37, accuracy: 0.05, "seed \(seed)")
            XCTAssertEqual(noisy.temperament.top.division, 12)
            XCTAssertEqual(noisy.temperament.bottom.division, 5)
            print("tigrigna at 0.37 with ±3 ms of noise (seed \(seed)): slider \(noisy.temperament.slider), rms \(noisy.rms * 1000) ms")
        }
        // Without a preference, the simplest temperament with exactly the same result: 3+2 on a twelve against
        // five is 7:0,1,2,3,5 against five at s' = 5/12 + 7s/12, the same dots.
        let simplest = try Temperament.fit(stampedTigrigna(), span: span)
        XCTAssertEqual(simplest.temperament.top, Temperament.Row(division: 7, beats: [0, 1, 2, 3, 5]))
        XCTAssertEqual(simplest.temperament.slider, 5.0 / 12 + 7 * 0.37 / 12, accuracy: 1e-9)
        XCTAssertEqual(simplest.temperament.result().map { $0.time + 1 }, stampedTigrigna(), accuracy: 1e-12)
    }

    func testTemperFitSetsTheDesignerAndSaysWhatItFound() throws {
        let s = Fixture.session([stampedTigrigna()], selectTracks: [0])
        // The user suspects 3+2 against five: the preset's rows, at its own slider 0.5.
        try s.run(.temperPreset("tigrigna"))
        let said = try s.run(try CommandParser.parse("temper fit span=\(TemperamentPreset.tigrigna.temperament.span)")!)
        XCTAssertEqual(said, "fit 12:0,2,4,6,9 -> 5, slider 0.37, rms 0 ms")
        XCTAssertEqual(s.document.designer.top.beats, [0, 2, 4, 6, 9])
        XCTAssertEqual(s.document.designer.slider, 0.37, accuracy: 1e-6)
        XCTAssertEqual(s.undoName, "temper fit")
        s.selection = [:]
        XCTAssertThrowsError(try s.run(.temperFit(max: 16, span: nil)))
    }
}

private func XCTAssertEqual(_ a: [Double], _ b: [Double], accuracy: Double, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a.count, b.count, "\(a) vs \(b)", file: file, line: line)
    for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: accuracy, "\(a) vs \(b)", file: file, line: line) }
}

import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// `tempera import LOOP.wav`: onsets found with libaubio and refined to the attack's start, `--split` into low,
/// middle and high tracks, `--slice` so the document plays the recording back as it is.
final class AudioImportTests: XCTestCase {
    var dir = ""
    static let rate = 44_100

    override func setUp() { dir = TestPaths.temporaryDirectory("import") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Irregular, swung times (seconds): eighths swung 2:1 with a few ms of push and drag, and a quintuplet.
    static let swungTimes: [Double] = [0.100, 0.3713, 0.5102, 0.7771, 0.9049, 1.1752, 1.3137, 1.5807,
                                       1.7000, 1.8612, 2.0281, 2.1843, 2.3530, 2.6117]

    /// A click: a tone at half the sample rate decaying over 2.3 ms (10 ms long), its first sample the loudest.
    static func click(into x: inout [Float], at frame: Int, amp: Float) {
        for k in 0..<Int(0.010 * Double(rate)) where frame + k < x.count {
            x[frame + k] += amp * Float(exp(-Double(k) / 100)) * (k % 2 == 0 ? 1 : -0.6)
        }
    }

    /// A noise burst: 40 ms of seeded white noise decaying exponentially.
    static func burst(into x: inout [Float], at frame: Int, amp: Float, random: inout SeededRandom) {
        for k in 0..<Int(0.040 * Double(rate)) where frame + k < x.count {
            x[frame + k] += amp * Float(exp(-Double(k) / 400)) * Float(Double.random(in: -1...1, using: &random))
        }
    }

    func testClicksAndNoiseBurstsAreFoundWithinAMillisecond() throws {
        var x = [Float](repeating: 0, count: Int(2.8 * Double(Self.rate)))
        var random = SeededRandom(seed: 7)
        for (i, t) in Self.swungTimes.enumerated() {
            let f = Int((t * Double(Self.rate)).rounded())
            if i % 2 == 0 { Self.click(into: &x, at: f, amp: 0.8) } else { Self.burst(into: &x, at: f, amp: 0.5, random: &random) }
        }
        let found = try AudioImport.onsets(of: AudioImport.Sound(samples: x, channels: 1, sampleRate: Self.rate))
        XCTAssertEqual(found.count, Self.swungTimes.count, "\(found.map(\.time))")
        for (t, o) in zip(Self.swungTimes, found) {
            XCTAssertEqual(o.time, t, accuracy: 0.001, "onset at \(t)")
        }
        // The amplitude is the attack's peak: the clicks' 0.8 exactly.
        XCTAssertEqual(found[0].peak, 0.8, accuracy: 1e-6)
    }

    /// Kick, snare and closed hat of the default kit on three tracks at swung, irregular times (some struck together).
    static func kitDocument() -> Document {
        let kick: [Double] = [0.05, 0.55, 0.95, 1.05, 1.55, 1.80]
        let snare: [Double] = [0.30, 0.7933, 1.30, 1.6650, 1.9400]
        // Eighths swung towards triplets.
        let hat: [Double] = (0..<8).map { (k: Int) -> Double in
            let swing: Double = k % 2 == 1 ? 0.083 : 0
            return 0.05 + Double(k) * 0.25 + swing
        }
        func track(_ name: String, _ times: [Double], _ slot: Int, _ amp: Double) -> Track {
            Track(name: name, markers: MarkerList(times.map { Marker(id: 0, time: $0, amp: amp, content: .clip(slot)) }))
        }
        var doc = Document(tracks: [track("kick", kick, 1, 0.9), track("snare", snare, 2, 0.8), track("hat", hat, 3, 0.6)])
        doc.transport.loopStart = 0
        doc.transport.loopEnd = 2.3
        doc.transport.length = 2.3
        doc.transport.volume = 0.5
        return doc
    }

    /// The document rendered at 44.1 kHz (one pass, the tail cut), as mono.
    static func render(_ doc: Document, baseDirectory: String? = nil, seconds: Double) -> [Float] {
        let r = OfflineRenderer(document: doc, baseDirectory: baseDirectory, sampleRate: Double(rate), loops: 1, maxTail: 2,
                                kitDirectory: TestPaths.kitDirectory)
        XCTAssertEqual(r.warnings, [])
        let stereo = r.renderAll()
        let frames = Int(seconds * Double(rate))
        return (0..<frames).map { $0 < stereo.count / 2 ? stereo[2 * $0] : 0 }
    }

    func testAKitRenderedByTemperaGivesItsOnsetsBack() throws {
        let doc = Self.kitDocument()
        let x = Self.render(doc, seconds: 2.3)
        let sound = AudioImport.Sound(samples: x, channels: 1, sampleRate: Self.rate)
        let found = AudioImport.split(try AudioImport.onsets(of: sound), sound: sound)
        let truth = Array(Set(doc.tracks.flatMap { $0.markers.map(\.time) })).sorted()
        XCTAssertEqual(found.count, truth.count, "found \(found.map(\.time))")
        var errors: [Double] = []
        for t in truth {
            let nearest = found.min { abs($0.time - t) < abs($1.time - t) }!
            errors.append(abs(nearest.time - t))
        }
        errors.sort()
        let median = errors[errors.count / 2], worst = errors.last!
        print("kit render: \(truth.count) onsets, median error \(median * 1000) ms, worst \(worst * 1000) ms")
        XCTAssertLessThanOrEqual(median, 0.002)
        XCTAssertLessThanOrEqual(worst, 0.005)

        // --split: each hit on its own track (kick low, snare middle, hat high).
        var right = 0, hits = 0, wrong = 0
        for (ti, band) in AudioImport.Band.allCases.enumerated() {
            let mine = found.filter { $0.bands.contains(band) }.map(\.time)
            let expected = doc.tracks[ti].markers.map(\.time)
            hits += expected.count
            right += expected.filter { t in mine.contains { abs($0 - t) < 0.005 } }.count
            wrong += mine.filter { t in !expected.contains { abs($0 - t) < 0.005 } }.count
        }
        print("split: \(right) of \(hits) hits on their tracks, \(wrong) on a wrong track")
        XCTAssertGreaterThanOrEqual(Double(right) / Double(hits), 0.95)
        XCTAssertLessThanOrEqual(Double(wrong) / Double(hits), 0.1)
    }

    /// The kit loop written as a file, and its samples.
    func loopFile() throws -> (path: String, samples: [Float]) {
        let x = Self.render(Self.kitDocument(), seconds: 2.3)
        let path = dir + "/loop.wav"
        try AudioFile.write(x, sampleRate: Self.rate, to: path, as: .wavFloat)
        return (path, x)
    }

    /// Residual of `y` against `x` in dB (energy of the difference over the energy of `x`), frames in `range`.
    static func residual(_ y: [Float], _ x: [Float], _ range: Range<Int>) -> Double {
        var e = 0.0, d = 0.0
        for i in range { e += Double(x[i] * x[i]); d += Double((y[i] - x[i]) * (y[i] - x[i])) }
        return 10 * log10(max(d, 1e-30) / e)
    }

    func testASlicedLoopRendersAsTheOriginalAndOneSliceMovesAlone() throws {
        let (path, x) = try loopFile()
        let out = dir + "/sliced.json"
        let r = Spawn.run(TestPaths.binary, ["import", path, "-o", out, "--slice"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("onsets in 2.3 s"), r.stderr)
        var doc = try DocumentFile.load(out)
        XCTAssertEqual(doc.slot(1).file, "loop.wav")
        XCTAssertEqual(doc.slot(1).mode, .gate)
        let markers = Array(doc.tracks[0].markers)
        XCTAssertEqual(markers.first?.time, 0)
        XCTAssertTrue(markers.allSatisfy { $0.from == $0.time && $0.amp == 1 && $0.content == .clip(1) })
        XCTAssertTrue(try String(contentsOfFile: out, encoding: .utf8).contains("\"from\": "))

        let y = Self.render(doc, baseDirectory: dir, seconds: 2.3)
        let whole = Self.residual(y, x, 0..<x.count)
        print("sliced loop against the original: \(whole) dB")
        XCTAssertLessThan(whole, -60)

        // Slice 3 (a hit with slices either side) moved 10 ms later: the output is the original everywhere
        // except from its old start to the next slice: silence once the slice before it has ended at its own end
        // (its release), then the original 10 ms late.
        let k = 3, delta = 441
        let t0 = Int((markers[k].time * Double(Self.rate)).rounded()), t1 = Int((markers[k + 1].time * Double(Self.rate)).rounded())
        doc.tracks[0].markers = MarkerList(markers.enumerated().map { i, m in
            var m = m
            if i == k { m.time += Double(delta) / Double(Self.rate) }
            return m
        })
        let moved = Self.render(doc, baseDirectory: dir, seconds: 2.3)
        var expected = x
        for i in t0..<(t0 + delta) { expected[i] = 0 }
        for i in (t0 + delta)..<t1 { expected[i] = x[i - delta] }
        let ramp = Int(AudioImport.sliceFade / 1000 * Double(Self.rate)) + 2
        var outside = Array(0..<t0) + Array((t1 + ramp)..<x.count)
        XCTAssertLessThan(Self.residual(moved, expected, 0..<t0), -60)
        XCTAssertEqual(((t0 + ramp)..<(t0 + delta)).map { abs(moved[$0]) }.max(), 0, "the moved slice's attack where it was")
        XCTAssertLessThan(Self.residual(moved, expected, (t1 + ramp)..<x.count), -60)
        outside = Array((t0 + delta + ramp)..<t1)
        XCTAssertLessThan(Self.residual(moved, expected, outside[0]..<(outside.last! + 1)), -60, "the moved slice")
        // And it did move: against the unmoved original that part differs.
        XCTAssertGreaterThan(Self.residual(moved, x, (t0 + delta + ramp)..<t1), -20)
    }

    func testTheCommandLineSplitsAndRefusesSplitWithSlice() throws {
        let (path, _) = try loopFile()
        let out = dir + "/split.json"
        let r = Spawn.run(TestPaths.binary, ["import", path, "-o", out, "--split"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let doc = try DocumentFile.load(out)
        XCTAssertEqual(doc.tracks.map(\.name), ["low", "middle", "high"])
        XCTAssertEqual(doc.tracks.map { $0.markers.first?.content }, [.clip(1), .clip(2), .clip(3)])
        XCTAssertTrue(r.stderr.hasPrefix("tempera: \(path): 15 onsets in 2.3 s, tempo "), r.stderr)
        XCTAssertTrue(r.stderr.contains("; low 6, middle ") && r.stderr.hasSuffix(", high 8\n"), r.stderr)
        let both = Spawn.run(TestPaths.binary, ["import", path, "-o", dir + "/both.json", "--split", "--slice"])
        XCTAssertEqual(both.status, 1)
        XCTAssertEqual(both.stderr, "tempera: --split and --slice do not go together (a slice plays until the next slice of its track)\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/both.json"))
    }

    /// libaubio is opened only when onsets are looked for: the program does not link it (nor, through it,
    /// libavcodec, libavformat and the hundred libraries they bring, some 15 MB resident from start-up), and
    /// importing a recording still finds every onset.
    func testTheProgramDoesNotLinkLibaubioYetImportsARecording() throws {
        let ldd = Spawn.run("/usr/bin/ldd", [TestPaths.binary])
        XCTAssertEqual(ldd.status, 0, ldd.stderr)
        XCTAssertTrue(ldd.stdout.contains("libsndfile.so.1 => "), "ldd lists what the program links: \(ldd.stdout)")
        XCTAssertFalse(ldd.stdout.contains("libaubio"), ldd.stdout)
        XCTAssertFalse(ldd.stdout.contains("libavcodec"), ldd.stdout)
        let (path, _) = try loopFile()
        let out = dir + "/loop.json"
        let r = Spawn.run(TestPaths.binary, ["import", path, "-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("tempera: \(path): 15 onsets in 2.3 s, tempo "), r.stderr)
        XCTAssertEqual(try DocumentFile.load(out).tracks.map { $0.markers.count }, [15])
    }

    /// Without libaubio a recording is refused in one line that says what to install, and nothing is written.
    func testWithoutLibaubioAnImportIsOneLineSayingWhatToInstall() throws {
        guard case .failure(let error) = AudioImport.Aubio.open("libaubio-absent.so.5") else {
            return XCTFail("a library that is not there opened")
        }
        XCTAssertEqual(error.description, "onset detection needs libaubio, which did not load (libaubio-absent.so.5: cannot open "
            + "shared object file: No such file or directory): install it (Debian's libaubio5)")
        // The program itself, with the installed library hidden behind an empty file (a private mount namespace).
        let (path, _) = try loopFile()
        let out = dir + "/loop.json"
        let library = "/usr/lib/x86_64-linux-gnu/libaubio.so.5"
        guard FileManager.default.fileExists(atPath: library) else { throw XCTSkip("no \(library) to hide") }
        let script = "mount --bind /dev/null \(library) || exit 97; exec '\(TestPaths.binary)' import '\(path)' -o '\(out)'"
        let r = Spawn.run("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", script])
        guard r.status != 97, !r.stderr.contains("unshare failed") else { throw XCTSkip("no mount namespace here: \(r.stderr)") }
        XCTAssertEqual(r.status, 1)
        // The loader names the file where it found it (/lib or /usr/lib: the same file on a merged /usr).
        XCTAssertTrue(r.stderr.hasPrefix("tempera: onset detection needs libaubio, which did not load (/"), r.stderr)
        XCTAssertTrue(r.stderr.hasSuffix("/libaubio.so.5: file too short): install it (Debian's libaubio5)\n"), r.stderr)
        XCTAssertEqual(r.stderr.filter { $0 == "\n" }.count, 1, r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    /// A drum loop of Debian's sonic-pi-samples (CC0), the Amen break: its onsets and the tempo they fit.
    func testARealDrumLoop() throws {
        let path = "/usr/share/sonic-pi/samples/loop_amen.flac"
        guard FileManager.default.fileExists(atPath: path) else {
            XCTFail("sonic-pi-samples is missing: install it (make test does)")
            return
        }
        let sound = try AudioImport.read(path)
        let found = try AudioImport.onsets(of: sound)
        let grid = try XCTUnwrap(AudioImport.grid(found.map(\.time)))
        print("loop_amen.flac: \(found.count) onsets at \(found.map { (($0.time * 10000).rounded() / 10) }) ms; "
              + "grid \(grid.step * 1000) ms, rms \(grid.rms * 1000) ms, tempo \(grid.bpm) BPM")
        // One bar of the break in 1.753 s: eighths at about 137 BPM.
        XCTAssertGreaterThanOrEqual(found.count, 6)
        XCTAssertEqual(grid.bpm, 137, accuracy: 2)
        XCTAssertLessThan(grid.rms, 0.010)
    }
}

/// Probability and ratchets as rendered, and fitting a temperament through audio.
final class GrooveAudioTests: XCTestCase {
    /// A document of one track on the default kit's rim (slot 6), one marker, looping every 50 ms.
    func document(_ change: (inout Marker) -> Void) -> Document {
        var m = Marker(id: 0, time: 0, amp: 0.8, content: .clip(6))
        change(&m)
        var doc = Document(tracks: [Track(name: "x", markers: MarkerList([m]))])
        doc.transport.loopEnd = 0.05
        doc.transport.length = 0.05
        doc.transport.volume = 1
        return doc
    }

    func render(_ doc: Document, loops: Int) -> [Float] {
        OfflineRenderer(document: doc, baseDirectory: nil, sampleRate: 48_000, loops: loops, maxTail: 0,
                        kitDirectory: TestPaths.kitDirectory).renderAll()
    }

    func testHalfProbabilityRendersTheSameTwiceAndSoundsWhatTheScheduleSays() {
        let doc = document { $0.p = 0.5 }
        let a = render(doc, loops: 1000), b = render(doc, loops: 1000)
        XCTAssertEqual(a, b)
        // Which passes sound: the first frame of each pass is the rim's first sample (loud) or silence.
        let sounded = (0..<1000).filter { (k: Int) -> Bool in
            let start = 2 * k * 2400
            var loud: Float = 0
            for i in start..<(start + 200) { loud = max(loud, abs(a[i])) }
            return loud > 1e-4
        }
        let scheduled = Schedule(document: doc, sampleRate: 48_000).onsets(loops: 1000).map(\.loop)
        XCTAssertEqual(sounded, scheduled)
        XCTAssertEqual(Double(sounded.count), 500, accuracy: 50)
        print("p=0.5 over 1000 passes: \(sounded.count) sounded")
    }

    func testEventsListsTheSamePassesEveryTime() throws {
        let dir = TestPaths.temporaryDirectory("groove-events")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/p.json"
        try DocumentFile.save(document { $0.p = 0.5 }, to: path)
        let a = Spawn.run(TestPaths.binary, ["events", path, "--loops", "1000"])
        let b = Spawn.run(TestPaths.binary, ["events", path, "--loops", "1000"])
        XCTAssertEqual(a.status, 0, a.stderr)
        XCTAssertEqual(a.stdout, b.stdout)
        let lines = a.stdout.split(separator: "\n").count
        XCTAssertEqual(Double(lines), 500, accuracy: 50)
        XCTAssertEqual(lines, Schedule(document: document { $0.p = 0.5 }, sampleRate: 48_000).onsets(loops: 1000).count)
    }

    func testFourRatchetHitsSoundAlikeToTheFrame() {
        // Four hits over the 50 ms loop, 600 frames apart: the render is the single hit's sound laid down at
        // frames 0, 600, 1200 and 1800, each at the marker's amplitude.
        let x = render(document { $0.rep = 4; $0.amp = 0.5 }, loops: 1)
        let single = render(document { $0.amp = 0.5 }, loops: 1)
        var expected = [Float](repeating: 0, count: 2 * 2000)
        for k in 0..<4 {
            for n in (k * 600)..<2000 { for c in 0..<2 { expected[2 * n + c] += single[2 * (n - k * 600) + c] } }
        }
        assertSamplesEqual(Array(x[0..<4000]), expected, accuracy: 1e-6)
    }

    func testAFitThroughAudio() throws {
        // Tigrigna at 0.37 over two seconds, stamped at 0.1 s on the rim, rendered at 44.1 kHz, imported, fitted.
        var t = TemperamentPreset.tigrigna.temperament
        t.span = 2
        t.slider = 0.37
        let markers = t.stampMarkers(at: 0.1, sliders: [0.37], content: .clip(6))
        var doc = Document(tracks: [Track(name: "five", markers: MarkerList(markers))])
        doc.transport.loopEnd = 2.2
        doc.transport.length = 2.2
        let x = AudioImportTests.render(doc, seconds: 2.2)
        let found = try AudioImport.onsets(of: AudioImport.Sound(samples: x, channels: 1, sampleRate: 44_100))
        XCTAssertEqual(found.count, 5)
        let fit = try Temperament.fit(found.map(\.time), span: 2, prefer: (12, 5))
        print("through audio: slider \(fit.temperament.slider), rms \(fit.rms * 1000) ms, onsets \(found.map(\.time))")
        XCTAssertEqual(fit.temperament.top.beats, [0, 2, 4, 6, 9])
        XCTAssertEqual(fit.temperament.slider, 0.37, accuracy: 0.01)
        XCTAssertLessThan(fit.rms, 0.001)
    }
}

/// Live play on the null output plays probability, ratchets and slice offsets as the offline render does.
final class GrooveLiveTests: XCTestCase {
    func testLivePlayMatchesTheRenderWithProbabilityRatchetsAndSlices() throws {
        let dir = TestPaths.temporaryDirectory("groove-live")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A ramp, so where a voice starts in the sound shows in its samples.
        let ramp = (0..<4_800).map { Float($0) / 4_800 * 0.5 }
        let file = try Fixture.wav(ramp, in: dir, name: "ramp.wav")
        var a = Marker(id: 0, time: 0, amp: 1, content: .clip(1)); a.p = 0.5
        var b = Marker(id: 1, time: 0.1, amp: 1, content: .clip(1)); b.rep = 3; b.repSpan = 0.03
        var c = Marker(id: 2, time: 0.2, amp: 1, content: .clip(1)); c.from = 0.05
        var doc = Fixture.document(tracks: [], slots: [ClipSlot(file: file)], span: 0.3)
        doc.tracks = [Track(name: "x", markers: MarkerList([a, b, c]))]
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        _ = pump(engine, 4_800)
        engine.play(loops: 8)
        let offline = OfflineRenderer(document: doc, baseDirectory: dir, loops: 8, maxTail: 1).renderAll()
        let live = pump(engine, offline.count / 2)
        assertSamplesEqual(live, offline)
        // The first marker sounded in the passes its probability chose, in both.
        let first = Schedule(document: doc, sampleRate: 48_000).onsets(loops: 8).filter { abs($0.time - Double($0.loop) * 0.3) < 1e-9 }
        let chosen = (0..<8).filter { Schedule.sounds(probability: 0.5, seed: doc.seed, key: Schedule.randomKey(time: 0, track: 0), pass: $0) }
        XCTAssertEqual(first.map(\.loop), chosen)
        XCTAssertTrue(chosen.count > 0 && chosen.count < 8, "\(chosen)")
    }
}

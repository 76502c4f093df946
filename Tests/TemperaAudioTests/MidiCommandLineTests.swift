import Foundation
import TemperaCore
import TemperaTestSupport
import XCTest

/// `tempera export` and `tempera import` checked against an independent MIDI implementation: Python's `mido`
/// (Debian's python3-mido, which `make test` installs) reads what tempera writes and writes what tempera reads.
final class MidiCommandLineTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("midi") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Runs a Python program that imports mido and returns what it printed.
    func python(_ program: String, _ args: [String] = []) throws -> String {
        let script = dir + "/script-\(UUID().uuidString.prefix(6)).py"
        try program.write(toFile: script, atomically: true, encoding: .utf8)
        // Debian's interpreter, where python3-mido lives, before whatever `python3` the PATH finds first.
        let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
        let r = Spawn.run("/usr/bin/env", [python, script] + args)
        if r.stderr.contains("No module named 'mido'") {
            XCTFail("mido is missing: install python3-mido (make test does)")
        }
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdout
    }

    func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    /// `tempera events` lines as (track, time, amp).
    func events(_ path: String, loops: Int = 1) throws -> [(track: Int, time: Double, amp: Double)] {
        let r = try TemperaProgram.run(["events", path, "--loops", String(loops)])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try r.stdout.split(separator: "\n").map { line in
            let o = try json(String(line)) as! [String: Any]
            return ((o["track"] as! NSNumber).intValue, (o["time"] as! NSNumber).doubleValue,
                    (o["amp"] as! NSNumber).doubleValue)
        }
    }

    static let reader = """
        import json, sys, mido
        f = mido.MidiFile(sys.argv[1])
        out = {"type": f.type, "tpb": f.ticks_per_beat, "tracks": []}
        for t in f.tracks:
            tick, tr = 0, {"name": None, "on": [], "off": [], "tempo": [], "meter": []}
            for m in t:
                tick += m.time
                if m.type == "track_name": tr["name"] = m.name
                elif m.type == "set_tempo": tr["tempo"].append([tick, m.tempo])
                elif m.type == "time_signature": tr["meter"].append([m.numerator, m.denominator])
                elif m.type == "note_on" and m.velocity > 0: tr["on"].append([tick, m.channel, m.note, m.velocity])
                elif m.type == "note_off" or m.type == "note_on": tr["off"].append([tick, m.channel, m.note])
            out["tracks"].append(tr)
        print(json.dumps(out))
        """

    func testMidoReadsEveryNoteOnAtTheTickOfItsPlaybackTime() throws {
        var slots = Document.defaultKit
        slots[1] = ClipSlot(name: "lead", note: 69, mode: .gate)
        let r2 = 2.0.squareRoot() / 4
        func line(_ name: String, _ items: [(Double, Double, Content?)]) -> Track {
            Track(name: name, markers: MarkerList(items.enumerated().map { i, x in
                Marker(id: MarkerID(i), time: x.0, amp: x.1, content: x.2)
            }))
        }
        let doc = Document(tracks: [
            line("kick", [(0, 1, .clip(1)), (0.5, 0.5, .clip(1)), (0.625, 0.8, .rest), (1.5, 0.004, .clip(1))]),
            line("canon", (0..<6).map { (Double($0) * r2, 0.45, .clip(10)) }),
            line("lead", [(0.25, 0.7, .clip(2)), (0.75, 0.7, .hold), (1.25, 0.7, nil), (1.75, 0.9, .clip(2))]),
        ], slots: slots, transport: Transport(tempo: 1.25, loopStart: 0, loopEnd: 2, loopOn: true, length: 2))
        let path = dir + "/song.json"
        try DocumentFile.save(doc, to: path)
        let run = try TemperaProgram.run(["export", path, "-o", dir + "/song.mid", "--loops", "3"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "")

        let file = try json(try python(Self.reader, [dir + "/song.mid"])) as! [String: Any]
        XCTAssertEqual(file["type"] as? Int, 1)
        XCTAssertEqual(file["tpb"] as? Int, 960)
        let tracks = file["tracks"] as! [[String: Any]]
        XCTAssertEqual(tracks.map { $0["name"] as? String }, ["tempo", "kick", "canon", "lead"])
        // 150 BPM (tempo x1.25 of a 0.5 s beat): 400,000 µs a quarter; 4/4.
        let bpm = 60 * 1.25 / 0.5
        XCTAssertEqual(tracks[0]["tempo"] as! [[Int]], [[0, 400_000]])
        XCTAssertEqual(tracks[0]["meter"] as! [[Int]], [[4, 4]])

        let played = try events(path, loops: 3)
        for t in 1...3 {
            let ons = tracks[t]["on"] as! [[Int]]
            let expected = played.filter { $0.track == t }
            XCTAssertEqual(ons.map { $0[0] }, expected.map { Int(($0.time * 960 * bpm / 60).rounded()) }, "track \(t)")
            XCTAssertEqual(ons.map { $0[3] }, expected.map { max(1, Int(($0.amp * 127).rounded())) }, "track \(t)")
            XCTAssertEqual(Set(ons.map { $0[1] }), [t == 3 ? 0 : 9], "drums on channel 10, the note on channel 1")
            XCTAssertEqual(Set(ons.map { $0[2] }), Set([[36], [56], [69]][t - 1]))
            let offs = tracks[t]["off"] as! [[Int]]
            XCTAssertEqual(offs.count, ons.count, "every note ends")
        }
        // The canon's second marker, sqrt(2)/4 s: 0.7071 beats of 960 ticks.
        XCTAssertEqual((tracks[2]["on"] as! [[Int]])[1][0], 679)
        XCTAssertEqual((tracks[1]["on"] as! [[Int]]).map { $0[3] }, [127, 64, 1, 127, 64, 1, 127, 64, 1])
        // The lead's gate holds through the `+` and closes at the next marker, 1.25 s: 1 s at x1.25.
        XCTAssertEqual((tracks[3]["off"] as! [[Int]])[0][0], 2400)
    }

    func testALayeredSlotsNoteEndsWithTheLayerThatSoundsAndAMissingKitIsNotMentioned() throws {
        // A Hydrogen kit's kick: two velocity layers, no file of its own; the default kit is missing.
        try Fixture.wav(Fixture.block(frames: 21_360, level: 0.5), in: dir, name: "hard.wav")   // 0.445 s
        try Fixture.wav(Fixture.block(frames: 9_600, level: 0.2), in: dir, name: "soft.wav")    // 0.2 s
        var slots = Array(repeating: ClipSlot(), count: 16)
        slots[0] = ClipSlot(name: "kick", layers: [ClipSlot.Layer(file: "soft.wav", min: 0, max: 0.5),
                                                   ClipSlot.Layer(file: "hard.wav", min: 0.5, max: 1)])
        let doc = Document(tracks: [Track(name: "kick", markers: MarkerList([
            Marker(id: 0, time: 0, amp: 1, content: .clip(1)), Marker(id: 1, time: 1, amp: 0.3, content: .clip(1)),
        ]))], slots: slots, transport: Transport(tempo: 1, loopStart: 0, loopEnd: 2, loopOn: true, length: 2))
        let path = dir + "/kit.json"
        try DocumentFile.save(doc, to: path)
        let run = Spawn.run(TestPaths.binary, ["export", path, "-o", dir + "/kit.mid"],
                            environment: ["TEMPERA_SAMPLES": dir + "/no-kit"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "", "the slot's layers sound, never kit/note.wav")
        let file = try json(try python(Self.reader, [dir + "/kit.mid"])) as! [String: Any]
        let track = (file["tracks"] as! [[String: Any]])[1]
        // 120 BPM, 1,920 ticks a second: the hard layer ends at 0.445 s (tick 854), the soft one 0.2 s after 1 s.
        XCTAssertEqual((track["on"] as! [[Int]]).map { $0[0] }, [0, 1920])
        XCTAssertEqual((track["off"] as! [[Int]]).map { $0[0] }, [854, 2304])
    }

    static let songReader = """
        import json, sys, mido
        f = mido.MidiFile(sys.argv[1])
        tempos, tick = [], 0
        for m in f.tracks[0]:
            tick += m.time
            if m.type == "set_tempo": tempos.append([tick, m.tempo])
        # mido's clock: seconds from the file's own tempo map; ticks counted per track.
        clock, seconds = 0.0, []
        for m in f:
            clock += m.time
            if m.type == "note_on" and m.velocity > 0: seconds.append(clock)
        ticks = []
        for i, t in enumerate(f.tracks[1:]):
            tick = 0
            for m in t:
                tick += m.time
                if m.type == "note_on" and m.velocity > 0: ticks.append([tick, i + 1])
        print(json.dumps({"tempos": tempos, "seconds": seconds, "ticks": sorted(ticks)}))
        """

    func testASongWithTwoTemposHasTempoEventsAtItsSectionsAndNotesAtTheirSongTimes() throws {
        let r2 = 2.0.squareRoot() / 4
        let track = Track(name: "hits", markers: MarkerList([0, 0.25, r2, 0.7, 1, 1.5, 1.75].enumerated().map {
            Marker(id: MarkerID($0.offset), time: $0.element, amp: 0.8, content: .clip(1))
        }))
        var doc = Document(tracks: [track], transport: Transport(tempo: 1, loopStart: 0, loopEnd: 2, loopOn: true, length: 2))
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 1, repeats: 2),
                                   Song.Section(name: "B", start: 1, end: 2, repeats: 1, tempo: 1.5),
                                   Song.Section(name: "A", start: 0, end: 1, repeats: 1)])
        let path = dir + "/song.json"
        try DocumentFile.save(doc, to: path)
        let run = try TemperaProgram.run(["export", path, "-o", dir + "/song.mid", "--song", "--loops", "2"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let out = try json(try python(Self.songReader, [dir + "/song.mid"])) as! [String: Any]
        // 120 BPM, 180 BPM from beat 4 (two passes of A), 120 again from beat 6, and so on in the second pass.
        XCTAssertEqual(out["tempos"] as! [[Int]], [[0, 500_000], [3840, 333_333], [5760, 500_000], [11_520, 333_333],
                                                   [13_440, 500_000]])
        let r = try TemperaProgram.run(["events", path, "--song", "--loops", "2"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = try r.stdout.split(separator: "\n").map { try json(String($0)) as! [String: NSNumber] }
        // The tick of a note counts the beats of everything before it: sections are 4, 2 and 2 beats a song pass,
        // and a marker t of a section over [A, B) is (t - A)/beat beats into its pass.
        var expected: [Int] = []
        let sections: [(start: Double, end: Double, repeats: Int, before: Double)] = [(0, 1, 2, 0), (1, 2, 1, 4), (0, 1, 1, 6)]
        for m in 0..<2 {
            for s in sections {
                for k in 0..<s.repeats {
                    for t in doc.tracks[0].markers.map(\.time) where t >= s.start && t < s.end {
                        expected.append(Int(((Double(m) * 8 + s.before + Double(k) * 2 + (t - s.start) / 0.5) * 960).rounded()))
                    }
                }
            }
        }
        let ticks = (out["ticks"] as! [[Int]]).map { $0[0] }
        let seconds = (out["seconds"] as! [NSNumber]).map(\.doubleValue)
        let times = lines.map { $0["time"]!.doubleValue }
        XCTAssertEqual(ticks, expected.sorted())
        XCTAssertEqual(seconds.count, times.count)
        // Every note where the song plays it, to half a tick at 180 BPM (plus the tempo's whole microseconds).
        for (s, t) in zip(seconds, times) { XCTAssertEqual(s, t, accuracy: 0.5 / 2880 + 1e-5) }
        // The marker at sqrt(2)/4 in B's tempo-free beats: pass 0 of A is 0.7071 beats = 678.8 ticks.
        XCTAssertTrue(ticks.contains(679))
        // In the second pass of A: one pass (2 beats) later.
        XCTAssertTrue(ticks.contains(1920 + 679))
    }

    static let writer = """
        import json, sys, mido
        tpb = 480
        # (tick, µs per quarter): 120 BPM, then three changes.
        tempos = [(0, 500000), (1000, 612345), (2222, 433333), (3001, 750000)]
        def seconds(tick):
            s, last_tick, last_tempo = 0.0, 0, 500000
            for t, us in tempos:
                if t > tick: break
                s += mido.tick2second(t - last_tick, tpb, last_tempo)
                last_tick, last_tempo = t, us
            return s + mido.tick2second(tick - last_tick, tpb, last_tempo)
        drums = [(0, 36, 127), (240, 42, 64), (480, 42, 64), (719, 38, 100), (1000, 36, 90), (1001, 42, 3),
                 (1500, 38, 101), (2222, 36, 127), (2500, 42, 50), (3001, 38, 77), (3500, 36, 64), (3777, 42, 1)]
        melody = [(120, 69, 80, 600), (1100, 72, 90, 1900), (2300, 69, 100, 3300)]
        def track_of(events):
            # (tick, message) -> delta times; note offs before note ons at one tick.
            events.sort(key=lambda e: (e[0], e[1].type == "note_on" and e[1].velocity > 0))
            t, last = mido.MidiTrack(), 0
            for tick, m in events:
                t.append(m.copy(time=tick - last))
                last = tick
            return t
        tempo_events = [(tick, mido.MetaMessage("set_tempo", tempo=us)) for tick, us in tempos]
        drum_events = [(tick, mido.Message("note_on", channel=9, note=n, velocity=v)) for tick, n, v in drums]
        drum_events += [(tick + 30, mido.Message("note_on", channel=9, note=n, velocity=0)) for tick, n, v in drums]
        melody_events = []
        for on, n, v, off in melody:
            melody_events += [(on, mido.Message("note_on", channel=0, note=n, velocity=v)),
                              (off, mido.Message("note_off", channel=0, note=n, velocity=0))]
        f0 = mido.MidiFile(type=0, ticks_per_beat=tpb)
        f0.tracks.append(track_of(tempo_events + drum_events + melody_events))
        f0.save(sys.argv[1])
        f1 = mido.MidiFile(type=1, ticks_per_beat=tpb)
        for events in (tempo_events, drum_events, melody_events):
            f1.tracks.append(track_of(events))
        f1.save(sys.argv[2])
        notes = [[9, n, seconds(t), v] for t, n, v in drums] + [[0, n, seconds(t), v] for t, n, v, _ in melody]
        # mido's own clock for the same file, to show the two agree.
        clock, played = 0.0, []
        for m in mido.MidiFile(sys.argv[1]):
            clock += m.time
            if m.type == "note_on" and m.velocity > 0: played.append(clock)
        print(json.dumps({"notes": notes, "played": played}))
        """

    func testFilesMidoWritesImportWithTheirTimesToTheMicrosecond() throws {
        let type0 = dir + "/type0.mid", type1 = dir + "/type1.mid"
        let out = try json(try python(Self.writer, [type0, type1])) as! [String: Any]
        let notes = (out["notes"] as! [[NSNumber]]).map {
            (channel: $0[0].intValue, note: $0[1].intValue, time: $0[2].doubleValue, velocity: $0[3].intValue)
        }
        let played = (out["played"] as! [NSNumber]).map(\.doubleValue)
        XCTAssertEqual(played.count, notes.count)
        for (a, b) in zip(played, notes.map(\.time).sorted()) { XCTAssertEqual(a, b, accuracy: 1e-9) }

        // Running status: mido writes a note on of channel 10 right after another without its status byte.
        let bytes = [UInt8](FileManager.default.contents(atPath: type0)!)
        let ons = notes.filter { $0.channel == 9 }.count * 2
        XCTAssertLessThan(bytes.filter { $0 == 0x99 }.count, ons)

        // Tracks come in (channel, note) order.
        let keys = Set(notes.map { [$0.channel, $0.note] }).sorted { ($0[0], $0[1]) < ($1[0], $1[1]) }
        for source in [type0, type1] {
            let doc = dir + "/imported.json"
            let r = try TemperaProgram.run(["import", source, "-o", doc])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stderr, "")
            let played = try events(doc)
            XCTAssertEqual(played.count, notes.count, source)
            for (i, key) in keys.enumerated() {
                let want = notes.filter { [$0.channel, $0.note] == key }.sorted { $0.time < $1.time }
                let got = played.filter { $0.track == i + 1 }
                XCTAssertEqual(got.count, want.count, "\(source) \(key)")
                for (g, w) in zip(got, want) {
                    XCTAssertEqual(g.time, w.time, accuracy: 1e-6, "\(source) \(key)")
                    XCTAssertEqual(g.amp, Double(w.velocity) / 127, accuracy: 1e-12)
                }
            }
        }
    }

    func testBrokenMidiFilesAreOneLineAndWriteNothing() throws {
        let cases: [(String, [UInt8])] = [
            ("smpte.mid", [0x4D, 0x54, 0x68, 0x64, 0, 0, 0, 6, 0, 0, 0, 1, 0xE7, 0x28]
                + [0x4D, 0x54, 0x72, 0x6B, 0, 0, 0, 4, 0x00, 0xFF, 0x2F, 0x00]),
            ("cut.mid", [0x4D, 0x54, 0x68, 0x64, 0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0, 0x4D, 0x54, 0x72, 0x6B, 0, 0, 0, 9, 0x00]),
            ("text.mid", Array("hello".utf8)),
        ]
        for (name, bytes) in cases {
            let path = dir + "/" + name
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            let r = try TemperaProgram.run(["import", path, "-o", dir + "/out.json"])
            XCTAssertEqual(r.status, 1, name)
            XCTAssertEqual(r.stderr.filter { $0 == "\n" }.count, 1, r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix(path + ": "), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.json"))
        }
    }
}

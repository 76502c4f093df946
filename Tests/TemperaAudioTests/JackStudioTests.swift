import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// tempera's ports as a studio routes them, through a private JACK server: per-track and per-slot outputs beside
/// the mix, MIDI clock on its own port, the client's name and connections, and a second instance.
final class JackStudioTests: JackTestCase {
    override var directoryName: String { "jack-studio" }

    /// Two tracks on a loop of 2 s: track 1 plays slot 1 at 0 and 1 s, track 2 slot 2 at 0.5 and 1.5 s.
    func twoTracks() throws -> Document {
        let a = try Fixture.wav(Fixture.block(frames: 200, level: 0.5), in: dir, name: "a.wav")
        let b = try Fixture.wav(Fixture.block(frames: 200, level: 0.25), in: dir, name: "b.wav")
        var kick = ClipSlot(name: "kick", file: a)
        kick.midiChannel = 10
        var slots = [kick, ClipSlot(name: "snare", file: b)]
        while slots.count < 16 { slots.append(ClipSlot()) }
        func marker(_ id: Int, _ time: Double, _ slot: Int) -> Marker {
            Marker(id: MarkerID(id), time: time, amp: 1, content: .clip(slot))
        }
        let t = Transport(tempo: 1, volume: 1, loopStart: 0, loopEnd: 2, loopOn: true, length: 2)
        return Document(tracks: [Track(name: "t1", markers: MarkerList([marker(0, 0, 1), marker(1, 1, 1)])),
                                 Track(name: "t2", markers: MarkerList([marker(2, 0.5, 2), marker(3, 1.5, 2)]))],
                        slots: slots, transport: t)
    }

    /// The ports of the server's clients, and for each the ports it is connected to (`jack_lsp -c`).
    func connections() -> [String: [String]] {
        let r = Spawn.run("/usr/bin/jack_lsp", ["-c"], environment: ["JACK_DEFAULT_SERVER": servers.last?.name ?? ""])
        var out: [String: [String]] = [:]
        var current = ""
        for line in r.stdout.split(separator: "\n") {
            if line.hasPrefix(" ") || line.hasPrefix("\t") {
                out[current, default: []].append(line.trimmingCharacters(in: .whitespaces))
            } else {
                current = String(line)
                out[current] = out[current] ?? []
            }
        }
        return out
    }

    /// Plays `doc` with `outputs` while one client records the mix and one each of `pairs` (two port names); the
    /// onsets each heard (absolute frames).
    func recordOutputs(_ doc: Document, outputs: JackOptions.Outputs, pairs: [[String]]) throws -> (mix: [Int], each: [[Int]], ports: [String]) {
        let server = try startServer()
        let mix = try server.startClient()
        let recs = try pairs.enumerated().map { try server.startClient(name: "rec\($0.offset)", ports: $0.element, midiPorts: []) }
        let engine = AudioEngine(output: .jack, jack: JackOptions(outputs: outputs))
        XCTAssertEqual(engine.load(document: doc, baseDirectory: dir), [])
        engine.start()
        XCTAssertTrue(waitUntil(5) { isRunning(engine) })
        XCTAssertNotNil(mix.waitReady())
        for r in recs { XCTAssertNotNil(r.waitReady()) }
        let wired = connections()
        let ports = wired.keys.filter { $0.hasPrefix("tempera:") }.sorted()
        XCTAssertEqual(wired["rec:in_1"], ["tempera:out_1"], "the mix's recorder is wired before playing")
        for (k, pair) in pairs.enumerated() {
            XCTAssertEqual(wired["rec\(k):in_1"], ["tempera:" + pair[0]], "recorder \(k) is wired before playing")
        }
        let f0 = engine.renderedFrames
        engine.play()
        XCTAssertTrue(waitUntil(15) { engine.renderedFrames > f0 + 48_000 * 5 / 2 })
        engine.pause()
        usleep(100_000)
        engine.stop()
        let heard = try mix.finish()
        let each = try recs.map { r -> [Int] in let rec = try r.finish(); return Onsets.soundStarts(rec.stereo).map(rec.frame) }
        return (Onsets.soundStarts(heard.stereo).map(heard.frame), each, ports)
    }

    /// `--outputs tracks`: `track_N_1`/`track_N_2` beside the mix, each carrying its track's onsets only, on the
    /// mix's frames.
    func testTrackOutputsCarryEachTracksOnsetsOnlyOnTheMixsFrames() throws {
        let r = try recordOutputs(try twoTracks(), outputs: .tracks, pairs: [["track_1_1", "track_1_2"], ["track_2_1", "track_2_2"]])
        XCTAssertEqual(r.ports, ["tempera:clock_out", "tempera:midi_in", "tempera:midi_out", "tempera:out_1", "tempera:out_2",
                                 "tempera:track_1_1", "tempera:track_1_2", "tempera:track_2_1", "tempera:track_2_2"])
        XCTAssertGreaterThanOrEqual(r.mix.count, 5, "2.5 s: five onsets or more")
        // The mix alternates track 1 and track 2 from the first onset (track 1's at 0 s).
        let ones = r.mix.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        let twos = r.mix.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        XCTAssertEqual(r.each[0], ones, "track 1's port: its onsets only, on the mix's frames")
        XCTAssertEqual(r.each[1], twos, "track 2's port: its onsets only, on the mix's frames")
    }

    /// With `--outputs tracks` started before the document is loaded (as the editor is), the tracks get their
    /// ports when it loads, and a track added later gets its own.
    func testTrackPortsComeWithTheDocumentAndItsNewTracks() throws {
        _ = try startServer()
        let engine = AudioEngine(output: .jack, jack: JackOptions(outputs: .tracks))
        engine.start()
        XCTAssertTrue(waitUntil(5) { isRunning(engine) })
        func trackPorts() -> [String] { connections().keys.filter { $0.hasPrefix("tempera:track_") }.sorted() }
        XCTAssertEqual(trackPorts(), [], "no document, no track")
        var doc = try twoTracks()
        XCTAssertEqual(engine.load(document: doc, baseDirectory: dir), [])
        XCTAssertEqual(trackPorts(), ["tempera:track_1_1", "tempera:track_1_2", "tempera:track_2_1", "tempera:track_2_2"])
        doc.tracks.append(Track(name: "t3"))
        XCTAssertEqual(engine.update(document: doc), [])
        XCTAssertEqual(trackPorts().count, 6)
        XCTAssertTrue(trackPorts().contains("tempera:track_3_2"))
        engine.stop()
    }

    /// `--outputs slots`: sixteen pairs `slot_N_1`/`slot_N_2`; slot 2's port carries slot 2's onsets only.
    func testSlotOutputsCarryEachSlotsOnsetsOnly() throws {
        let r = try recordOutputs(try twoTracks(), outputs: .slots, pairs: [["slot_2_1", "slot_2_2"], ["slot_3_1", "slot_3_2"]])
        XCTAssertEqual(r.ports.filter { $0.contains(":slot_") }.count, 32)
        XCTAssertTrue(r.ports.contains("tempera:slot_16_2"))
        let twos = r.mix.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        XCTAssertGreaterThanOrEqual(twos.count, 2)
        XCTAssertEqual(r.each[0], twos, "slot 2's port: its onsets only")
        XCTAssertEqual(r.each[1], [], "slot 3 plays nothing")
    }

    /// MIDI clock goes out on `clock_out`; the notes stay on `midi_out`, without a clock among them.
    func testClockGoesOutOnClockOutAndNotesStayOnMidiOut() throws {
        let server = try startServer()
        let notes = try server.startClient(name: "notes", midiPorts: ["midi_out"])
        let clock = try server.startClient(name: "clock", midiPorts: ["clock_out"])
        let engine = AudioEngine(output: .jack)
        engine.sendsClock = true
        XCTAssertEqual(engine.load(document: try twoTracks(), baseDirectory: dir), [])
        engine.start()
        XCTAssertTrue(waitUntil(5) { isRunning(engine) })
        XCTAssertNotNil(notes.waitReady())
        XCTAssertNotNil(clock.waitReady())
        let f0 = engine.renderedFrames
        engine.play()
        XCTAssertTrue(waitUntil(15) { engine.renderedFrames > f0 + 48_000 * 3 / 2 })
        engine.pause()
        usleep(100_000)
        engine.stop()
        let n = try notes.finish(), c = try clock.finish()
        XCTAssertGreaterThanOrEqual(n.noteOns.count, 2, "slot 1's notes on midi_out")
        XCTAssertTrue(n.midi.allSatisfy { ($0.bytes.first ?? 0) < 0xF0 }, "no clock on midi_out")
        XCTAssertEqual(c.midi.first?.bytes, [0xFA], "Start on clock_out")
        XCTAssertGreaterThan(c.midi.filter { $0.bytes == [0xF8] }.count, 24 * 2, "the clocks on clock_out")
        XCTAssertTrue(c.midi.allSatisfy { ($0.bytes.first ?? 0) >= 0xF0 }, "no notes on clock_out")
        XCTAssertEqual(c.midi.last?.bytes, [0xFC], "Stop on clock_out")
    }

    /// A second tempera is given `tempera-01` and connects that name to the physical ports; `--client-name` and
    /// `--connect none` or a pattern are what they say.
    func testASecondInstanceIsConnectedUnderTheNameTheServerGaveAndNamesAndConnectionsAreTheUsers() throws {
        _ = try startServer()
        let first = AudioEngine(output: .jack)
        let second = AudioEngine(output: .jack)
        let quiet = AudioEngine(output: .jack, jack: JackOptions(clientName: "drums", connect: .none))
        let routed = AudioEngine(output: .jack, jack: JackOptions(clientName: "keys", connect: .matching("playback_2$")))
        let engines = [first, second, quiet, routed]
        for e in engines { e.start() }
        XCTAssertTrue(waitUntil(5) { engines.allSatisfy(isRunning) })
        XCTAssertEqual(first.jackClientName, "tempera")
        XCTAssertEqual(second.jackClientName, "tempera-01")
        XCTAssertEqual(quiet.jackClientName, "drums")
        let c = connections()
        XCTAssertEqual(c["tempera:out_1"], ["system:playback_1"])
        XCTAssertEqual(c["tempera:out_2"], ["system:playback_2"])
        XCTAssertEqual(c["tempera-01:out_1"], ["system:playback_1"], "the second instance is connected too")
        XCTAssertEqual(c["tempera-01:out_2"], ["system:playback_2"])
        XCTAssertEqual(c["drums:out_1"], [], "--connect none")
        XCTAssertEqual(c["drums:out_2"], [])
        XCTAssertEqual(c["keys:out_1"], ["system:playback_2"], "the one port the pattern matches, for both")
        XCTAssertEqual(c["keys:out_2"], ["system:playback_2"])
        for e in engines { e.stop() }
    }
}

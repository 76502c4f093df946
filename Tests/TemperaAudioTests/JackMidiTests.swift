import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// MIDI through a private JACK server: what `midi_out` sends, recorded with its frame times beside the audio.
final class JackMidiTests: JackTestCase {
    override var directoryName: String { "jack-midi" }

    /// Three slots sending MIDI: a kick (a 200-frame block; channel 10, its GM note 36), a tone on channel 2 as
    /// note 40, and a snare that only sends (no file: silent here; channel 10, note 38); markers of several
    /// amplitudes on irregular times, tempo 1.37.
    func midiDocument() throws -> Document {
        let a = try Fixture.wav(Fixture.block(frames: 200, level: 0.5), in: dir, name: "a.wav")
        let b = try Fixture.wav(Fixture.sine(hz: 1_000, seconds: 0.01, amp: 0.3).map { $0 + 0.1 }, in: dir, name: "b.wav")
        var kick = ClipSlot(name: "kick", file: a)
        kick.midiChannel = 10
        var tone = ClipSlot(name: "tone", file: b)
        tone.midiChannel = 2
        tone.midiNote = 40
        var snare = ClipSlot(name: "snare")
        snare.midiChannel = 10
        func track(_ name: String, _ items: [(Double, Int, Double)]) -> Track {
            Track(name: name, markers: MarkerList(items.enumerated().map { k, item in
                Marker(id: MarkerID(k), time: item.0, amp: item.2, content: .clip(item.1))
            }))
        }
        let t1 = track("t1", [(0, 1, 1), (0.1111, 2, 0.5), (2.0.squareRoot() / 8, 1, 0.25), (0.4, 1, 0.001)])
        let t2 = track("t2", [(0.0625, 2, 64.0 / 127), (0.3, 1, 0.7), (0.45, 2, 0.9)])
        let t3 = track("t3", [(0.02, 3, 0.8), (0.33, 3, 0.33)])
        var slots = [kick, tone, snare]
        while slots.count < 16 { slots.append(ClipSlot()) }
        return Document(tracks: [t1, t2, t3], slots: slots,
                        transport: Transport(tempo: 1.37, volume: 0.9, loopStart: 0, loopEnd: 0.5, loopOn: true, length: 0.5))
    }

    func testEveryNoteOnIsOnTheFrameOfItsAudioOnsetWithItsChannelNoteAndVelocity() throws {
        let doc = try midiDocument()
        let server = try startServer()
        let client = try server.startClient()
        let engine = AudioEngine(output: .jack)
        XCTAssertEqual(engine.load(document: doc, baseDirectory: dir), [])
        engine.start()
        XCTAssertTrue(waitUntil(5) { isRunning(engine) })
        XCTAssertNotNil(client.waitReady())
        engine.play(loops: 3)
        XCTAssertTrue(waitUntil(20) { engine.isFinished })
        usleep(100_000)
        engine.stop()
        let rec = try client.finish()

        let schedule = Schedule(document: doc, sampleRate: 48_000).onsets(loops: 3).sorted { $0.frame < $1.frame }
        let sounding = schedule.filter { $0.clip != 3 }
        let heard = Onsets.soundStarts(rec.stereo).map(rec.frame)
        XCTAssertEqual(heard.count, sounding.count, "one audio onset per onset of a slot with a file")
        let c = try XCTUnwrap(heard.first) - Int(sounding[0].frame)
        XCTAssertEqual(zip(heard, sounding).filter { $0.0 != Int($0.1.frame) + c }.count, 0,
                       "the audio onsets are the schedule's frames")
        let notes: [Int: (channel: Int, note: Int)] = [1: (10, 36), 2: (2, 40), 3: (10, 38)]
        let expected = schedule.map { o in
            (frame: Int(o.frame) + c, channel: notes[o.clip]!.channel, note: notes[o.clip]!.note,
             velocity: max(1, Int((o.amp * 127).rounded())))
        }
        let got = rec.noteOns
        XCTAssertEqual(got.count, expected.count)
        for (g, e) in zip(got, expected) {
            XCTAssertEqual(g.frame, e.frame, "0 frames from its audio onset")
            XCTAssertEqual(g.channel, e.channel)
            XCTAssertEqual(g.note, e.note)
            XCTAssertEqual(g.velocity, e.velocity)
        }
        XCTAssertEqual(Set(got.map(\.velocity)), [127, 64, 32, 1, 89, 114, 102, 42])
        // A kick's note ends with its sound: 200 frames after it starts.
        let kickOffs = rec.midi.filter { $0.bytes.count == 3 && $0.bytes[0] == 0x89 && $0.bytes[1] == 36 }.map(\.frame)
        let kickOns = got.filter { $0.note == 36 }.map(\.frame)
        XCTAssertEqual(kickOffs, kickOns.map { $0 + 200 })
    }

    /// 100 note-ons sent on chosen frames while the loop plays: each sounds on its very frame, and is placed at the
    /// music heard on its arrival frame less the playback latency JACK reports, with velocity v as amp v/127.
    func testMidiInNoteOnsSoundOnTheirFrameAndArePlacedAtTheirArrivalLessTheLatency() throws {
        let a = try Fixture.wav(Fixture.block(frames: 200, level: 0.5), in: dir, name: "a.wav")
        let b = try Fixture.wav(Fixture.block(frames: 100, level: 0.25), in: dir, name: "b.wav")
        var snare = ClipSlot(name: "hit", file: b)
        snare.midiInNote = 38
        var slots = [ClipSlot(name: "anchor", file: a), snare]
        while slots.count < 16 { slots.append(ClipSlot()) }
        let doc = Document(tracks: [Track(name: "t1", markers: MarkerList([Marker(id: 0, time: 0, amp: 1, content: .clip(1))]))],
                           slots: slots,
                           transport: Transport(tempo: 1, volume: 1, loopStart: 0, loopEnd: 2, loopOn: true, length: 2))
        let velocities = (0..<100).map { k in k == 0 ? 64 : 1 + (k * 37) % 127 }
        let sends = (0..<100).map { k in (frame: 1_000 * k + (k * 7_919) % 500, bytes: [UInt8(0x99), 38, UInt8(velocities[k])]) }

        let server = try startServer()
        let rec = try server.startClient()
        let engine = AudioEngine(output: .jack)
        XCTAssertEqual(engine.load(document: doc, baseDirectory: dir), [])
        engine.start()
        XCTAssertTrue(waitUntil(5) { isRunning(engine) })
        XCTAssertNotNil(rec.waitReady())
        engine.play()
        let sender = try server.startClient(name: "keys", send: sends, onlySend: true, lead: 24_000)
        XCTAssertNotNil(sender.waitReady())
        var hits: [PadHit] = []
        XCTAssertTrue(waitUntil(10) {
            hits += engine.takeMidiHits()
            return hits.count >= 100
        }, "\(hits.count) hits came back")
        let latency = engine.outputLatencyFrames
        engine.pause()
        usleep(50_000)
        engine.stop()
        let sent = try sender.finish().sent
        let recording = try rec.finish()
        XCTAssertEqual(sent.count, 100)
        XCTAssertEqual(hits.count, 100)
        XCTAssertGreaterThan(latency, 0, "JACK reports a playback latency")

        // The anchor: the loop's first onset, as recorded.
        let heard = Onsets.soundStarts(recording.stereo).map(recording.frame)
        let anchor = try XCTUnwrap(heard.first)
        let passFrames = 96_000
        for (k, hit) in hits.enumerated() {
            XCTAssertEqual(hit.slot, 2)
            XCTAssertEqual(hit.midiNote, 38)
            XCTAssertEqual(hit.velocity, Double(velocities[k]) / 127)
            let m = sent[k] - latency - anchor
            let (pass, time) = try XCTUnwrap(hit.timeline)
            XCTAssertEqual(pass, m / passFrames, "hit \(k)")
            XCTAssertEqual(time * 48_000, Double(m % passFrames), accuracy: 1e-6, "hit \(k): on its frame")
            // It sounds on the frame it arrived on (heard a latency later, like everything played).
            if abs((sent[k] - anchor) % passFrames) > 400 {
                XCTAssertTrue(heard.contains(sent[k]), "hit \(k) sounds on frame \(sent[k])")
            }
        }
        XCTAssertEqual(hits[0].velocity, 64.0 / 127)
    }

    /// Through a tempo ramp (1.37 to 0.8, linear over the loop): every note-on is still on its audio onset's frame.
    func testAcrossATempoRampEveryNoteOnIsOnItsAudioOnsetsFrame() throws {
        var doc = try midiDocument()
        doc.transport.tempoMap = TempoMap([TempoMap.Point(time: 0, tempo: 1.37, shape: .linear),
                                           TempoMap.Point(time: 0.5, tempo: 0.8)])
        let server = try startServer()
        let client = try server.startClient()
        let engine = AudioEngine(output: .jack)
        XCTAssertEqual(engine.load(document: doc, baseDirectory: dir), [])
        engine.start()
        XCTAssertTrue(waitUntil(5) { isRunning(engine) })
        XCTAssertNotNil(client.waitReady())
        engine.play(loops: 2)
        XCTAssertTrue(waitUntil(20) { engine.isFinished })
        usleep(100_000)
        engine.stop()
        let rec = try client.finish()
        let heard = Onsets.soundStarts(rec.stereo).map(rec.frame)
        let sounding = rec.noteOns.filter { !($0.channel == 10 && $0.note == 38) }.map(\.frame)
        XCTAssertEqual(sounding.count, 14, "7 onsets of slots with a file, two passes")
        XCTAssertEqual(sounding, heard, "0 frames between each note-on and its sound")
    }
}

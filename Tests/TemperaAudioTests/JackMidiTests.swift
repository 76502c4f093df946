import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// MIDI through a private JACK server: what `midi_out` sends, recorded with its frame times beside the audio.
final class JackMidiTests: XCTestCase {
    var dir = ""
    var servers: [JackTestServer] = []

    override func setUp() { dir = TestPaths.temporaryDirectory("jack-midi") }

    override func tearDown() {
        for s in servers { s.stop() }
        try? FileManager.default.removeItem(atPath: dir)
        for s in servers { try? FileManager.default.removeItem(atPath: s.dir) }
    }

    func startServer() throws -> JackTestServer {
        let s = try JackTestServer()
        servers.append(s)
        s.use()
        return s
    }

    func waitFor(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            usleep(5_000)
        }
        return condition()
    }

    func isRunning(_ e: AudioEngine) -> Bool { if case .running = e.status { return true } else { return false } }

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
        XCTAssertTrue(waitFor(5) { isRunning(engine) })
        XCTAssertNotNil(client.waitReady())
        engine.play(loops: 3)
        XCTAssertTrue(waitFor(20) { engine.isFinished })
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
}

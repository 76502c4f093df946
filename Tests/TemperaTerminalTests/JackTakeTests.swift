import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest
@testable import TemperaTerminal

/// The editor's takes of MIDI in through a private JACK server: a flood of notes faster than the editor reads
/// them still sounds, and the take says how many of them it could not keep.
final class JackTakeTests: XCTestCase {
    private let dir = TestPaths.temporaryDirectory("jack-take")

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func testATakeThatLostMidiNotesSaysHowMany() throws {
        let server = try JackTestServer()
        server.use()
        defer {
            server.stop()
            try? FileManager.default.removeItem(atPath: server.dir)
        }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try AudioFile.write([Float](repeating: 0.5, count: 400), sampleRate: 48_000, to: dir + "/a.wav", as: .wavFloat)
        var snare = ClipSlot(name: "hit", file: dir + "/a.wav")
        snare.midiInNote = 38
        var slots = [snare]
        while slots.count < 16 { slots.append(ClipSlot()) }
        let doc = Document(tracks: [Track(name: "t1")], slots: slots,
                           transport: Transport(tempo: 1, volume: 1, loopStart: 0, loopEnd: 2, loopOn: true, length: 2))
        let engine = AudioEngine(output: .jack)
        defer { engine.stop() }
        let d = Dispatcher(session: Session(document: doc), player: engine)
        XCTAssertEqual(engine.load(document: doc, baseDirectory: dir), [])
        engine.start()
        XCTAssertTrue(waitUntil(5) { if case .running = engine.status { return true } else { return false } })
        try d.toggleRecord()
        _ = try d.play()
        XCTAssertTrue(waitUntil(5) { engine.isPlaying })
        d.syncTake()
        XCTAssertTrue(d.session.takeOpen, "the take runs")
        // 700 notes in a third of a second while the editor looks away: the ring keeps 512.
        let keys = try server.startClient(name: "keys", send: (0..<700).map { (frame: $0 * 24, bytes: [UInt8(0x99), 38, 100]) },
                                          onlySend: true)
        XCTAssertNotNil(keys.waitReady())
        XCTAssertTrue(waitUntil(10) { engine.droppedMidiHits >= 188 })
        XCTAssertTrue(d.takeMidiHits())
        engine.pause()
        XCTAssertTrue(waitUntil(5) { !engine.isPlaying })
        d.syncTake()
        XCTAssertFalse(d.session.takeOpen)
        let said = d.view.message ?? ""
        XCTAssertTrue(said.hasPrefix("take: 512 hits recorded, one undo step"), said)
        XCTAssertTrue(said.hasSuffix("; 188 MIDI notes dropped (they came faster than they could be kept)"), said)
        _ = try keys.finish()
    }
}

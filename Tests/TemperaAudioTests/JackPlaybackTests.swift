import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// Playback through a private JACK server (the dummy backend), checked against what a test client recorded
/// from tempera's ports, frame by frame.
final class JackPlaybackTests: JackTestCase {
    override var directoryName: String { "jack-play" }

    /// Clicks on irregular times on two tracks (one a `?`), tempo 1.37, as the PulseAudio tests play them.
    func clickDocument() throws -> Document {
        let a = try Fixture.wav(Fixture.block(frames: 200, level: 0.5), in: dir, name: "a.wav")
        let b = try Fixture.wav(Fixture.sine(hz: 1_000, seconds: 0.01, amp: 0.3).map { $0 + 0.1 }, in: dir, name: "b.wav")
        let t1: [(Double, Content?)] = [(0, .clip(1)), (0.1111, .clip(2)), (2.0.squareRoot() / 8, .random), (0.4, .clip(1))]
        let t2: [(Double, Content?)] = [(0.0625, .clip(2)), (0.3, .clip(1)), (0.45, .clip(2))]
        return Fixture.document(tracks: [t1, t2], slots: [ClipSlot(file: a), ClipSlot(file: b)], tempo: 1.37, span: 0.5,
                                volume: 0.9, amp: 0.7)
    }

    /// Plays `doc` `loops` times through JACK while the test client records; returns the recording and the
    /// xruns the engine counted while it played.
    func recordThroughJack(_ doc: Document, loops: Int, send: [(frame: Int, bytes: [UInt8])] = [],
                           engineSetup: (AudioEngine) -> Void = { _ in }) throws -> (JackRecording, xruns: Int) {
        let server = try startServer()
        let client = try server.startClient(send: send)
        let engine = AudioEngine(output: .jack)
        XCTAssertEqual(engine.sampleRate, 48_000)
        engineSetup(engine)
        XCTAssertEqual(engine.load(document: doc, baseDirectory: dir), [])
        engine.start()
        XCTAssertTrue(waitUntil(5) { isRunning(engine) }, "\(engine.status)")
        XCTAssertNotNil(client.waitReady(), "the test client never saw tempera's ports")
        // Clients joining and ports connecting may cost the graph a period or two: those are not playback's.
        usleep(200_000)
        let before = engine.underruns
        engine.play(loops: loops)
        XCTAssertTrue(waitUntil(20) { engine.isFinished }, "the engine never finished its \(loops) passes")
        usleep(100_000)
        let during = engine.underruns - before
        engine.stop()
        return (try client.finish(), during)
    }

    func testWhatJackPlayedIsTheOfflineRenderFrameForFrame() throws {
        let doc = try clickDocument()
        let offline = OfflineRenderer(document: doc, baseDirectory: dir, loops: 3).renderAll()
        let expectedOnsets = Schedule(document: doc, sampleRate: 48_000).onsets(loops: 3).map { Int($0.frame) }.sorted()
        // An xrun of the dummy server delays a period but loses nothing (no device plays on), so the recording
        // is exact even on a loaded machine.
        let (rec, _) = try recordThroughJack(doc, loops: 3)
        let played = try XCTUnwrap(rec.aligned(with: offline),
                                   "nothing was recorded, or too little")
        XCTAssertEqual(Onsets.soundStarts(played), expectedOnsets)
        assertSamplesEqual(played, offline)
    }

    func testTheServersRateRulesAndTheStatusSaysJack() throws {
        _ = try startServer()
        let engine = AudioEngine(sampleRate: 44_100, output: .jack)
        XCTAssertEqual(engine.sampleRate, 48_000, "the server's rate, whatever was asked")
        engine.start()
        XCTAssertTrue(waitUntil(5) { isRunning(engine) })
        let ports = Spawn.run("/usr/bin/jack_lsp", ["-c"], environment: ["JACK_DEFAULT_SERVER": servers[0].name]).stdout
        XCTAssertTrue(ports.contains("tempera:out_1\n   system:playback_1"), ports)
        XCTAssertTrue(ports.contains("tempera:out_2\n   system:playback_2"), ports)
        XCTAssertTrue(ports.contains("tempera:midi_out"), ports)
        XCTAssertTrue(ports.contains("tempera:midi_in"), ports)
        engine.stop()
    }

    func testTheCommandLineSaysWhatIsMissingInOneLine() throws {
        let exe = TestPaths.binary
        guard FileManager.default.isExecutableFile(atPath: exe) else { throw XCTSkip("build tempera first (swift build)") }
        let doc = try clickDocument()
        try DocumentFile.save(doc, to: dir + "/doc.tempera")
        var r = Spawn.run(exe, ["play", dir + "/doc.tempera", "--clock", "out"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "tempera: --clock needs --audio jack\n")
        r = Spawn.run(exe, ["play", dir + "/doc.tempera", "--transport", "lead", "--audio", "pulse"])
        XCTAssertEqual(r.stderr, "tempera: --transport needs --audio jack\n")
        r = Spawn.run(exe, ["play", dir + "/doc.tempera", "--outputs", "tracks"])
        XCTAssertEqual(r.stderr, "tempera: --outputs needs --audio jack\n")
        r = Spawn.run(exe, ["play", dir + "/doc.tempera", "--audio", "jack", "--connect", "system:(playback"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.hasPrefix("tempera: --connect: not a regular expression ("), r.stderr)
        XCTAssertEqual(r.stderr.filter { $0 == "\n" }.count, 1, "one line")
        r = Spawn.run(exe, ["play", dir + "/doc.tempera", "--audio", "jack", "--client-name", "a:b"])
        XCTAssertEqual(r.stderr, "tempera: --client-name cannot contain ':' (it separates client and port)\n")
        r = Spawn.run(exe, ["play", dir + "/doc.tempera", "--audio", "jack", "--client-name", String(repeating: "x", count: 64)])
        XCTAssertEqual(r.stderr, "tempera: --client-name is at most 63 bytes (got 64)\n")
        r = Spawn.run(exe, ["play", dir + "/doc.tempera", "--audio", "jack"],
                      environment: ["JACK_DEFAULT_SERVER": "tempera-nobody-\(getpid())"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "tempera: no JACK server 'tempera-nobody-\(getpid())' (cannot connect)\n")
    }

    func testPlayThroughJackFromTheCommandLineFinishes() throws {
        let exe = TestPaths.binary
        guard FileManager.default.isExecutableFile(atPath: exe) else { throw XCTSkip("build tempera first (swift build)") }
        let server = try startServer()
        let doc = try clickDocument()
        try DocumentFile.save(doc, to: dir + "/doc.tempera")
        let r = Spawn.run(exe, ["play", dir + "/doc.tempera", "--audio", "jack", "--clock", "out", "--loops", "2"],
                          environment: ["JACK_DEFAULT_SERVER": server.name])
        XCTAssertEqual(r.status, 0, r.stderr)
        // A loaded machine may make the dummy server late (an xrun): that is said, and nothing else is.
        XCTAssertTrue(r.stderr.isEmpty || r.stderr.hasSuffix(" underruns\n") && !r.stderr.dropLast().contains("\n"), r.stderr)
    }

    func testAnXrunCountsAsAnUnderrun() throws {
        let server = try startServer()
        let client = try server.startClient()
        let engine = AudioEngine(output: .jack)
        engine.start()
        XCTAssertTrue(waitUntil(5) { isRunning(engine) })
        XCTAssertNotNil(client.waitReady())
        usleep(200_000)
        let before = engine.underruns
        client.command("stall")
        XCTAssertTrue(waitUntil(5) { engine.underruns > before }, "a period of 100 ms is an xrun")
        engine.stop()
        _ = try client.finish()
    }

    func testTheServerGoingAwayIsOneLineAndNoServerIsSaid() throws {
        let server = try startServer()
        let engine = AudioEngine(output: .jack)
        engine.start()
        XCTAssertTrue(waitUntil(5) { isRunning(engine) })
        server.stop()
        XCTAssertTrue(waitUntil(5) { if case .unavailable = engine.status { return true } else { return false } })
        guard case .unavailable(let why) = engine.status else { return XCTFail() }
        XCTAssertTrue(why.hasPrefix("JACK server lost"), why)
        XCTAssertFalse(why.contains("\n"))
        // Retried every two seconds: with no server, that is said too.
        XCTAssertTrue(waitUntil(5) {
            if case .unavailable(let w) = engine.status { return w.hasPrefix("no JACK server") } else { return false }
        }, "\(engine.status)")
        engine.stop()
    }
}

import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// Playback through a private PulseAudio server, checked against what its null sink's monitor recorded.
final class PulsePlaybackTests: XCTestCase {
    var dir = ""
    var servers: [PulseTestServer] = []

    override func setUp() { dir = TestPaths.temporaryDirectory("pulse-play") }

    override func tearDown() {
        for s in servers { s.stop() }
        try? FileManager.default.removeItem(atPath: dir)
    }

    func startServer() throws -> PulseTestServer {
        let s = try PulseTestServer()
        servers.append(s)
        setenv("PULSE_SERVER", s.address, 1)
        return s
    }

    func isRunning(_ e: AudioEngine) -> Bool { if case .running = e.status { return true } else { return false } }
    func isUnavailable(_ e: AudioEngine) -> Bool { if case .unavailable = e.status { return true } else { return false } }

    /// Clicks on irregular times on two tracks (one a `?`), tempo 1.37, three passes.
    func clickDocument() throws -> Document {
        let a = try Fixture.wav(Fixture.block(frames: 200, level: 0.5), in: dir, name: "a.wav")
        let b = try Fixture.wav(Fixture.sine(hz: 1_000, seconds: 0.01, amp: 0.3).map { $0 + 0.1 }, in: dir, name: "b.wav")
        let t1: [(Double, Content?)] = [(0, .clip(1)), (0.1111, .clip(2)), (2.0.squareRoot() / 8, .random), (0.4, .clip(1))]
        let t2: [(Double, Content?)] = [(0.0625, .clip(2)), (0.3, .clip(1)), (0.45, .clip(2))]
        return Fixture.document(tracks: [t1, t2], slots: [ClipSlot(file: a), ClipSlot(file: b)], tempo: 1.37, span: 0.5,
                                volume: 0.9, amp: 0.7)
    }

    /// This process's threads running SCHED_FIFO, with their real-time priorities (from /proc: the fields after
    /// the command's closing parenthesis, priority the 38th and policy the 39th of them).
    static func fifoThreads() -> [Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { tid -> Int? in
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 38, fields[38] == "1" else { return nil }
            return Int(fields[37])
        }
    }

    func testTheThreadThatRendersRunsAtRealTimePriorityWhereTheSystemAllows() throws {
        _ = try startServer()
        let allowed = Spawn.run("/usr/bin/chrt", ["-f", "10", "/bin/true"]).status == 0
        // Engines other tests of this process left running may hold real-time threads of their own.
        let before = Self.fifoThreads().sorted()
        let engine = AudioEngine()
        XCTAssertNil(engine.realTime)
        engine.start()
        XCTAssertTrue(waitUntil(5, every: 10_000) { isRunning(engine) })
        XCTAssertEqual(engine.realTime, allowed)
        XCTAssertEqual(Self.fifoThreads().sorted(), (before + (allowed ? [10] : [])).sorted(),
                       "the mainloop thread alone, at SCHED_FIFO 10")
        engine.stop()
        XCTAssertEqual(Self.fifoThreads().sorted(), before, "the thread ended with the output")
    }

    func testWhatTheServerPlayedIsTheOfflineRenderSampleForSample() throws {
        let server = try startServer()
        let doc = try clickDocument()
        let offline = OfflineRenderer(document: doc, baseDirectory: dir, loops: 3).renderAll()
        let expectedOnsets = Schedule(document: doc, sampleRate: 48_000).onsets(loops: 3).map { Int($0.frame) }.sorted()

        let heard = try server.recordPlayback(of: doc, baseDirectory: dir, loops: 3, in: dir)
        XCTAssertEqual(heard.underruns, 0)
        let played = try XCTUnwrap(heard.aligned(with: offline), "nothing was recorded, or too little")
        XCTAssertEqual(Onsets.soundStarts(played), expectedOnsets)
        assertSamplesEqual(played, offline, accuracy: 1e-6)
    }

    func testATempoChangeWhilePlayingThroughPulseLandsOnTheNewFrames() throws {
        let server = try startServer()
        var doc = try clickDocument()
        var path = ""
        for attempt in 1...3 {
            doc.transport.tempo = 1.37
            path = dir + "/rec\(attempt).wav"
            let recorder = try server.record(to: path)
            usleep(800_000)
            let engine = AudioEngine()
            engine.load(document: doc, baseDirectory: dir)
            engine.start()
            XCTAssertTrue(waitUntil(2, every: 10_000) { isRunning(engine) })
            usleep(300_000)
            let f0 = engine.renderedFrames
            engine.play(loops: 6)
            // Change the tempo half a second into the music, by the audio clock (the server may stall at first).
            XCTAssertTrue(waitUntil(5, every: 10_000) { engine.renderedFrames > f0 + 24_000 })
            doc.transport.tempo = 0.91
            engine.update(document: doc)
            XCTAssertTrue(waitUntil(10, every: 10_000) { engine.isFinished })
            usleep(300_000)
            let underruns = engine.underruns
            engine.stop()
            PulseTestServer.finish(recorder)
            if underruns == 0 { break }
            // A loaded machine: an underrun delays what follows. Try again; the last attempt must be clean.
            if attempt == 3 { XCTAssertEqual(underruns, 0) }
        }

        let rec = try AudioFile.read(path).samples
        let offset = try XCTUnwrap(Onsets.firstSound(rec))
        let starts = Onsets.soundStarts(rec).map { $0 - offset }
        let before = Schedule(document: { var d = doc; d.transport.tempo = 1.37; return d }(), sampleRate: 48_000)
        let after = Schedule(document: doc, sampleRate: 48_000)
        let beforeFrames = Set(before.onsets(loops: 6).map { Int($0.frame) })
        // Onsets before the change sit on the old frames; every later one is the new schedule's frame plus one
        // constant (the re-anchoring), and none is lost or doubled: 6 passes x 7 onsets.
        let split = starts.firstIndex { !beforeFrames.contains($0) }!
        XCTAssertGreaterThan(split, 3)
        let later = Array(starts[split...])
        let newFrames = after.onsets(loops: 6).map { Int($0.frame) }
        let anchored = newFrames.indices.contains { j in
            let c = later[0] - newFrames[j]
            return newFrames[j...].map { $0 + c } == later
        }
        XCTAssertTrue(anchored, "onsets after the change: \(later.prefix(8))")
        XCTAssertEqual(starts.count, 42)
    }

    func testWithNoServerTheStatusSaysSoWithinTwoSecondsAndPlaybackResumesWhenOneAppears() throws {
        setenv("PULSE_SERVER", "unix:\(dir)/no-such-socket", 1)
        let engine = AudioEngine()
        engine.load(document: try clickDocument(), baseDirectory: dir)
        let t0 = Date()
        engine.start()
        XCTAssertTrue(waitUntil(2, every: 10_000) { isUnavailable(engine) })
        XCTAssertLessThan(Date().timeIntervalSince(t0), 2)
        guard case .unavailable(let why) = engine.status else { return XCTFail() }
        XCTAssertTrue(why.hasPrefix("no PulseAudio server"), why)
        // The editor keeps working: edits do not pile up, the transport answers.
        var doc = try clickDocument()
        for k in 0..<50 {
            doc.transport.volume = Double(k) / 50
            engine.update(document: doc)
        }
        XCTAssertEqual(engine.liveSnapshots, 1)
        engine.rewind()
        XCTAssertEqual(engine.position, 0)
        engine.play()   // asked while there is no server: plays once one appears
        _ = try startServer()
        XCTAssertTrue(waitUntil(4, every: 10_000) { isRunning(engine) }, "\(engine.status)")
        XCTAssertTrue(waitUntil(2, every: 10_000) { engine.renderedFrames > 0 })
        engine.stop()
    }

    func testAServerThatNeverAnswersCountsAsMissingWithinTwoSeconds() throws {
        // A socket that accepts connections (the kernel's backlog) but never speaks the protocol.
        let path = dir + "/mute-socket"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(listen(fd, 8), 0)
        setenv("PULSE_SERVER", "unix:\(path)", 1)

        let engine = AudioEngine()
        let t0 = Date()
        engine.start()
        XCTAssertEqual(engine.status, .connecting)
        XCTAssertTrue(waitUntil(3, every: 10_000) { isUnavailable(engine) })
        XCTAssertLessThan(Date().timeIntervalSince(t0), 2)
        XCTAssertEqual(engine.status, .unavailable("PulseAudio server not answering"))
        engine.stop()
    }

    func testKillingTheServerMidPlayMakesTheEngineUnavailableAndNothingCrashes() throws {
        let server = try startServer()
        var doc = try clickDocument()
        let engine = AudioEngine()
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        XCTAssertTrue(waitUntil(2, every: 10_000) { isRunning(engine) })
        engine.play()
        usleep(300_000)
        server.stop()
        XCTAssertTrue(waitUntil(2, every: 10_000) { isUnavailable(engine) }, "\(engine.status)")
        guard case .unavailable(let why) = engine.status else { return XCTFail() }
        XCTAssertTrue(why.hasPrefix("PulseAudio server lost"), why)
        // The editor keeps working.
        doc.transport.tempo = 2
        engine.update(document: doc)
        _ = engine.position
        engine.pause()
        engine.play()
        // And a server that comes back is found again.
        _ = try startServer()
        XCTAssertTrue(waitUntil(4, every: 10_000) { isRunning(engine) }, "\(engine.status)")
        engine.stop()
    }
}

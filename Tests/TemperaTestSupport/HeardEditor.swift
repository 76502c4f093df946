import Foundation
import TemperaAudio
import TemperaCore
import XCTest

/// The real program in a real terminal (tmux) playing through a private PulseAudio server of its own, with a
/// home folder of its own: what the tests that hear the editor share. `close()` in the test's tearDown.
public final class HeardEditor {
    /// The test's folder: documents, recordings, `home/`, `pulse/`.
    public let dir: String
    public let pulse: PulseTestServer
    public let session: TmuxSession

    /// A fresh folder named after `name`, its server started (the test is skipped when none can start).
    public init(_ name: String) throws {
        dir = TestPaths.temporaryDirectory(name)
        try FileManager.default.createDirectory(atPath: dir + "/home", withIntermediateDirectories: true)
        session = TmuxSession(server: "tempera-\(name)-\(getpid())-\(UUID().uuidString.prefix(8))")
        pulse = try PulseTestServer(dir: dir + "/pulse")
    }

    /// Starts `tempera ARGUMENTS` at `width` x `height` with the private server, home and a UTF-8 xterm, and
    /// waits for its first screen.
    public func launch(_ arguments: [String], width: Int = 120, height: Int = 40,
                       file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: TestPaths.binary),
                      "build the package first (swift build)", file: file, line: line)
        let home = dir + "/home"
        let command = "env PULSE_SERVER=\(pulse.address) HOME=\(home) XDG_CONFIG_HOME=\(home)/.config "
            + "XDG_STATE_HOME=\(home)/.state LANG=C.UTF-8 TERM=xterm-256color \(TestPaths.binary) "
            + arguments.map { "'\($0)'" }.joined(separator: " ")
        session.start(command, width: width, height: height)
        XCTAssertTrue(waitFor("transport"), session.screen(), file: file, line: line)
    }

    /// Whether the screen shows `text` within `seconds`.
    public func waitFor(_ text: String, seconds: Double = 10) -> Bool {
        session.wait(timeout: seconds) { $0.contains(text) }.met
    }

    /// Starts recording the server's monitor to `name` in the folder, and lets it settle (an idle null sink
    /// stalls its first writes). The recording has begun once its file holds sound frames: a loaded machine may
    /// take longer than the settling time to start the recorder, and what plays before is not heard.
    public func record(_ name: String) throws -> Process {
        let path = dir + "/" + name
        let recorder = try pulse.record(to: path)
        let deadline = ProcessInfo.processInfo.systemUptime + 10
        func size() -> Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0 }
        while ProcessInfo.processInfo.systemUptime < deadline && recorder.isRunning && size() <= 44 + 9_600 { usleep(20_000) }
        Thread.sleep(forTimeInterval: 0.8)
        return recorder
    }

    /// Plays the pad on `key` (the Pads tab must be shown) until the server's monitor hears it, at most 20 times
    /// 0.3 s apart: an idle null sink stalls its first writes for up to two seconds. True once it sounded.
    public func warmUp(key: String = "v") throws -> Bool {
        let warm = try record("warm.wav")
        defer { PulseTestServer.finish(warm) }
        for _ in 0..<20 {
            session.keys([key])
            Thread.sleep(forTimeInterval: 0.3)
            if RecordedWAV.rms(dir + "/warm.wav") > 0 { return true }
        }
        return false
    }

    /// Ends the tmux session, stops the server and removes the folder.
    public func close() {
        session.kill()
        pulse.stop()
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// A document whose only sound is a click loud from its first frame (`click.wav`, written beside it): one
    /// track `click` with a full-amplitude click at each of `times`, looping [0, `loop`) at tempo x1 and full
    /// volume. The clicks make onsets easy to find in a recording.
    public func clickDocument(at times: [Double], loop: Double) throws -> Document {
        try AudioFile.write([Float](repeating: 0.5, count: 240), sampleRate: 48_000, to: dir + "/click.wav", as: .wavFloat)
        var slots = [ClipSlot(name: "click", file: "click.wav", attack: 0, release: 1)]
        while slots.count < 16 { slots.append(ClipSlot()) }
        let markers = times.enumerated().map { Marker(id: MarkerID($0.offset), time: $0.element, amp: 1, content: .clip(1)) }
        var doc = Document(tracks: [Track(name: "click", markers: MarkerList(markers))], slots: slots)
        doc.transport = Transport(tempo: 1, volume: 1, loopStart: 0, loopEnd: loop, loopOn: true, length: loop)
        return doc
    }
}

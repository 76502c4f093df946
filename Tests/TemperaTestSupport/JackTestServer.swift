import Foundation
import XCTest

/// A private JACK server (jackd2's dummy backend, 48 kHz, periods of 256 frames, no real-time scheduling, in
/// synchronous mode) under a server name of its own, started by the package's scripts/jack-test-server.
/// Clients reach it with `JACK_DEFAULT_SERVER` set to `name` (`use()` sets it for this process).
public final class JackTestServer {
    /// The server's folder (pid, log) and its name.
    public let dir: String
    public let name: String
    private nonisolated(unsafe) static var started = 0

    /// Starts a server with a name no other test run uses; skips the test when jackd cannot start.
    public init() throws {
        Self.started += 1
        name = "tempera-test-\(getpid())-\(Self.started)"
        dir = TestPaths.temporaryDirectory("jack")
        let r = Spawn.run(Self.script, ["start", dir, name])
        guard r.status == 0 else { throw XCTSkip("no private JACK server could start: \(r.stderr)") }
    }

    private static var script: String { TestPaths.packageRoot + "/scripts/jack-test-server" }

    /// Points this process's JACK clients at the server.
    public func use() { setenv("JACK_DEFAULT_SERVER", name, 1) }

    /// Stops the server (its folder stays until the test removes it).
    public func stop() {
        Spawn.run(Self.script, ["stop", dir])
    }

    /// Starts the recording client (scripts/jack-test-client) as `rec`, wired to `peer`'s ports as they appear:
    /// `ports` (two audio outputs) into its `in_1` and `in_2`, `midiPorts` into its `midi_in`.
    /// `send`: MIDI messages (frame from the ready frame + `lead`, bytes) it sends to `peer:midi_in`.
    /// With `onlySend`, the client (named `name`) only sends: a graph of a sender into tempera and tempera into a
    /// recorder has no cycle, which would delay one direction by a period.
    public func startClient(name clientName: String = "rec", peer: String = "tempera",
                            send: [(frame: Int, bytes: [UInt8])] = [], onlySend: Bool = false, lead: Int = 4_800,
                            transportLog: Bool = false, ports: [String] = ["out_1", "out_2"],
                            midiPorts: [String] = ["midi_out", "clock_out"]) throws -> JackTestClient {
        let clientDir = TestPaths.temporaryDirectory("jack-client")
        var arguments = [name, clientDir, "--name", clientName, "--peer", peer, "--lead", "\(lead)"]
        if onlySend { arguments.append("--only-send") }
        if !send.isEmpty {
            let lines = send.map { "\($0.frame) " + $0.bytes.map(String.init).joined(separator: " ") }
            try (lines.joined(separator: "\n") + "\n").write(toFile: clientDir + "/send.txt", atomically: true,
                                                             encoding: .utf8)
            arguments += ["--send", clientDir + "/send.txt"]
        }
        if transportLog { arguments.append("--transport-log") }
        arguments += ["--ports", ports.joined(separator: ","), "--midi-ports", midiPorts.joined(separator: ",")]
        return try JackTestClient(dir: clientDir, arguments: arguments)
    }
}

/// The recording client of a `JackTestServer`, running as its own process.
public final class JackTestClient {
    public let dir: String
    private let process: Process

    init(dir: String, arguments: [String]) throws {
        self.dir = dir
        process = Process()
        process.executableURL = URL(fileURLWithPath: TestPaths.packageRoot + "/scripts/jack-test-client")
        process.arguments = arguments
        _ = FileManager.default.createFile(atPath: dir + "/client.log", contents: nil)
        let log = FileHandle(forWritingAtPath: dir + "/client.log")
        process.standardOutput = log
        process.standardError = log
        try process.run()
    }

    /// The frame from which sent messages are counted (less the lead), once every port is connected; nil when
    /// that did not happen within `seconds`.
    public func waitReady(_ seconds: Double = 10) -> Int? {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if let text = try? String(contentsOfFile: dir + "/ready", encoding: .utf8),
               let frame = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) { return frame }
            if !process.isRunning { return nil }
            usleep(10_000)
        }
        return nil
    }

    /// Asks the client to start or stop the transport, or to locate it (`locate:FRAME`).
    public func command(_ word: String) {
        try? word.write(toFile: dir + "/command.tmp", atomically: false, encoding: .utf8)
        rename(dir + "/command.tmp", dir + "/command")
    }

    /// Stops the client and reads what it recorded.
    public func finish() throws -> JackRecording {
        _ = FileManager.default.createFile(atPath: dir + "/stop", contents: nil)
        let end = Date().addingTimeInterval(10)
        while process.isRunning, Date() < end { usleep(10_000) }
        if process.isRunning { process.terminate(); process.waitUntilExit() }
        let log = (try? String(contentsOfFile: dir + "/client.log", encoding: .utf8)) ?? ""
        guard let metaData = FileManager.default.contents(atPath: dir + "/meta.json"),
              let meta = try JSONSerialization.jsonObject(with: metaData) as? [String: Any] else {
            throw XCTSkip("the JACK test client wrote nothing: \(log)")
        }
        func floats(_ name: String) -> [Float] {
            let data = FileManager.default.contents(atPath: dir + "/" + name) ?? Data()
            return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        }
        func lines(_ name: String) -> [[Int]] {
            let text = (try? String(contentsOfFile: dir + "/" + name, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").map { $0.split(separator: " ").compactMap { Int($0) } }
        }
        let transportText = (try? String(contentsOfFile: dir + "/transport.txt", encoding: .utf8)) ?? ""
        return JackRecording(
            start: meta["start"] as? Int ?? 0, xruns: meta["xruns"] as? Int ?? 0,
            left: floats("in_1.f32"), right: floats("in_2.f32"),
            midi: lines("midi.txt").filter { !$0.isEmpty }.map { ($0[0], $0.dropFirst().map { UInt8($0) }) },
            sent: lines("sent.txt").compactMap(\.first),
            transport: transportText.split(separator: "\n").map { line in
                let f = line.split(separator: " ")
                return JackRecording.TransportRow(frame: Int(f[0]) ?? 0, rolling: f[1] == "1", position: Int(f[2]) ?? 0,
                                                  bar: Int(f[3]) ?? 0, beat: Int(f[4]) ?? 0, tick: Int(f[5]) ?? 0,
                                                  bpm: Double(f[6]) ?? 0,
                                                  beatsPerBar: f.count > 7 ? Double(f[7]) ?? 0 : 0,
                                                  beatType: f.count > 8 ? Double(f[8]) ?? 0 : 0)
            })
    }

    deinit {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(atPath: dir)
    }
}

/// What the test client recorded: audio from its first period (sample i at frame `start + i`), MIDI with
/// absolute frame times, the frames it sent its messages on, and the transport as it read it.
public struct JackRecording {
    public struct TransportRow: Equatable {
        public var frame: Int
        public var rolling: Bool
        public var position: Int
        public var bar: Int
        public var beat: Int
        public var tick: Int
        public var bpm: Double
        /// The bar's pulses and the note a pulse is (7 and 8 in 7/8).
        public var beatsPerBar: Double = 0
        public var beatType: Double = 0
    }

    public var start: Int
    public var xruns: Int
    public var left: [Float]
    public var right: [Float]
    public var midi: [(frame: Int, bytes: [UInt8])]
    public var sent: [Int]
    public var transport: [TransportRow]

    /// The audio interleaved, as the offline renderer writes it.
    public var stereo: [Float] {
        var out = [Float](repeating: 0, count: 2 * min(left.count, right.count))
        for i in 0..<(out.count / 2) {
            out[2 * i] = left[i]
            out[2 * i + 1] = right[i]
        }
        return out
    }

    /// The recording's frames that line up with `offline` (its first sound on the render's first sound), as
    /// many as the render holds; nil when nothing was recorded or too little.
    public func aligned(with offline: [Float]) -> [Float]? {
        let samples = stereo
        guard let first = Onsets.firstSound(samples), let lead = Onsets.firstSound(offline), first >= lead else { return nil }
        let offset = (first - lead) * 2
        guard samples.count >= offset + offline.count else { return nil }
        return Array(samples[offset..<(offset + offline.count)])
    }

    /// The absolute frame of recorded frame `i`.
    public func frame(_ i: Int) -> Int { start + i }

    /// The note-ons (status 0x9n with a velocity above 0): frame, channel (1...16), note, velocity.
    public var noteOns: [(frame: Int, channel: Int, note: Int, velocity: Int)] {
        midi.compactMap { m in
            guard m.bytes.count == 3, m.bytes[0] & 0xF0 == 0x90, m.bytes[2] > 0 else { return nil }
            return (m.frame, Int(m.bytes[0] & 0x0F) + 1, Int(m.bytes[1]), Int(m.bytes[2]))
        }
    }
}

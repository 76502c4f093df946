import Foundation
import XCTest

/// A private PulseAudio server with a 48 kHz float null sink `out`, started by the package's
/// scripts/pulse-test-server on its own socket; its monitor is what tests record.
public final class PulseTestServer {
    /// The server's folder (socket, pid file, log).
    public let dir: String
    /// The PULSE_SERVER value that reaches it (`unix:DIR/native`).
    public let address: String

    /// Starts a server in `dir` (a fresh temporary folder when nil); skips the test when none can start.
    public init(dir: String? = nil) throws {
        self.dir = dir ?? TestPaths.temporaryDirectory("pulse")
        let r = Spawn.run(Self.script, ["start", self.dir])
        guard r.status == 0 else { throw XCTSkip("no private PulseAudio server could start: \(r.stderr)") }
        address = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static var script: String { TestPaths.packageRoot + "/scripts/pulse-test-server" }

    /// Stops the server (its folder stays).
    public func stop() {
        Spawn.run(Self.script, ["stop", dir])
    }

    /// Records a sink's monitor (`out`'s unless told) to a float WAV at 48 kHz until `finish` is called, with
    /// the sink's channels in the order of `channelMap` (PulseAudio's names, stereo unless told);
    /// `environment` is added to the recorder's.
    public func record(to path: String, sink: String = "out", channelMap: [String] = ["front-left", "front-right"],
                       environment: [String: String] = [:]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/parecord")
        p.arguments = ["--device=\(sink).monitor", "--format=float32le", "--rate=48000",
                       "--channels=\(channelMap.count)", "--channel-map=" + channelMap.joined(separator: ","),
                       "--file-format=wav", path]
        p.environment = ProcessInfo.processInfo.environment
            .merging(["PULSE_SERVER": address]) { $1 }.merging(environment) { $1 }
        try p.run()
        return p
    }

    /// Loads a module into the server (`pactl load-module`), failing the test with pactl's message when it
    /// cannot.
    public func load(_ module: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) {
        let r = Spawn.run("/usr/bin/pactl", ["load-module", module] + arguments, environment: ["PULSE_SERVER": address])
        XCTAssertEqual(r.status, 0, "pactl load-module \(module): \(r.stderr)", file: file, line: line)
    }

    /// Ends a recording started by `record(to:)`: the recorder writes its header and exits.
    public static func finish(_ recorder: Process) {
        recorder.interrupt()
        recorder.waitUntilExit()
    }
}

import Foundation
import TemperaAudio
import TemperaCore
import XCTest

/// Shared fixtures: temporary folders, synthetic samples with exactly known shapes, documents built in code,
/// and a private PulseAudio server.
enum Fixture {
    static let rate = 48_000.0

    static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    static var kitDirectory: String { repositoryRoot + "/Samples" }

    /// A fresh temporary folder.
    static func temporaryDirectory(_ name: String = "audio") -> String {
        let dir = NSTemporaryDirectory() + "tempera-\(name)-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// `frames` frames of a constant level: its first frame is not zero, so an onset is found exactly.
    static func block(frames: Int, level: Float = 0.5) -> [Float] { [Float](repeating: level, count: frames) }

    /// A sine at `hz`, starting at phase 0.
    static func sine(hz: Double, seconds: Double, amp: Float = 0.5, rate: Double = rate) -> [Float] {
        (0..<Int(seconds * rate)).map { amp * Float(sin(2 * Double.pi * hz * Double($0) / rate)) }
    }

    /// Writes a mono WAV (24-bit unless told otherwise) and returns its path.
    @discardableResult
    static func wav(_ samples: [Float], in dir: String, name: String, rate: Int = 48_000,
                    as container: AudioFile.Container = .wavFloat) throws -> String {
        let path = dir + "/" + name
        try AudioFile.write(samples, sampleRate: rate, to: path, as: container)
        return path
    }

    /// A document with one track per line of (time, content) pairs; 16 slots from `slots` (empty beyond).
    static func document(tracks: [[(Double, Content?)]], slots: [ClipSlot], tempo: Double = 1, span: Double = 1,
                         volume: Double = 1, amp: Double = 1) -> Document {
        let ts = tracks.enumerated().map { i, items in
            Track(name: "t\(i + 1)", markers: MarkerList(items.enumerated().map { k, item in
                Marker(id: MarkerID(k), time: item.0, amp: amp, content: item.1)
            }))
        }
        var allSlots = slots
        while allSlots.count < 16 { allSlots.append(ClipSlot()) }
        return Document(tracks: ts, slots: allSlots,
                        transport: Transport(tempo: tempo, volume: volume, loopStart: 0, loopEnd: span, loopOn: true,
                                             length: span))
    }

    /// The first frame at or after `from` whose left sample is not zero.
    static func firstSound(_ stereo: [Float], from: Int = 0) -> Int? {
        var i = from
        while i < stereo.count / 2 {
            if stereo[2 * i] != 0 { return i }
            i += 1
        }
        return nil
    }

    /// Frames where sound starts after at least `gap` silent frames (onsets of non-overlapping clips).
    static func soundStarts(_ stereo: [Float], gap: Int = 8) -> [Int] {
        var starts: [Int] = []
        var silent = gap
        for i in 0..<(stereo.count / 2) {
            if stereo[2 * i] == 0 && stereo[2 * i + 1] == 0 {
                silent += 1
            } else {
                if silent >= gap { starts.append(i) }
                silent = 0
            }
        }
        return starts
    }
}

/// A private PulseAudio server with a 48 kHz float null sink `out`, started by the repository's script.
final class PulseTestServer {
    let dir: String
    let address: String

    init() throws {
        dir = Fixture.temporaryDirectory("pulse")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixture.repositoryRoot + "/scripts/pulse-test-server")
        p.arguments = ["start", dir]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        p.waitUntilExit()
        let out = String(data: pipe.fileHandleForReading.readDataToEndOfFile(), encoding: .utf8) ?? ""
        guard p.terminationStatus == 0 else { throw XCTSkip("no private PulseAudio server could start") }
        address = out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func stop() {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixture.repositoryRoot + "/scripts/pulse-test-server")
        p.arguments = ["stop", dir]
        try? p.run()
        p.waitUntilExit()
    }

    /// Records the sink's monitor to a float WAV until `finish` is called.
    func record(to path: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/parecord")
        p.arguments = ["--device=out.monitor", "--format=float32le", "--rate=48000", "--channels=2",
                       "--file-format=wav", path]
        var env = ProcessInfo.processInfo.environment
        env["PULSE_SERVER"] = address
        p.environment = env
        try p.run()
        return p
    }

    static func finish(_ recorder: Process) {
        recorder.interrupt()
        recorder.waitUntilExit()
    }
}

/// Fails with the first differing frame (never prints whole buffers).
func assertSamplesEqual(_ a: [Float], _ b: [Float], accuracy: Float = 0, file: StaticString = #filePath, line: UInt = #line) {
    guard a.count == b.count else {
        XCTFail("lengths differ: \(a.count / 2) and \(b.count / 2) frames", file: file, line: line)
        return
    }
    for i in a.indices where abs(a[i] - b[i]) > accuracy {
        XCTFail("frame \(i / 2) channel \(i % 2): \(a[i]) != \(b[i])", file: file, line: line)
        return
    }
}

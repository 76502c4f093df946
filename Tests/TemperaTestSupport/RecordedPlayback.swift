import Foundation
import TemperaAudio
import TemperaCore
import XCTest

/// What a private server heard when a fresh engine played a document: the recording, the frames of it that
/// line up with an offline render, and the underruns the engine counted.
public struct RecordedPlayback {
    /// The monitor's recording, interleaved stereo at 48 kHz.
    public var samples: [Float]
    public var underruns: Int

    /// The recording's frames that line up with `offline` (its first sound on the render's first sound), as
    /// many as the render holds; nil when nothing was recorded or too little.
    public func aligned(with offline: [Float]) -> [Float]? {
        guard let first = Onsets.firstSound(samples), let lead = Onsets.firstSound(offline), first >= lead else { return nil }
        let offset = (first - lead) * 2
        guard samples.count >= offset + offline.count else { return nil }
        return Array(samples[offset..<(offset + offline.count)])
    }
}

extension PulseTestServer {
    /// Plays `document` `loops` times through a fresh `AudioEngine` on this server while recording the monitor
    /// into `dir`, letting it ring `ringOut` seconds after the end. A loaded machine may underrun, which
    /// delays what follows: then it plays again, at most `attempts` times in all, and returns the last try.
    public func recordPlayback(of document: Document, baseDirectory: String, loops: Int, in dir: String,
                               ringOut: Double = 0.3, attempts: Int = 5,
                               file: StaticString = #filePath, line: UInt = #line) throws -> RecordedPlayback {
        setenv("PULSE_SERVER", address, 1)
        var result = RecordedPlayback(samples: [], underruns: 0)
        for attempt in 1...attempts {
            let path = dir + "/rec\(attempt).wav"
            let recorder = try record(to: path)
            usleep(800_000)   // an idle null sink stalls its first writes: let the recording settle first
            let engine = AudioEngine()
            XCTAssertEqual(engine.load(document: document, baseDirectory: baseDirectory), [], file: file, line: line)
            engine.start()
            let deadline = Date().addingTimeInterval(2)
            while Date() < deadline, !{ if case .running = engine.status { return true } else { return false } }() {
                usleep(10_000)
            }
            usleep(300_000)
            engine.play(loops: loops)
            let end = Date().addingTimeInterval(15)
            while Date() < end, !engine.isFinished { usleep(10_000) }
            XCTAssertTrue(engine.isFinished, "the engine never finished its \(loops) passes", file: file, line: line)
            usleep(UInt32(ringOut * 1_000_000))
            result.underruns = engine.underruns
            engine.stop()
            PulseTestServer.finish(recorder)
            result.samples = try AudioFile.read(path).samples
            if result.underruns == 0 { break }
        }
        return result
    }
}

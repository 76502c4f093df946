import Foundation
@testable import TemperaAudio
import TemperaCore
import XCTest

/// Shared fixtures: synthetic samples with exactly known shapes and documents built in code.
enum Fixture {
    static let rate = 48_000.0

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

/// A render state (the audio thread's) that has adopted a published snapshot of one track with a clip at 0 on
/// slot 1 playing `buffer`, its master level already at the document's volume, for tests that drive
/// `RenderState.render` by hand; everything is freed after `body`.
func withOneClipRenderState(_ buffer: SampleBuffer,
                            _ body: (UnsafeMutablePointer<RenderState>, UnsafeMutablePointer<EngineShared>) throws -> Void) rethrows {
    let doc = Fixture.document(tracks: [[(0, .clip(1))]], slots: [ClipSlot(file: "dc.wav")])
    let snap = PublishedSnapshot(seq: 1, document: doc, events: EventCompiler().events(for: doc),
                                 sampleRate: 48_000, samples: [[buffer]])
    try RenderState.withAdopted(snap, rate: 48_000, body)
}

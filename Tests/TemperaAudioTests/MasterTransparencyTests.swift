import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// The master is a safety net, not an effect: below its ceiling (-0.3 dBFS) a clip comes out bit for bit, times
/// the pan law; above it the limiter; and `render --true-peak` holds the peak between samples too.
final class MasterTransparencyTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("master") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// 2 ms of silence (the attack ramps over nothing), `seconds` of a 997 Hz tone with a second partial whose
    /// loudest sample is exactly `peak`, and 5 ms of silence (the loader's end fade fades nothing).
    static func clip(peak: Float, seconds: Double = 0.2) -> [Float] {
        let tone = (0..<Int(seconds * 48_000)).map { i -> Double in
            let t = Double(i) / 48_000
            return sin(2 * .pi * 997 * t) + 0.3 * sin(2 * .pi * 2_311 * t + 1)
        }
        let top = tone.map(abs).max()!
        return [Float](repeating: 0, count: 96) + tone.map { Float($0 / top) * peak } + [Float](repeating: 0, count: 240)
    }

    func testAClipAtUnityPeakingAt095ComesOutBitForBitTimesThePanLaw() throws {
        let loud = Self.clip(peak: 0.95)
        XCTAssertEqual(loud.map(abs).max(), 0.95)
        // Panned, the law raises one side (by up to 3 dB): a clip of 0.7 stays below the ceiling there.
        let panned = Self.clip(peak: 0.7)
        let a = try Fixture.wav(loud, in: dir, name: "loud.wav")
        let b = try Fixture.wav(panned, in: dir, name: "panned.wav")
        let doc = Fixture.document(tracks: [[(0.1, .clip(1))], [(0.5, .clip(2))]],
                                   slots: [ClipSlot(file: a), ClipSlot(file: b, pan: 0.6)])
        let out = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 1).renderAll()
        XCTAssertEqual(out.count, 2 * 48_000)
        let law = Pan.gains(0.6)
        var expected = [Float](repeating: 0, count: out.count)
        for (i, x) in loud.enumerated() {
            expected[2 * (4_800 + i)] = x
            expected[2 * (4_800 + i) + 1] = x
        }
        for (i, x) in panned.enumerated() {
            expected[2 * (24_000 + i)] = x * Float(law.left)
            expected[2 * (24_000 + i) + 1] = x * Float(law.right)
        }
        XCTAssertGreaterThan(Float(law.right) * 0.7, 0.9)
        assertSamplesEqual(out, expected)
        XCTAssertEqual(out.map(abs).max(), 0.95)
    }

    func testAboveTheCeilingTheLimiterHoldsTheMixAtMinus03dBFS() throws {
        let a = try Fixture.wav(Fixture.block(frames: 4_800, level: 0.6), in: dir, name: "dc.wav")
        let doc = Fixture.document(tracks: [[(0, .clip(1))], [(0, .clip(1))]], slots: [ClipSlot(file: a)])
        let out = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0).renderAll()
        XCTAssertEqual(RenderState.limit, Float(pow(10, -0.3 / 20)), accuracy: 1e-7)
        XCTAssertEqual(out[2 * 2_000], RenderState.limit, accuracy: 1e-6)
        XCTAssertLessThanOrEqual(out.map(abs).max()!, RenderState.limit)
    }

    /// A 12 kHz tone at 45 degrees: its samples peak at 0.92, its true peak (between them) at 1.3.
    func testRenderTruePeakHoldsThePeakBetweenSamplesAndLeavesTheRestAlone() throws {
        let tone = (0..<4_800).map { Float(1.3 * sin(Double.pi / 2 * Double($0) + Double.pi / 4)) }
        let quiet = Fixture.sine(hz: 440, seconds: 0.2, amp: 0.4)
        let a = try Fixture.wav([Float](repeating: 0, count: 96) + tone + [Float](repeating: 0, count: 240),
                                in: dir, name: "tone.wav")
        let b = try Fixture.wav([Float](repeating: 0, count: 96) + quiet + [Float](repeating: 0, count: 240),
                                in: dir, name: "quiet.wav")
        let doc = Fixture.document(tracks: [[(0.1, .clip(1))], [(0.6, .clip(2))]],
                                   slots: [ClipSlot(file: a), ClipSlot(file: b)])
        let renderer = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 1)
        let plainPath = dir + "/plain.wav", limitedPath = dir + "/limited.wav"
        try renderer.write(to: plainPath, bits: .float32)
        try renderer.write(to: limitedPath, bits: .float32, truePeak: true)
        let plain = try AudioFile.read(plainPath).samples, limited = try AudioFile.read(limitedPath).samples
        XCTAssertEqual(limited.count, plain.count, "the limiter's delay is returned: the render keeps its length")
        let frames = plain.count / 2
        let plainTruePeak = (0..<frames).map { TruePeakLimiter.truePeak(of: plain, at: $0) }.max()!
        let limitedTruePeak = (0..<frames).map { TruePeakLimiter.truePeak(of: limited, at: $0) }.max()!
        print(String(format: "true peak: plain %.4f (%.2f dBTP), limited %.4f (%.2f dBTP)", plainTruePeak,
                     20 * log10(plainTruePeak), limitedTruePeak, 20 * log10(limitedTruePeak)))
        // The sample peak passes the master untouched; the true peak is 2.6 dB over the ceiling.
        XCTAssertLessThan(plain.map(abs).max()!, RenderState.limit)
        XCTAssertGreaterThan(plainTruePeak, 1.25)
        XCTAssertLessThanOrEqual(limitedTruePeak, OfflineRenderer.truePeakCeiling * 1.001, "within 0.01 dB of the ceiling")
        XCTAssertGreaterThan(limitedTruePeak, OfflineRenderer.truePeakCeiling * 0.98)
        // Once the gain is back, the quiet clip is the plain render's, bit for bit.
        assertSamplesEqual(Array(limited[(2 * 28_800)...]), Array(plain[(2 * 28_800)...]))
        XCTAssertGreaterThan(plain[(2 * 28_800)...].map(abs).max()!, 0.39)
        // Before the tone, nothing changes either.
        assertSamplesEqual(Array(limited[..<(2 * 4_700)]), Array(plain[..<(2 * 4_700)]))
    }

    func testTheRenderCommandTakesTruePeak() throws {
        let tone = (0..<4_800).map { Float(1.3 * sin(Double.pi / 2 * Double($0) + Double.pi / 4)) }
        let a = try Fixture.wav([Float](repeating: 0, count: 96) + tone, in: dir, name: "tone.wav")
        let path = dir + "/doc.tempera"
        try DocumentFile.save(Fixture.document(tracks: [[(0.1, .clip(1))]], slots: [ClipSlot(file: a)]), to: path)
        let run = Spawn.run(TestPaths.binary, ["render", path, "-o", dir + "/out.wav", "--bits", "32f", "--true-peak"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let out = try AudioFile.read(dir + "/out.wav").samples
        XCTAssertEqual(out.count, 2 * 48_000)
        let peak = (0..<(out.count / 2)).map { TruePeakLimiter.truePeak(of: out, at: $0) }.max()!
        XCTAssertLessThanOrEqual(peak, OfflineRenderer.truePeakCeiling * 1.001)
        XCTAssertGreaterThan(peak, OfflineRenderer.truePeakCeiling * 0.98)
    }
}

import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// `tempera import --slice` rendered back by `tempera render` is the recording again (a null below -60 dB), on
/// real drum loops and a generated one, and a slice moved later moves alone.
final class SliceNullTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("slice-null") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Residual in dB of `y` against `x` (interleaved alike) over `x`'s length: the difference's energy over `x`'s.
    static func residual(_ y: [Float], _ x: [Float]) -> Double {
        var e = 0.0, d = 0.0
        for i in x.indices {
            let v = i < y.count ? y[i] : 0
            e += Double(x[i] * x[i])
            d += Double((v - x[i]) * (v - x[i]))
        }
        return 10 * log10(max(d, 1e-30) / e)
    }

    /// Imports `path` sliced, renders the document with the program at the file's rate as 32-bit float, and
    /// returns the render (stereo) and the file as stereo.
    func sliceAndRender(_ path: String) throws -> (render: [Float], original: [Float], document: Document) {
        let json = dir + "/sliced.json", out = dir + "/rendered.wav"
        let imported = Spawn.run(TestPaths.binary, ["import", path, "-o", json, "--slice"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let sound = try AudioImport.read(path)
        let rendered = Spawn.run(TestPaths.binary, ["render", json, "-o", out, "--sample-rate", "\(sound.sampleRate)", "--bits", "32f"])
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        let back = try AudioFile.read(out)
        XCTAssertEqual(back.channels, 2)
        // The recording as the renderer plays a file: mono doubled, stereo as it is.
        var original = [Float](repeating: 0, count: sound.mono.count * 2)
        for f in 0..<sound.mono.count {
            original[2 * f] = sound.samples[f * sound.channels]
            original[2 * f + 1] = sound.samples[f * sound.channels + (sound.channels > 1 ? 1 : 0)]
        }
        return (back.samples, original, try DocumentFile.load(json))
    }

    func testRealDrumLoopsNull() throws {
        let loops = ["/usr/share/sonic-pi/samples/loop_amen.flac", "/usr/share/sonic-pi/samples/loop_compus.flac",
                     "/usr/share/lmms/samples/beats/break01.ogg", "/usr/share/lmms/samples/beats/909beat01.ogg"]
        for path in loops {
            guard FileManager.default.fileExists(atPath: path) else {
                XCTFail("\(path) is missing: install sonic-pi-samples and lmms-common (make test does)")
                continue
            }
            let (y, x, doc) = try sliceAndRender(path)
            // A loop peaking above the master's limit (-0.3 dBFS) plays at the gain that keeps it just below.
            let peak = x.reduce(0) { max($0, abs($1)) }
            let gain = doc.slot(1).gain
            XCTAssertEqual(gain, AudioImport.sliceGain(peak: peak))
            XCTAssertEqual(gain == 1, peak < 0.966, "\(path): peak \(peak), gain \(gain)")
            let db = Self.residual(y, x.map { $0 * Float(gain) })
            print("sliced \((path as NSString).lastPathComponent) (\(doc.tracks[0].markers.count) slices, peak "
                  + "\(peak), gain \(gain)) against the original: \((db * 10).rounded() / 10) dB")
            XCTAssertLessThan(db, -60, path)
        }
    }

    /// A loop whose sound never stops: a low drone under the default kit's hits, loud from its first sample, so every
    /// slice's start and end falls inside the sound.
    func droneLoop() throws -> (path: String, samples: [Float]) {
        var x = AudioImportTests.render(AudioImportTests.kitDocument(), seconds: 2.3)
        let rate = Double(AudioImportTests.rate)
        for i in x.indices { x[i] += 0.3 * Float(sin(2 * Double.pi * 55 * Double(i) / rate + 1.0)) }
        let path = dir + "/drone.wav"
        try AudioFile.write(x, sampleRate: AudioImportTests.rate, to: path, as: .wavFloat)
        return (path, x)
    }

    func testAGeneratedLoopNullsFromItsFirstSample() throws {
        let (path, x) = try droneLoop()
        let (y, original, doc) = try sliceAndRender(path)
        let db = Self.residual(y, original)
        print("sliced drone loop (\(doc.tracks[0].markers.count) slices) against the original: \((db * 10).rounded() / 10) dB")
        XCTAssertLessThan(db, -60)
        // Its first 2.5 ms (a fade-in before) are the file's own.
        let head = Int(0.0025 * Double(AudioImportTests.rate))
        XCTAssertLessThan(Self.residual(Array(y.prefix(2 * head)), Array(original.prefix(2 * head))), -60)
        XCTAssertEqual(x.count * 2, original.count)
    }

    func testAMovedSliceMovesAloneAndTheOneBeforeStopsAtItsOwnEnd() throws {
        let (path, x) = try droneLoop()
        let json = dir + "/drone.json"
        XCTAssertEqual(Spawn.run(TestPaths.binary, ["import", path, "-o", json, "--slice"]).status, 0)
        var doc = try DocumentFile.load(json)
        let markers = Array(doc.tracks[0].markers)
        XCTAssertTrue(markers.dropLast().enumerated().allSatisfy { $0.element.to == markers[$0.offset + 1].time }, "\(markers)")
        XCTAssertEqual(markers.last?.to ?? 0, Double(x.count) / Double(AudioImportTests.rate), accuracy: 1e-9)
        // Slice 4 ten milliseconds later.
        let k = 3, delta = 441, rate = Double(AudioImportTests.rate)
        let t0 = Int((markers[k].time * rate).rounded()), t1 = Int((markers[k + 1].time * rate).rounded())
        doc.tracks[0].markers = MarkerList(markers.enumerated().map { i, m in
            var m = m
            if i == k { m.time += Double(delta) / rate }
            return m
        })
        let y = AudioImportTests.render(doc, baseDirectory: dir, seconds: 2.3)
        let ramp = Int(AudioImport.sliceFade / 1000 * rate) + 2
        // Before the slice's old place and after the next slice's start (and its crossfade): the original.
        XCTAssertLessThan(AudioImportTests.residual(y, x, 0..<t0), -60)
        XCTAssertLessThan(AudioImportTests.residual(y, x, (t1 + ramp)..<x.count), -60)
        // The slice before stops at its own end: once its release is over, nothing sounds until the moved slice.
        let gap = (t0 + ramp)..<(t0 + delta)
        XCTAssertEqual(gap.map { abs(y[$0]) }.max() ?? 1, 0, "the moved slice's attack sounds where it was")
        // The moved slice plays its own part of the file, 10 ms late, up to the next slice.
        var late = x
        for i in (t0 + delta)..<t1 { late[i] = x[i - delta] }
        XCTAssertLessThan(AudioImportTests.residual(y, late, (t0 + delta + ramp)..<t1), -60)
    }
}

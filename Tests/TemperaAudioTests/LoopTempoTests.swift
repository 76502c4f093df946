import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// The tempo of real drum loops of Debian's sonic-pi-samples and lmms-common (none of them used to tune the
/// detector), at their own rates and resampled.
final class LoopTempoTests: XCTestCase {
    static let sonicPi = "/usr/share/sonic-pi/samples/"
    static let lmms = "/usr/share/lmms/samples/beats/"

    /// Each loop, its tempo, and why. A loop is whole bars, so its tempo is (beats in the file) / (its length),
    /// and the count of beats is read from the pattern: where the kick and snare fall, the hats' spacing.
    static let loops: [(file: String, bpm: Double, why: String)] = [
        (sonicPi + "loop_amen.flac", 136.9, "1.753 s: one bar of the Amen break, kick and snare on a 16th grid"),
        (sonicPi + "loop_amen_full.flac", 140.0, "6.857 s: four bars of the break"),
        (sonicPi + "loop_breakbeat.flac", 126.0, "1.905 s: one bar, snare on beats 2 and 4"),
        (sonicPi + "loop_compus.flac", 148.0, "6.486 s: four bars, the low hits 0.405 s apart"),
        (sonicPi + "loop_electric.flac", 97.0, "2.474 s: one bar, as the set's loop_drone_g_97 (two bars at 97)"),
        (sonicPi + "loop_garzul.flac", 120.0, "8 s: four bars"),
        (sonicPi + "loop_industrial.flac", 135.8, "0.884 s: two beats, eight even hits (sixteenths)"),
        (sonicPi + "loop_mehackit1.flac", 97.0, "2.474 s: one bar"),
        (sonicPi + "loop_mehackit2.flac", 97.0, "2.474 s: one bar"),
        (sonicPi + "loop_mika.flac", 120.0, "8 s: four bars"),
        (sonicPi + "loop_perc1.flac", 97.0, "2.474 s: one bar"),
        (sonicPi + "loop_perc2.flac", 97.0, "2.474 s: one bar"),
        (sonicPi + "loop_safari.flac", 119.9, "8.005 s: four bars"),
        (sonicPi + "loop_tabla.flac", 89.9, "10.674 s: the sixteen beats of teental, four strokes a beat (0.167 s)"),
        (sonicPi + "loop_weirdo.flac", 97.0, "4.948 s: two bars"),
        (lmms + "909beat01.ogg", 121.5, "3.952 s: two bars, kick on the beat (0.494 s)"),
        (lmms + "break01.ogg", 166.8, "1.439 s: one bar of eighths (0.180 s)"),
        (lmms + "break02.ogg", 139.6, "1.720 s: one bar"),
        (lmms + "break03.ogg", 166.7, "1.440 s: one bar of eighths"),
        (lmms + "electro_beat01.ogg", 120.0, "4 s: two bars"),
        (lmms + "electro_beat02.ogg", 120.0, "2 s: one bar"),
        (lmms + "house_loop01.ogg", 142.0, "1.690 s: one bar of eighths (0.212 s)"),
        (lmms + "jungle01.ogg", 167.5, "2.780 s: eighths 0.179 s apart, two bars cut 0.09 s short"),
        (lmms + "rave_kick01.ogg", 180.6, "2.658 s: two bars, a kick on every beat (0.332 s)"),
        (lmms + "rave_hihat01.ogg", 180.4, "2.661 s: two bars, the hat loop of the same set"),
    ]

    func testTheTempoOfRealLoopsWithinTwoPercent() throws {
        var right = 0
        var lines: [String] = []
        for loop in Self.loops {
            guard FileManager.default.fileExists(atPath: loop.file) else {
                return XCTFail("\(loop.file) is missing: install sonic-pi-samples and lmms-common (make test does)")
            }
            let r = try AudioImport.streamOnsets(path: loop.file)
            let duration = Double(r.frames) / Double(r.sampleRate)
            let tempo = try XCTUnwrap(AudioImport.tempo(duration: duration, onsets: r.onsets))
            let ok = abs(tempo.bpm / loop.bpm - 1) <= 0.02
            if ok { right += 1 }
            let name = (loop.file as NSString).lastPathComponent
            lines.append(name.padding(toLength: 22, withPad: " ", startingAt: 0)
                + String(format: " %6.1f %6.1f ", loop.bpm, tempo.bpm) + (ok ? "ok   " : "MISS ")
                + "\(tempo.meter)/4 \(tempo.wholeFile ? "loop" : "free") fit \(String(format: "%.2f", tempo.fit))  \(loop.why)")
        }
        print("loop                    truth  found\n" + lines.joined(separator: "\n"))
        print("\(right) of \(Self.loops.count) loops within 2%")
        XCTAssertGreaterThanOrEqual(Double(right) / Double(Self.loops.count), 0.9)
    }

    /// The same audio at 44.1, 48 and 22.05 kHz (resampled with sox) has the same tempo.
    func testTheTempoDoesNotDependOnTheSampleRate() throws {
        let dir = TestPaths.temporaryDirectory("tempo-rate")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for name in ["loop_amen.flac", "loop_breakbeat.flac", "loop_mika.flac"] {
            var found: [Double] = []
            for rate in [44_100, 48_000, 22_050] {
                let out = dir + "/\(rate)-\(name).wav"
                let r = Spawn.run("/usr/bin/sox", [Self.sonicPi + name, "-r", "\(rate)", out])
                XCTAssertEqual(r.status, 0, r.stderr)
                let s = try AudioImport.streamOnsets(path: out)
                let tempo = try XCTUnwrap(AudioImport.tempo(duration: Double(s.frames) / Double(s.sampleRate), onsets: s.onsets))
                found.append(tempo.bpm)
            }
            print("\(name) at 44.1, 48, 22.05 kHz: \(found) BPM")
            XCTAssertLessThanOrEqual((found.max()! - found.min()!) / found.min()!, 0.005, name)
        }
    }

    /// Importing a loop sets the document's beat, meter, grid and loop to it: the grid's bar lines fall on the
    /// loop's start and end.
    func testAnImportedLoopHasItsTempoInTheDocument() throws {
        let path = Self.sonicPi + "loop_amen_full.flac"
        let (doc, _, _) = try AudioImport.document(path: path, options: AudioImport.Options(fileReference: path))
        XCTAssertEqual(60 / doc.transport.beat, 140, accuracy: 140 * 0.02)
        XCTAssertEqual(doc.transport.meter, 4)
        XCTAssertEqual(doc.transport.grid, 4)
        XCTAssertEqual(doc.transport.loopStart, 0)
        let bars = doc.transport.loopEnd / (4 * doc.transport.beat)
        XCTAssertEqual(bars, bars.rounded(), accuracy: 0.02, "the loop is whole bars: \(bars)")
        XCTAssertEqual(bars.rounded(), 4)
    }

    /// A recording that is not whole bars (a quarter second before its first hit, a tail after the last) gets
    /// its onsets' own period as its tempo and keeps the whole file as its loop.
    func testARecordingThatIsNotALoopKeepsTheWholeFileAsItsLoop() throws {
        let onsets: [AudioImport.Onset] = (0..<10).map { (i: Int) -> AudioImport.Onset in
            let late: Double = i % 3 == 1 ? 0.002 : 0
            return AudioImport.Onset(time: 0.25 + 0.6 * Double(i) + late, peak: 0.5)
        }
        let tempo = try XCTUnwrap(AudioImport.tempo(duration: 6.93, onsets: onsets))
        XCTAssertFalse(tempo.wholeFile)
        XCTAssertEqual(tempo.bpm, 100, accuracy: 0.5)
        var doc = Document(tracks: [])
        doc.transport.length = 6.93
        doc.transport.loopStart = 0
        doc.transport.loopEnd = 6.93
        AudioImport.apply(tempo, to: &doc)
        XCTAssertEqual(doc.transport.beat, 0.6, accuracy: 0.003)
        XCTAssertEqual(doc.transport.loopStart, 0)
        XCTAssertEqual(doc.transport.loopEnd, 6.93)
        XCTAssertTrue(AudioImport.summary(onsets, duration: 6.93).hasSuffix("BPM in 4/4 from the onsets' spacing (not a loop of whole bars)"))
    }
}

import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaKits
import TemperaTestSupport
import XCTest

/// `tempera import` checked against Hydrogen itself: the same song rendered by `h2cli` and by tempera puts every
/// note on the same instant.
///
/// Onsets are measured exactly by giving both programs the same clicks for samples: a copy of the song points
/// at a kit whose every sample is a 2 ms click, so each note is the first loud frame after silence in both
/// renders. The song's notes, tempo and sequence are Hydrogen's own; only its humanize and swing are set to
/// zero (random timing cannot be compared).
final class H2cliComparisonTests: XCTestCase {
    static let demo = "/usr/share/hydrogen/data/demo_songs/GM_kit_demo1.h2song"
    static let h2cli = "/usr/bin/h2cli"

    /// The first frame of each sound: a frame above `threshold` after at least `gap` quiet frames.
    static func onsets(_ stereo: [Float], threshold: Float = 2e-3, gap: Int = 200) -> [Int] {
        var out: [Int] = []
        var lastLoud = -gap - 1
        for f in 0..<(stereo.count / 2) where abs(stereo[2 * f]) + abs(stereo[2 * f + 1]) > threshold {
            if f - lastLoud > gap { out.append(f) }
            lastLoud = f
        }
        return out
    }

    /// Replaces the text of every `<name>…</name>` element.
    static func setting(_ text: String, _ name: String, to value: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let open = rest.range(of: "<\(name)>"), let close = rest[open.upperBound...].range(of: "</\(name)>") {
            out += rest[..<open.upperBound] + value
            rest = rest[close.lowerBound...]
        }
        return out + rest
    }

    func testTheImportedDemoSongSoundsWhereH2cliPutsItsNotes() throws {
        let fm = FileManager.default
        guard fm.isExecutableFile(atPath: Self.h2cli), fm.fileExists(atPath: Self.demo) else {
            throw XCTSkip("skipped: needs h2cli and \(Self.demo) (Debian's hydrogen and hydrogen-data)")
        }
        let dir = TestPaths.temporaryDirectory("h2cli")
        defer { try? fm.removeItem(atPath: dir) }
        let home = dir + "/home"
        let userKits = home + "/.hydrogen/data/drumkits"
        let kit = userKits + "/ClickKit"
        try fm.createDirectory(atPath: kit, withIntermediateDirectories: true)

        // The song, humanize and swing at zero, its instruments pointed at the click kit in the user's folder.
        var song = try String(contentsOfFile: Self.demo, encoding: .utf8)
        for key in ["humanize_time", "humanize_velocity", "swing_factor"] { song = Self.setting(song, key, to: "0") }
        song = Self.setting(song, "drumkit", to: "ClickKit")
        song = Self.setting(song, "drumkitLookup", to: "1")
        let songPath = dir + "/demo1.h2song"
        try song.write(toFile: songPath, atomically: true, encoding: .utf8)
        var files = Set<String>()
        var rest = Substring(song)
        while let open = rest.range(of: "<filename>"), let close = rest[open.upperBound...].range(of: "</filename>") {
            let name = String(rest[open.upperBound..<close.lowerBound])
            if !name.isEmpty && name != "-" && !name.contains("/") { files.insert(name) }
            rest = rest[close.upperBound...]
        }
        XCTAssertFalse(files.isEmpty)
        let click = [Float](repeating: 0.25, count: 96)
        for f in files { try AudioFile.write(click, sampleRate: 48_000, to: kit + "/" + f, as: .wav16) }
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <drumkit_info><name>ClickKit</name><license>CC0</license><instrumentList>
             <instrument><id>0</id><name>Click</name><volume>1</volume><filename>\(files.sorted()[0])</filename></instrument>
            </instrumentList></drumkit_info>
            """.write(toFile: kit + "/drumkit.xml", atomically: true, encoding: .utf8)

        // Hydrogen's render. h2cli exports through its disk writer whatever the driver; `-d alsa` fails to open
        // a device at once here (no sound card), where `auto` first waits about 25 s for a JACK server.
        let hydrogenWav = dir + "/hydrogen.wav"
        let run = Spawn.run("/usr/bin/timeout", ["180", Self.h2cli, "-s", songPath, "-o", hydrogenWav, "-d", "alsa",
                                                 "-r", "48000"], environment: ["HOME": home])
        XCTAssertEqual(run.status, 0, run.stderr.suffix(500).description)
        let hydrogen = try AudioFile.read(hydrogenWav)
        XCTAssertEqual(hydrogen.channels, 2)
        XCTAssertEqual(hydrogen.sampleRate, 48_000)

        // tempera's: the import, rendered as its song.
        let (doc, warnings) = try HydrogenSong.document(path: songPath, kits: HydrogenKits(roots: [userKits]))
        XCTAssertEqual(warnings, [])
        let expected = Array(Set(SongSchedule(document: doc, sampleRate: 48_000).onsets(songPass: 0).map { Int($0.frame) })).sorted()
        let renderer = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 1)
        XCTAssertEqual(renderer.warnings, [])
        // tempera's render is floating point and every start ramps up over 1 ms: its first frame is small but
        // never zero.
        let tempera = Self.onsets(renderer.renderAll(), threshold: 1e-7)
        XCTAssertEqual(tempera, expected, "tempera plays every note on its scheduled frame")

        let heard = Self.onsets(hydrogen.samples)
        XCTAssertEqual(heard.count, expected.count, "h2cli's render holds as many onsets")
        var worst = 0
        for f in expected {
            let nearest = heard.min { abs($0 - f) < abs($1 - f) } ?? Int.max / 2
            worst = max(worst, abs(nearest - f))
        }
        print("h2cli comparison: \(expected.count) onsets, worst difference \(worst) frames "
            + "(\(String(format: "%.3f", Double(worst) / 48)) ms)")
        XCTAssertLessThanOrEqual(worst, 48, "every onset within 1 ms of Hydrogen's")
    }

    static let demoSongs = ["GM_kit_Diddley", "GM_kit_Jazzy", "GM_kit_demo1", "GM_kit_demo2", "GM_kit_demo3",
                            "TR808kit-demo", "tutorial_georgyporgy"].map { "/usr/share/hydrogen/data/demo_songs/\($0).h2song" }

    /// A copy of `song` (humanize and swing at zero) whose instruments all play a 20 ms click of 0.25 from a kit in
    /// `home`'s user folder, rendered by h2cli and by tempera's import of it. Returns both renders and the import.
    /// (20 ms: a click long enough to have a plateau between tempera's 1 ms start ramp and the short fade every
    /// sample ends with, so its peak is the note's level.)
    func clickRenders(_ song: String, in dir: String) throws -> (hydrogen: [Float], tempera: [Float], doc: Document) {
        let fm = FileManager.default
        let home = dir + "/home"
        let userKits = home + "/.hydrogen/data/drumkits"
        let kit = userKits + "/ClickKit"
        try fm.createDirectory(atPath: kit, withIntermediateDirectories: true)
        var text = try String(contentsOfFile: song, encoding: .utf8)
        for key in ["humanize_time", "humanize_velocity", "swing_factor"] { text = Self.setting(text, key, to: "0") }
        text = Self.setting(text, "drumkit", to: "ClickKit")
        text = Self.setting(text, "drumkitLookup", to: "1")
        let songPath = dir + "/song.h2song"
        try text.write(toFile: songPath, atomically: true, encoding: .utf8)
        var files = Set<String>()
        var rest = Substring(text)
        while let open = rest.range(of: "<filename>"), let close = rest[open.upperBound...].range(of: "</filename>") {
            let name = String(rest[open.upperBound..<close.lowerBound])
            if !name.isEmpty && name != "-" && !name.contains("/") { files.insert(name) }
            rest = rest[close.upperBound...]
        }
        let click = [Float](repeating: 0.25, count: 960)
        for f in files { try AudioFile.write(click, sampleRate: 48_000, to: kit + "/" + f, as: .wav16) }
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <drumkit_info><name>ClickKit</name><license>CC0</license><instrumentList>
             <instrument><id>0</id><name>Click</name><volume>1</volume><filename>\(files.sorted()[0])</filename></instrument>
            </instrumentList></drumkit_info>
            """.write(toFile: kit + "/drumkit.xml", atomically: true, encoding: .utf8)
        let wav = dir + "/hydrogen.wav"
        let run = Spawn.run("/usr/bin/timeout", ["180", Self.h2cli, "-s", songPath, "-o", wav, "-d", "alsa", "-r", "48000"],
                            environment: ["HOME": home])
        XCTAssertEqual(run.status, 0, run.stderr.suffix(500).description)
        let hydrogen = try AudioFile.read(wav)
        XCTAssertEqual(hydrogen.channels, 2)
        let (doc, _) = try HydrogenSong.document(path: songPath, kits: HydrogenKits(roots: [userKits]))
        let renderer = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 1)
        XCTAssertEqual(renderer.warnings, [])
        return (hydrogen.samples, renderer.renderAll(), doc)
    }

    /// The loudest sample of each side of `stereo` in frames `range`.
    static func peaks(_ stereo: [Float], _ range: Range<Int>) -> (left: Float, right: Float) {
        var l: Float = 0, r: Float = 0
        for f in range where 2 * f + 1 < stereo.count {
            l = max(l, abs(stereo[2 * f]))
            r = max(r, abs(stereo[2 * f + 1]))
        }
        return (l, r)
    }

    func testEveryDemoSongsInstrumentsSoundAtHydrogensLevelAndTheMasterNeverReachesTheSoftClip() throws {
        let fm = FileManager.default
        guard fm.isExecutableFile(atPath: Self.h2cli), Self.demoSongs.allSatisfy(fm.fileExists(atPath:)) else {
            throw XCTSkip("skipped: needs h2cli and Hydrogen's demo songs (Debian's hydrogen and hydrogen-data)")
        }
        for song in Self.demoSongs {
            let name = ((song as NSString).lastPathComponent as NSString).deletingPathExtension
            let dir = TestPaths.temporaryDirectory("h2levels")
            defer { try? fm.removeItem(atPath: dir) }
            let (hydrogen, tempera, doc) = try clickRenders(song, in: dir)
            let heard = Self.onsets(hydrogen, gap: 1_200)
            // The notes at each frame; a frame with no other note within 1,500 frames (the clicks cannot overlap
            // another's) is a place to compare: its clicks sum the same way in both renders.
            let onsets = SongSchedule(document: doc, sampleRate: 48_000).onsets(songPass: 0).filter { $0.clip > 0 }
            var byFrame: [Int: Set<Int>] = [:]
            for o in onsets { byFrame[Int(o.frame), default: []].insert(o.track) }
            let frames = byFrame.keys.sorted()
            var worst: [Int: Double] = [:]
            var compared = 0, offFrames = 0
            for (i, f) in frames.enumerated() {
                if i > 0, f - frames[i - 1] < 1_500 { continue }
                if i + 1 < frames.count, frames[i + 1] - f < 1_500 { continue }
                guard let h = heard.min(by: { abs($0 - f) < abs($1 - f) }), abs(h - f) <= 48 else { continue }
                offFrames = max(offFrames, abs(h - f))
                let t = Self.peaks(tempera, f..<(f + 1_100)), w = Self.peaks(hydrogen, max(0, h - 2)..<(h + 1_100))
                var error = 0.0
                for (a, b) in [(t.left, w.left), (t.right, w.right)] where max(a, b) > 1e-3 {
                    error = max(error, abs(20 * log10(Double(a) / Double(b))))
                }
                compared += 1
                for track in byFrame[f]! { worst[track] = max(worst[track] ?? 0, error) }
            }
            let tPeak = tempera.map(abs).max() ?? 0, hPeak = hydrogen.map(abs).max() ?? 0
            let peakDB = 20 * log10(Double(tPeak) / Double(hPeak))
            print(String(format: "h2cli levels %@: %d places, %d of %d instruments, worst %.3f dB, onsets %d frames apart; "
                + "peaks tempera %.4f h2cli %.4f (%.3f dB)", name, compared, worst.count, doc.tracks.count,
                worst.values.max() ?? 0, offFrames, tPeak, hPeak, peakDB))
            XCTAssertEqual(offFrames, 0, "\(name): every note on h2cli's frame")
            XCTAssertGreaterThan(compared, 10, name)
            XCTAssertEqual(worst.count, doc.tracks.count, "\(name): every instrument is compared somewhere")
            for (track, dB) in worst {
                XCTAssertLessThanOrEqual(dB, 0.5, "\(name): \(doc.tracks[track - 1].name) differs from h2cli by \(dB) dB")
            }
            XCTAssertLessThanOrEqual(abs(peakDB), 0.5, "\(name): the peaks differ by \(peakDB) dB")
            XCTAssertLessThan(tPeak, RenderState.clipKnee, "\(name): the master reaches the soft clip")
        }
    }
}

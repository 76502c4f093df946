import Foundation
import TemperaAudio
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
}

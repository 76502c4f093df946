import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// A whole piece composed with keys in the real program, from a new document: a groove, a tempered bell
/// section from the rhythm designer, a 3:1 swing at 160 BPM, a ramp from 100 to 140 BPM and an outro, every
/// key counted as it is sent (a typed code counts its characters). The saved song's onsets (`tempera events
/// --song`) are checked against times computed here from what was typed, and the song is rendered.
final class PieceTmuxTests: XCTestCase {
    private var editor: HeardEditor!

    override func setUpWithError() throws { editor = try HeardEditor("piece-tmux") }

    override func tearDown() { editor?.close() }

    private var session: TmuxSession { editor.session }

    func testAFiveSectionPieceInFewerThan200Keys() throws {
        let path = editor.dir + "/piece.json"
        editor.launch([path])
        XCTAssertTrue(editor.waitFor("new file"), session.screen())
        var counts: [(String, Int)] = []
        var count = 0
        /// Sends tmux key names, one key each.
        func press(_ keys: String...) {
            session.keys(keys)
            count += keys.count
        }
        /// Types text literally, one key a character.
        func type(_ text: String) {
            session.type(text)
            count += text.count
        }
        // Each wait reads the status line: the keys are sent as a musician types, and a key sent right after
        // Esc would read as Alt and that key.
        func until(_ text: String, _ line: UInt = #line) {
            XCTAssertTrue(editor.waitFor(text), "waiting for '\(text)':\n" + session.screen(), line: line)
        }
        func section(_ name: String) {
            counts.append((name, count - counts.reduce(0) { $0 + $1.1 }))
        }

        // 1. The groove over the new document's bar (four tracks of empty sixteenths): kick on 1 and 3, snare
        // on 2 and 4, closed hat in eighths, each spread over the loop with F.
        press("F"); type("1.1."); press("Enter")
        press("Down", "F"); type(".2.2"); press("Enter")
        press("Down", "F"); type("3x8"); press("Enter")
        // In the Song tab: the loop as section A, twice; track 4 (the bell to come) silent. A track added
        // later is not in the section's list of tracks: the swing's stays silent here too.
        press("F5", "a", "+", "Right", "Right", "Right", "Space")
        until("section 1 (A): track 4 is silent")
        section("groove")

        // 2. The bell: the cowbell (clip 10) stamped on track 4 from the rhythm designer, its five against seven
        // halfway between the rows; the section sounds the kick and the bell, twice.
        press("Escape")
        until("keys on the timeline")
        press("Down", "0", "F4", "s")
        until("stamped 5 markers")
        press("F5", "a", "Left", "Space", "Left", "Space")
        until("section 2 (B): track 2 is silent")
        press("+")
        until("section 2 (B): ×2")
        section("bell")

        // 3. The swing: a new track of hats swung 3:1 (a dotted eighth and a sixteenth), the section at 160 BPM
        // with kick, snare and the swung hats, twice.
        press("Escape")
        until("keys on the timeline")
        press("C-t", "F"); type("(3..3)x4"); press("Enter")
        until("8 new markers")
        press("F5", "a", "Right", "Space", "Right", "Space")
        until("section 3 (C): track 4 is silent")
        press("1", "6", "0", "s")
        until("section 3 (C): 160 BPM")
        press("+")
        until("section 3 (C): ×2")
        section("swing")

        // 4. The ramp: the groove four times, from 100 to 140 BPM over all four.
        press("a", "Space", "Right", "Space")
        until("section 4 (D): track 5 is silent")
        press("1", "0", "0", "s", "1", "4", "0", "e")
        until("100→140 BPM")
        press("+", "+", "+")
        until("section 4 (D): ×4")
        section("ramp")

        // 5. The outro: kick and bell once at 90 BPM; the song on, saved.
        press("a", "Space", "Left", "Left", "Space", "Left", "Space")
        until("section 5 (E): track 2 is silent")
        press("9", "0", "s")
        until("section 5 (E): 90 BPM")
        press("F6")
        until("playing the song")
        press("C-s")
        until("saved")
        section("outro")

        for (name, n) in counts { print("piece: \(name) \(n) keys") }
        print("piece: \(count) keys in all")
        XCTAssertLessThanOrEqual(count, 200)

        // What was typed, as musical content of the region [0, 2) at 120 BPM: (track from 1, clip, times).
        let fifths: [(Int, Int)] = [(0, 0), (1, 1), (3, 2), (4, 3), (6, 4)]
        // The designer's default: 7 against 5 over 2 s, slider 0.5: (1 - s) i L/7 + s j L/5.
        let designed: [Double] = fifths.map { (i: Int, j: Int) -> Double in
            0.5 * Double(i) * 2 / 7 + 0.5 * Double(j) * 2 / 5
        }
        let dotted: [Double] = (0..<4).flatMap { (b: Int) -> [Double] in [Double(b) * 0.5, Double(b) * 0.5 + 0.375] }
        let content: [Int: (clip: Int, times: [Double])] = [
            1: (1, [0, 1]),
            2: (2, [0.5, 1.5]),
            3: (3, (0..<8).map { (i: Int) -> Double in Double(i) * 0.25 }),
            4: (10, designed),
            5: (3, dotted),
        ]
        enum Tempo { case bpm(Double), ramp(Double, Double) }
        let sections: [(tracks: [Int], repeats: Int, tempo: Tempo)] = [
            ([1, 2, 3], 2, .bpm(120)), ([1, 4], 2, .bpm(120)), ([1, 2, 5], 2, .bpm(160)),
            ([1, 2, 3], 4, .ramp(100, 140)), ([1, 4], 1, .bpm(90)),
        ]
        // Play time of musical position u (seconds at 120 BPM from the section's start): u / tau for a constant
        // tempo, ln(tau(u) / tau0) / k for tau linear in u (k its slope over all the passes).
        func play(_ u: Double, _ tempo: Tempo, length: Double) -> Double {
            switch tempo {
            case .bpm(let b): return u / (b / 120)
            case .ramp(let a, let b):
                let t0 = a / 120, k = (b / 120 - t0) / length
                return log((t0 + k * u) / t0) / k
            }
        }
        var expected: [String] = []
        var offset = 0.0
        for (j, s) in sections.enumerated() {
            let length = Double(s.repeats) * 2
            for pass in 0..<s.repeats {
                for track in s.tracks {
                    let c = content[track]!
                    for t in c.times {
                        let time = offset + play(Double(pass) * 2 + t, s.tempo, length: length)
                        expected.append("section \(j + 1) track \(track) clip \(c.clip) frame \(Int((time * 48_000).rounded()))")
                    }
                }
            }
            offset += play(length, s.tempo, length: length)
        }

        let events = try TemperaProgram.run(["events", "--song", path])
        XCTAssertEqual(events.status, 0, events.stderr)
        let heard = try events.stdout.split(separator: "\n").map { line -> String in
            let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return "section \(o["section"]!) track \(o["track"]!) clip \(o["clip"]!) frame \(o["frame"]!)"
        }
        XCTAssertEqual(heard.count, expected.count)
        XCTAssertEqual(heard.sorted(), expected.sorted())
        print("piece: \(heard.count) onsets over \(String(format: "%.3f", offset)) s, each on its formula's frame")

        let wav = editor.dir + "/piece.wav"
        let render = try TemperaProgram.run(["render", "--song", path, "-o", wav, "--bits", "32f", "--tail", "2"])
        XCTAssertEqual(render.status, 0, render.stderr)
        let audio = try AudioFile.read(wav)
        let peak = audio.samples.reduce(Float(0)) { max($0, abs($1)) }
        XCTAssertGreaterThan(peak, 0.05, "the piece sounds")
        XCTAssertLessThanOrEqual(peak, 1)
        print("piece: rendered \(DocumentFile.number(Double(audio.samples.count / max(audio.channels, 1)) / 48_000)) s, "
              + "peak \(String(format: "%.3f", peak)) (\(String(format: "%.1f", 20 * log10(Double(peak)))) dBFS)")
    }
}

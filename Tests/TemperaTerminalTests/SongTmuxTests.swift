import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// The real program in a real terminal (tmux) playing through a private PulseAudio server: a two-section song
/// built in the Song tab with keys only, played, heard with its second section starting on the frame of the song's formula,
/// and the section add undone.
final class SongTmuxTests: XCTestCase {
    private var editor: HeardEditor!

    override func setUpWithError() throws { editor = try HeardEditor("song-tmux") }

    override func tearDown() { editor?.close() }

    private var session: TmuxSession { editor.session }

    private func waitFor(_ text: String, seconds: Double = 10) -> Bool { editor.waitFor(text, seconds: seconds) }

    func testATwoSectionSongBuiltWithKeysPlaysItsSecondSectionOnTheFormulasFrame() throws {
        // Clicks at 0 and 0.5 s in a one-second loop.
        let path = editor.dir + "/doc.json"
        try DocumentFile.save(editor.clickDocument(at: [0, 0.5], loop: 1), to: path)
        editor.launch([path])

        // The Song tab; the loop region as section 1, played twice; a copy of it as section 2, four BPM faster.
        session.keys(["F5"])
        XCTAssertTrue(waitFor("no section"), session.screen())
        session.keys(["a"])
        XCTAssertTrue(waitFor("1  A       1.1–1.3   ×1"), session.screen())
        session.keys(["+"])
        XCTAssertTrue(waitFor("×2"), session.screen())
        session.keys(["D"])
        XCTAssertTrue(waitFor("2  A       1.1–1.3   ×2"), session.screen())
        for _ in 0..<4 { session.keys([">"]) }
        XCTAssertTrue(waitFor("124*"), session.screen())
        session.keys(["F6"])
        XCTAssertTrue(waitFor("song 1/2"), session.screen())
        session.keys(["C-s"])
        XCTAssertTrue(waitFor("saved"), session.screen())

        let recorder = try editor.record("heard.wav")
        // In the Song tab Space toggles the grid's cell: Esc gives the keys to the timeline, where it plays.
        session.keys(["Escape"])
        XCTAssertTrue(waitFor("keys on the timeline"), session.screen())
        session.keys(["Space"])
        XCTAssertTrue(waitFor("playing"), session.screen())
        XCTAssertTrue(waitFor("song 2/2", seconds: 6), session.screen())
        // The song lasts 2 + 2/1.0333 s; then the transport stops.
        XCTAssertTrue(waitFor("paused", seconds: 8), session.screen())
        Thread.sleep(forTimeInterval: 0.3)
        PulseTestServer.finish(recorder)
        let screen = session.screen()

        let saved = try DocumentFile.load(path)
        XCTAssertEqual(saved.song.sections.count, 2)
        XCTAssertEqual(saved.song.sections[1].tempo, saved.transport.tempo(forBPM: 124))
        let expected = SongSchedule(document: saved, sampleRate: 48_000).onsets(songPass: 0).map { Int($0.frame) }
        XCTAssertEqual(expected.count, 8)
        XCTAssertEqual(expected[4], 96_000, "section 2 starts after two passes of one second")
        let heard = try AudioFile.read(editor.dir + "/heard.wav")
        let starts = Onsets.soundStarts(heard.samples, gap: 480)
        XCTAssertEqual(starts.count, 8, "\(starts)")
        // An underrun (the machine too busy to feed the server) delays what follows; the transport says so.
        let underruns = screen.split(separator: "\n").first.map { $0.contains("underrun") } ?? false
        if !underruns, let first = starts.first {
            XCTAssertEqual(starts.map { $0 - first }, expected)
        }

        // Undo everything the keys did, back to before the section add.
        for _ in 0..<8 { session.keys(["u"]) }
        XCTAssertTrue(waitFor("undid section add"), session.screen())
        XCTAssertTrue(waitFor("no section"), session.screen())
    }

    /// From a four-bar loop of quarters, an accelerando from 90 to 120 BPM over the four bars in ten keys,
    /// counted as they are sent, the last one playing it.
    func testAFourBarAccelerandoFrom90To120BPMInTenKeys() throws {
        let path = editor.dir + "/doc.json"
        try DocumentFile.save(editor.clickDocument(at: (0..<16).map { Double($0) * 0.5 }, loop: 8), to: path)
        editor.launch([path])
        XCTAssertTrue(waitFor("loop 0.000–8.000"), session.screen())
        var count = 0
        func press(_ keys: String..., until text: String) {
            for k in keys { session.keys([k]) }
            count += keys.count
            XCTAssertTrue(waitFor(text), session.screen())
        }
        press("F5", until: "no section")
        press("a", until: "1  A")
        press("9", "0", until: "bpm 90")
        press("s", until: "section 1 (A): 90 BPM")
        press("1", "2", "0", until: "bpm 120")
        press("e", until: "90→120")
        press("p", until: "playing")
        XCTAssertEqual(count, 10)
        print("accelerando 90→120 BPM over four bars: \(count) keys")
        session.keys(["C-s"])
        XCTAssertTrue(waitFor("saved"), session.screen())
        let saved = try DocumentFile.load(path)
        let s = try XCTUnwrap(saved.song.sections.first)
        XCTAssertEqual(saved.transport.bpm(atTempo: try XCTUnwrap(s.tempo)), 90, accuracy: 1e-9)
        XCTAssertEqual(saved.transport.bpm(atTempo: try XCTUnwrap(s.tempoEnd)), 120, accuracy: 1e-9)
        XCTAssertTrue(saved.song.on)
        // The quarters on the ramp's closed-form times: 16 onsets, each beat shorter than the one before.
        let onsets = SongSchedule(document: saved, sampleRate: 48_000).onsets(songPass: 0).map(\.time)
        XCTAssertEqual(onsets.count, 16)
        let gaps = zip(onsets.dropFirst(), onsets).map { $0 - $1 }
        XCTAssertTrue(zip(gaps.dropFirst(), gaps).allSatisfy { $0 < $1 }, "\(gaps)")
        XCTAssertEqual(gaps.first!, 60.0 / 90, accuracy: 0.02)
        XCTAssertEqual(gaps.last!, 60.0 / 120, accuracy: 0.02)
    }
}

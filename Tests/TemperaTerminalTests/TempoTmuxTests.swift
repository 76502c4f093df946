import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// The real program in a real terminal (tmux) playing through a private PulseAudio server: an accelerando over
/// four bars made with keys on the tempo lane (no `:` line), heard on the schedule's frames, undone in one step.
final class TempoTmuxTests: XCTestCase {
    private var editor: HeardEditor!

    override func setUpWithError() throws { editor = try HeardEditor("tempo-tmux") }

    override func tearDown() { editor?.close() }

    private var session: TmuxSession { editor.session }

    private func waitFor(_ text: String, seconds: Double = 10) -> Bool { editor.waitFor(text, seconds: seconds) }

    func testAnAccelerandoOverFourBarsMadeWithKeysIsHeardAndUndoneInOneStep() throws {
        // Quarter notes (beat 0.5 s) over four bars of 4/4 at 120 BPM; the loop off, so one pass plays.
        let path = editor.dir + "/doc.json"
        var doc = try editor.clickDocument(at: (0..<16).map { Double($0) * 0.5 }, loop: 8)
        doc.transport.length = 8
        doc.transport.loopOn = false
        try DocumentFile.save(doc, to: path)
        editor.launch([path])
        XCTAssertTrue(waitFor("120 bpm"), session.screen())

        // The tempo lane; a point at the start, one at the end of the four bars, the last one 30 BPM faster.
        session.keys(["M-t"])
        XCTAssertTrue(waitFor("tempo lane"), session.screen())
        session.keys(["a"])
        XCTAssertTrue(waitFor("tempo point at 0.000 s: 120 BPM"), session.screen())
        session.keys(["end"])
        session.keys(["a"])
        XCTAssertTrue(waitFor("tempo point at 8.000 s: 120 BPM"), session.screen())
        for _ in 0..<30 { session.keys(["S-up"]) }
        XCTAssertTrue(waitFor("tempo at 8.000 s: 150 BPM"), session.screen())
        session.keys(["C-s"])
        XCTAssertTrue(waitFor("saved"), session.screen())
        let saved = try DocumentFile.load(path)
        XCTAssertEqual(saved.transport.tempoMap.points,
                       [TempoMap.Point(time: 0, tempo: 1, shape: .linear), TempoMap.Point(time: 8, tempo: 1.25, shape: .linear)])

        // Heard: every quarter on the schedule's frame of the ramp (relative to the first).
        let recorder = try editor.record("heard.wav")
        session.keys(["Home", "Space"])
        XCTAssertTrue(waitFor("playing"), session.screen())
        XCTAssertTrue(waitFor("paused", seconds: 12), session.screen())
        Thread.sleep(forTimeInterval: 0.3)
        PulseTestServer.finish(recorder)
        let screen = session.screen()
        let expected = Schedule(document: saved, sampleRate: 48_000).onsets(loops: 1).map { Int($0.frame) }
        XCTAssertEqual(expected.count, 16)
        let heard = try AudioFile.read(editor.dir + "/heard.wav")
        let starts = Onsets.soundStarts(heard.samples, gap: 480)
        XCTAssertEqual(starts.count, 16, "\(starts)")
        let underruns = screen.split(separator: "\n").first.map { $0.contains("underrun") } ?? false
        if !underruns, let first = starts.first {
            XCTAssertEqual(starts.map { $0 - first }, expected)
        }
        // The beats shorten as the tempo rises: the last interval is 120/150 of the first, about.
        XCTAssertLessThan(expected[15] - expected[14], expected[1] - expected[0] - 4_000)

        // One undo takes the 30 BPM back (a held key is one step): no accelerando left.
        session.keys(["u"])
        XCTAssertTrue(waitFor("undid tempo point"), session.screen())
        session.keys(["C-s"])
        XCTAssertTrue(waitFor("saved"), session.screen())
        XCTAssertEqual(try DocumentFile.load(path).transport.tempoMap.points.map(\.tempo), [1, 1])
    }
}

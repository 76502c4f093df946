import Foundation
import TemperaAudio
import TemperaCore
import TemperaTerminal
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
        session.hold("S-up", times: 30)
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

    func testTempoPointsAreMovedWithTheShiftKeysAndDraggedWithTheMouseEachAsOneUndoStep() throws {
        // Quarter clicks over 8 s, a grid of one step a beat (0.5 s), the loop off.
        let path = editor.dir + "/lane.json"
        var doc = try editor.clickDocument(at: (0..<16).map { Double($0) * 0.5 }, loop: 8)
        doc.transport.grid = 1
        doc.transport.loopOn = false
        try DocumentFile.save(doc, to: path)
        editor.launch([path])
        XCTAssertTrue(waitFor("120 bpm"), session.screen())
        func saved() throws -> [TempoMap.Point] {
            session.keys(["C-s"])
            XCTAssertTrue(waitFor("saved"), session.screen())
            return try DocumentFile.load(path).transport.tempoMap.points
        }

        // Two points with keys: at 0 and at 2 s (the `:` line only puts the cursor there).
        session.keys(["M-t", "a"])
        XCTAssertTrue(waitFor("tempo point at 0.000 s: 120 BPM"), session.screen())
        session.keys([":"])
        session.type("cursor 2")
        session.keys(["Enter", "a"])
        XCTAssertTrue(waitFor("tempo point at 2.000 s: 120 BPM"), session.screen())
        // The shift tool's arrows move the point at the cursor two grid steps on; Enter keeps it.
        session.keys(["m", "Right", "Right"])
        XCTAssertTrue(waitFor("tempo point at 3.000 s: 120 BPM"), session.screen())
        session.keys(["Enter"])
        XCTAssertTrue(waitFor("move tempo point kept"), session.screen())
        XCTAssertEqual(try saved().map(\.time), [0, 3])
        session.keys(["u"])
        XCTAssertTrue(waitFor("undid move tempo point"), session.screen())
        XCTAssertEqual(try saved().map(\.time), [0, 2], "one undo step for the whole move")
        session.keys(["C-r"])
        XCTAssertTrue(waitFor("redid move tempo point"), session.screen())

        // The mouse: the point at 3 s is the second marker on the lane's top row; dragged four columns right and
        // two rows up it lands on a later grid point, 10 BPM faster, and one undo takes it all back.
        let layout = Layout(width: 120, height: 40, trackCount: 1, tempoLane: true)
        let lane = try XCTUnwrap(layout.tempoLane)
        let row = Array(session.screen().split(separator: "\n", omittingEmptySubsequences: false)[lane.y])
        let columns = row.indices.filter { row[$0] == "▽" }
        XCTAssertEqual(columns.count, 2, String(row))
        let x = columns[1], y = lane.y + 2
        session.drag(from: (x, y), through: [(x + 1, y), (x + 2, y - 1), (x + 3, y - 1)], to: (x + 4, y - 2))
        XCTAssertTrue(waitFor("move tempo point kept"), session.screen())
        let dragged = try saved()
        XCTAssertEqual(dragged.count, 2)
        XCTAssertEqual(dragged[0], TempoMap.Point(time: 0, tempo: 1, shape: .linear))
        XCTAssertGreaterThan(dragged[1].time, 3)
        XCTAssertEqual(dragged[1].time / 0.5, (dragged[1].time / 0.5).rounded(), "on the grid")
        XCTAssertEqual(dragged[1].tempo * 120, 130, accuracy: 1e-9, "two rows up: 10 BPM faster")
        session.keys(["u"])
        XCTAssertTrue(waitFor("undid move tempo point"), session.screen())
        XCTAssertEqual(try saved(), [TempoMap.Point(time: 0, tempo: 1, shape: .linear), TempoMap.Point(time: 3, tempo: 1, shape: .linear)])

        // Heard: the point at 3 s (the cursor back on it from point to point) 30 BPM faster (S-up held), played:
        // the transport shows the tempo at the playhead climbing through the ramp, not the document's 120.
        session.keys(["C-left"])
        session.hold("S-up", times: 30)
        XCTAssertTrue(waitFor("tempo at 3.000 s: 150 BPM"), session.screen())
        session.keys(["Home", "Space"])
        let ramp = session.wait(timeout: 10) { screen in
            let first = screen.split(separator: "\n").dropFirst().first.map(String.init) ?? ""
            return (121...149).contains { first.contains(" \($0) bpm") }
        }
        XCTAssertTrue(ramp.met, ramp.screen)
        XCTAssertTrue(waitFor("150 bpm", seconds: 10), session.screen())
        session.keys(["Space"])

        // The Song tab: a section ramping 90 -> 120 shows as such, and its tempo keys step 5 BPM at once.
        session.keys(["F5", "a"])
        session.keys([":"])
        session.type("section 1 bpm 90..120")
        session.keys(["Enter"])
        XCTAssertTrue(waitFor("90→120"), session.screen())
        session.keys(["F5", "."])
        XCTAssertTrue(waitFor("95→125"), session.screen())
        // Played (F6: the song; p plays it from the section): the transport shows the section's tempo heard,
        // from 95 BPM up, not the document's 120.
        session.keys(["F6", "p"])
        let section = session.wait(timeout: 10) { screen in
            let first = screen.split(separator: "\n").dropFirst().first.map(String.init) ?? ""
            return first.contains("playing") && (95...110).contains { first.contains(" \($0) bpm") }
        }
        XCTAssertTrue(section.met, section.screen)
        session.keys(["Escape", "Space"])
    }
}

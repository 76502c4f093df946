import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// The real program in a real terminal (tmux) playing through a private PulseAudio server: a two-section song
/// built in the Song tab with keys only, played, heard with its second section starting on the frame of §12,
/// and the section add undone.
final class SongTmuxTests: XCTestCase {
    private var dir = ""
    private var pulse: PulseTestServer?
    private var session = TmuxSession(server: "")

    override func setUpWithError() throws {
        dir = TestPaths.temporaryDirectory("song-tmux")
        try FileManager.default.createDirectory(atPath: dir + "/home", withIntermediateDirectories: true)
        session = TmuxSession(server: "tempera-song-\(getpid())-\(UUID().uuidString.prefix(8))")
        pulse = try PulseTestServer(dir: dir + "/pulse")
    }

    override func tearDown() {
        session.kill()
        pulse?.stop()
        try? FileManager.default.removeItem(atPath: dir)
    }

    private func waitFor(_ text: String, seconds: Double = 10) -> Bool {
        session.wait(timeout: seconds) { $0.contains(text) }.met
    }

    func testATwoSectionSongBuiltWithKeysPlaysItsSecondSectionOnTheFormulasFrame() throws {
        let binary = TestPaths.binary
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: binary), "build the package first (swift build)")
        // A click loud from its first frame; clicks at 0 and 0.5 s in a one-second loop.
        try AudioFile.write([Float](repeating: 0.5, count: 240), sampleRate: 48_000, to: dir + "/click.wav", as: .wavFloat)
        var slots = [ClipSlot(name: "click", file: "click.wav", attack: 0, release: 1)]
        while slots.count < 16 { slots.append(ClipSlot()) }
        var doc = Document(tracks: [Track(name: "click", markers: MarkerList([
            Marker(id: 0, time: 0, amp: 1, content: .clip(1)), Marker(id: 1, time: 0.5, amp: 1, content: .clip(1))]))],
                           slots: slots)
        doc.transport = Transport(tempo: 1, volume: 1, loopStart: 0, loopEnd: 1, loopOn: true, length: 1)
        let path = dir + "/doc.json"
        try DocumentFile.save(doc, to: path)

        let home = dir + "/home"
        let command = "env PULSE_SERVER=\(try XCTUnwrap(pulse).address) HOME=\(home) XDG_CONFIG_HOME=\(home)/.config "
            + "XDG_STATE_HOME=\(home)/.state LANG=C.UTF-8 TERM=xterm-256color \(binary) \(path)"
        session.start(command, width: 120, height: 40)
        XCTAssertTrue(waitFor("transport"), session.screen())

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

        let recorder = try XCTUnwrap(pulse).record(to: dir + "/heard.wav")
        Thread.sleep(forTimeInterval: 0.8)   // an idle null sink stalls its first writes: let the recording settle
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
        let heard = try AudioFile.read(dir + "/heard.wav")
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
}

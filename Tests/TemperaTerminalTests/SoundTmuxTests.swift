import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// What a musician's first piece found, held in the real program in a real terminal (tmux), heard through a
/// private PulseAudio server where it matters.
final class SoundTmuxTests: XCTestCase {
    private var editor: HeardEditor!

    override func setUpWithError() throws { editor = try HeardEditor("sound-tmux") }

    override func tearDown() { editor?.close() }

    private var session: TmuxSession { editor.session }

    private func waitFor(_ text: String, seconds: Double = 10) -> Bool { editor.waitFor(text, seconds: seconds) }

    func testSpaceAfterTheSongEndedPlaysItAgainFromItsFirstSection() throws {
        // Section A [0,1) once, then B [1,2) once: clicks at 0, 0.5 (A) and 1.25 (B).
        var doc = try editor.clickDocument(at: [0, 0.5, 1.25], loop: 2)
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 1, repeats: 1),
                                   Song.Section(name: "B", start: 1, end: 2, repeats: 1)], on: true)
        let path = editor.dir + "/doc.json"
        try DocumentFile.save(doc, to: path)
        editor.launch([path])
        XCTAssertTrue(waitFor("song 1/2"), session.screen())
        session.keys(["Space"])
        XCTAssertTrue(waitFor("song 2/2", seconds: 4), session.screen())
        XCTAssertTrue(waitFor("paused", seconds: 4), session.screen())
        Thread.sleep(forTimeInterval: 0.5)
        // Ended, Space plays the song again from A, all three clicks.
        let recorder = try editor.record("again.wav")
        Thread.sleep(forTimeInterval: 0.3)
        session.keys(["Space"])
        XCTAssertTrue(waitFor("song 1/2", seconds: 2), session.screen())
        XCTAssertTrue(waitFor("paused", seconds: 5), session.screen())
        Thread.sleep(forTimeInterval: 0.3)
        PulseTestServer.finish(recorder)
        let heard = try AudioFile.read(editor.dir + "/again.wav")
        let starts = Onsets.soundStarts(heard.samples, gap: 480)
        XCTAssertEqual(starts.count, 3, "\(starts)")
        if starts.count == 3 {
            XCTAssertEqual(Double(starts[1] - starts[0]), 24_000, accuracy: 480)
            XCTAssertEqual(Double(starts[2] - starts[0]), 60_000, accuracy: 480)
        }
    }
}

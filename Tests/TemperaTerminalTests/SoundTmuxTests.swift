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
        // Ended, Space plays the song again from A, all three clicks. On a busy machine the idle null sink has
        // stalled a replay's first writes for up to a second (the clicks before it were not heard, the later ones
        // were): a replay missing clicks is made again, and the fifth one decides.
        var starts: [Int] = []
        for attempt in 1...5 {
            XCTAssertTrue(waitFor("paused", seconds: 5), session.screen())
            let recorder = try editor.record("again\(attempt).wav")
            Thread.sleep(forTimeInterval: 0.3)
            session.keys(["Space"])
            XCTAssertTrue(waitFor("song 1/2", seconds: 5), session.screen())
            XCTAssertTrue(waitFor("song 2/2", seconds: 5), session.screen())
            XCTAssertTrue(waitFor("paused", seconds: 5), session.screen())
            Thread.sleep(forTimeInterval: 0.3)
            PulseTestServer.finish(recorder)
            let heard = try AudioFile.read(editor.dir + "/again\(attempt).wav")
            starts = Onsets.soundStarts(heard.samples, gap: 480)
            if starts.count == 3 || attempt == 5 { break }
            print("replay \(attempt): \(starts.count) clicks heard at \(starts); again")
        }
        XCTAssertEqual(starts.count, 3, "\(starts)")
        if starts.count == 3 {
            XCTAssertEqual(Double(starts[1] - starts[0]), 24_000, accuracy: 480)
            XCTAssertEqual(Double(starts[2] - starts[0]), 60_000, accuracy: 480)
        }
    }

    func testTheDesignersKeysSayWhichWayTheyRotateEuclidAsksForKAndNPairsNearest() throws {
        let path = editor.dir + "/doc.json"
        try DocumentFile.save(try editor.clickDocument(at: [0, 0.5], loop: 1), to: path)
        // Wide enough for the designer's whole hints line.
        editor.launch([path], width: 240, height: 50)
        XCTAssertTrue(waitFor("latency"), session.screen())
        session.keys([":"])
        session.type("temper span=2 top=12:0,3,6,9 bottom=16:all s=0")
        session.keys(["Enter"])
        XCTAssertTrue(waitFor("temperament:"), session.screen())
        // The designer, the top row: its hints name both rotations.
        session.keys(["F4", "Down"])
        XCTAssertTrue(waitFor("r rotate-left  y rotate-right"), session.screen())
        // e asks for k on the line: Backspace 7 Enter is E(7,12).
        session.keys(["e"])
        XCTAssertTrue(waitFor("temper span=2 top=12:euclid(4) bottom=16:all s=0"), session.screen())
        session.keys(["BSpace", "7", "Enter"])
        XCTAssertTrue(waitFor("temperament: 7 beats"), session.screen())
        // The map row: n pairs each top beat with its nearest sixteenth.
        session.keys(["Down", "Down"])
        XCTAssertTrue(waitFor("n nearest"), session.screen())
        session.keys(["n"])
        XCTAssertTrue(waitFor("map: each top beat to its nearest bottom beat (0-0,"), session.screen())
    }
}

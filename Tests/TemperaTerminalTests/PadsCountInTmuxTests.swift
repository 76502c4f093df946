import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// The real program in a real terminal (tmux) playing through a private PulseAudio server: armed in the Pads tab,
/// Space runs the count-in first, which the record line counts down beat by beat; a pad played then is heard but
/// not recorded (the status line says so), and once the music starts the take records.
final class PadsCountInTmuxTests: XCTestCase {
    private var heard: HeardEditor!
    private var dir: String { heard.dir }
    private var session: TmuxSession { heard.session }

    override func setUpWithError() throws { heard = try HeardEditor("pads-countin") }
    override func tearDown() { heard?.close() }

    private func waitFor(_ text: String, seconds: Double = 10) -> Bool { heard.waitFor(text, seconds: seconds) }

    /// Slot n plays 5 ms of the constant level 0.02·n (so a peak names its slot); an empty three-second loop; the
    /// click on with one bar of three one-second beats of count-in.
    func document() throws -> Document {
        let slots = try levelSlots(in: dir)
        var doc = Document(tracks: [Track(name: "pads", markers: MarkerList([]))], slots: slots)
        doc.transport = Transport(tempo: 1, volume: 1, loopStart: 0, loopEnd: 3, loopOn: true, length: 3)
        doc.transport.beat = 1
        doc.transport.meter = 3
        doc.transport.click = true
        doc.transport.countIn = 1
        return doc
    }

    func testTheRecordLineCountsTheCountInDownAndAPadThenIsHeardButNotRecorded() throws {
        let path = dir + "/doc.json"
        try DocumentFile.save(try document(), to: path)
        heard.launch([path])
        XCTAssertTrue(waitFor("latency"), session.screen())
        session.keys(["F7"])
        XCTAssertTrue(waitFor("[pads]"), session.screen())
        // An idle null sink stalls its first writes for up to two seconds: pad 16 (v) is played until it is heard.
        XCTAssertTrue(try heard.warmUp(key: "v"), "the output never sounded")

        session.keys(["Enter"])
        XCTAssertTrue(waitFor("armed: Space starts the take"), session.screen())
        let recorder = try heard.record("countin.wav")
        session.keys(["Space"])
        // The beats left, counting down, each for a second.
        XCTAssertTrue(waitFor("● count-in 3: not recording yet"), session.screen())
        XCTAssertTrue(waitFor("● count-in 2: not recording yet"), session.screen())
        // Half a beat on (clear of the clicks), q: heard, not recorded, and the status line says so.
        Thread.sleep(forTimeInterval: 0.4)
        session.keys(["q"])
        XCTAssertTrue(waitFor("pad 5 s5 80% (count-in: not recorded)"), session.screen())
        XCTAssertTrue(waitFor("● count-in 1: not recording yet"), session.screen())
        XCTAssertTrue(waitFor("● recording: 0 hits"), session.screen())
        session.keys(["w"])
        XCTAssertTrue(waitFor("● recording: 1 hit"), session.screen())
        Thread.sleep(forTimeInterval: 0.3)
        session.keys(["Space"])
        XCTAssertTrue(waitFor("take: 1 hit recorded, one undo step"), session.screen())
        PulseTestServer.finish(recorder)
        session.keys(["C-s"])
        XCTAssertTrue(waitFor("saved"), session.screen())

        // The take holds w (slot 6) only, on a track of its own named after the slot (no track held it).
        let saved = try DocumentFile.load(path)
        XCTAssertEqual(saved.tracks.last?.name, saved.slot(6).name.isEmpty ? "slot 6" : saved.slot(6).name)
        let markers = try XCTUnwrap(saved.tracks.last).markers
        XCTAssertEqual(markers.map(\.content), [.clip(6)])
        // q was heard all the same: a sound of slot 5's level at 80% in the output.
        let samples = try AudioFile.read(dir + "/countin.wav").samples
        let peaks: [Float] = Onsets.soundStarts(samples, gap: 480).map { (start: Int) -> Float in
            (start..<min(samples.count / 2, start + 240)).map { (f: Int) -> Float in
                max(abs(samples[2 * f]), abs(samples[2 * f + 1]))
            }.max() ?? 0
        }
        XCTAssertTrue(peaks.contains { abs(Double($0) - 0.08) < 1e-4 }, "slot 5 at 80% heard: \(peaks)")
    }
}

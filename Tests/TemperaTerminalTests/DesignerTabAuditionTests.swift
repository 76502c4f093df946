import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
@testable import TemperaTerminal
import XCTest

/// The designer auditioned through the real engine on its null output: a slider step made while the loop
/// plays is heard from the next event on, with nothing dropped or doubled.
final class DesignerTabAuditionTests: XCTestCase {
    private var dir = ""

    override func setUp() {
        dir = TestPaths.temporaryDirectory("designer")
        // A 200-frame click whose first frame is loud, so each onset is found on its exact frame.
        try! AudioFile.write([Float](repeating: 0.5, count: 200), sampleRate: 48_000, to: dir + "/click.wav", as: .wavFloat)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// One track whose loop region [0, 1) holds two clicks (their clip is what the audition plays), the swing
    /// preset at s = 0 in the designer: straight eighths every 0.25 s.
    private func session() throws -> Session {
        var slots = [ClipSlot(name: "click", file: "click.wav")]
        while slots.count < 16 { slots.append(ClipSlot()) }
        var doc = Document(tracks: [Track(name: "a", markers: MarkerList([Marker(id: 0, time: 0, content: .clip(1)),
                                                                         Marker(id: 1, time: 0.5, content: .clip(1))]))],
                           slots: slots)
        doc.transport = Transport(tempo: 1, volume: 1, loopStart: 0, loopEnd: 1, loopOn: true, length: 1)
        let s = Session(document: doc)
        try s.run(.temperPreset("swing"))
        try s.run(.temperSlider(0))
        return s
    }

    func testASliderStepWhilePlayingIsHeardFromTheNextEvent() throws {
        let s = try session()
        var state = DesignerState()
        let engine = AudioEngine(output: .null)
        engine.load(document: DesignerTab.playbackDocument(session: s, state: state), baseDirectory: dir)
        engine.start()
        engine.play()
        // 0.4 s at s = 0: onsets at 0 and 0.25 s.
        var out = pump(engine, 19_200)
        // Swing to triplets: the off-beat of each 0.5 s beat moves from 1/2 to 2/3 of it.
        XCTAssertEqual(try DesignerTab.handle(action: "designer.slider.one", session: s, state: &state), "s = 1.00, swing 2.00:1")
        engine.update(document: DesignerTab.playbackDocument(session: s, state: state))
        // To 0.7 s: the downbeat at 0.5 s stays; step back to s = 0.5 before the off-beat at 0.8333 s sounds.
        out += pump(engine, 14_400)
        XCTAssertEqual(try DesignerTab.handle(action: "designer.slider.half", session: s, state: &state), "s = 0.50, swing 1.40:1")
        engine.update(document: DesignerTab.playbackDocument(session: s, state: state))
        // To 1.5 s, through the loop wrap at 1 s.
        out += pump(engine, 38_400)
        XCTAssertEqual(Onsets.soundStarts(out), [
            0, 12_000,                  // s = 0: 0 and 0.25 s
            24_000,                     // s = 1 from 0.4 s: the downbeat
            38_000,                     // s = 0.5 from 0.7 s: 0.5 + 7/24 s, not 0.5 + 1/3 s
            48_000, 62_000,             // the next pass at s = 0.5: 1 s and 1 + 7/24 s
        ])
    }

    func testTheAuditionLeavesTheDocumentAndItsHistoryAlone() throws {
        let s = try session()
        let before = s.document
        let heard = DesignerTab.playbackDocument(session: s, state: DesignerState())
        XCTAssertEqual(heard.tracks[0].markers.map(\.time), [0, 0.25, 0.5, 0.75])
        XCTAssertEqual(s.document, before)
    }
}

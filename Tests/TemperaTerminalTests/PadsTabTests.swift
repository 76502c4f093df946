import Foundation
import TemperaAudio
import TemperaCore
import TemperaStudio
import TemperaTestSupport
import XCTest
@testable import TemperaTerminal

/// The Pads tab: its 4x4 pads drawn as the keys that play them, the keys (which come first there, even before q),
/// the velocity of a click's height, the key map's rebinding, and recording a take as one undo step.
final class PadsTabTests: XCTestCase {
    func padsView() -> ViewState {
        var view = ViewState()
        view.tab = .pads
        view.focus = .tab
        view.keyHints = KeyMap.standard.hints
        return view
    }

    func testThePadsAreLaidOutAsTheirKeysWithSlotNamesKeysAndTheRecordStateAbove() {
        let c = render(Session(document: .demo()), padsView(), width: 100, height: 30)
        // Three rows a pad at 30 rows: the tab area grows to 13 rows, the timeline keeps its five tracks.
        XCTAssertTrue(c.line(14).hasSuffix("┬─ clips  groups  rhythm designer  song [pads]────────┤"), c.line(14))
        XCTAssertTrue(c.line(15).hasSuffix("│ velocity 80% · record off (Enter arms) · 1.1        │"), c.line(15))
        XCTAssertTrue(c.line(16).hasSuffix("│  1 kick    1  2 snare   2  3 closed… 3  4 open-h… 4 │"), c.line(16))
        XCTAssertTrue(c.line(17).hasSuffix("│                                                     │"), c.line(17))
        XCTAssertTrue(c.line(18).hasSuffix("│ ──────────── ──────────── ──────────── ──────────── │"), c.line(18))
        XCTAssertTrue(c.line(19).hasSuffix("│  5 clap    q  6 rim     w  7 low-tom e  8 mid-tom r │"), c.line(19))
        XCTAssertTrue(c.line(22).hasSuffix("│  9 high-t… a 10 cowbell s 11 shaker  d 12 ride    f │"), c.line(22))
        XCTAssertTrue(c.line(25).hasSuffix("│ 13 crash   z 14 clave   x 15 woodbl… c 16 conga   v │"), c.line(25))
        XCTAssertTrue(c.line(28).hasPrefix("└"), "the box closes below the last pad")
        XCTAssertEqual(c.role(of: "5 clap", inRow: 19), .tool)
        XCTAssertEqual(c.role(of: "q", inRow: 19), .toolKey)
        // At 80x24 the pads are two rows high and the tab titles close up.
        let small = render(Session(document: .demo()), padsView(), width: 80, height: 24)
        XCTAssertTrue(small.line(12).hasSuffix("┬─clips groups rhythm song [pads]─┤"), small.line(12))
        XCTAssertTrue(small.line(13).hasSuffix("│ vel 80% · rec off · 1.1         │"), small.line(13))
        XCTAssertTrue(small.line(14).hasSuffix("│ kick  1 snare 2 clos… 3 open… 4 │"), small.line(14))
        XCTAssertTrue(small.line(15).hasSuffix("│ ─────── ─────── ─────── ─────── │"), small.line(15))
        XCTAssertTrue(small.line(16).hasSuffix("│ clap  q rim   w low-… e mid-… r │"), small.line(16))
    }

    func testASoundingPadIsLitAndItsBarShowsWhatIsLeftOfItsSound() {
        var view = padsView()
        view.transport.pads = [Double](repeating: 0, count: 16)
        view.transport.pads[4] = 0.5
        view.transport.position = 2.75
        let session = Session(document: .demo())
        session.recordArmed = true
        let c = render(session, view, width: 100, height: 30)
        XCTAssertEqual(c.role(of: "5 clap", inRow: 19), .toolActive)
        XCTAssertEqual(c.role(of: "6 rim", inRow: 19), .tool)
        XCTAssertTrue(c.line(21).hasSuffix("│ ━━━━━━────── ──────────── ──────────── ──────────── │"), c.line(21))
        XCTAssertEqual(c.role(of: "━━━━━━", inRow: 21), .sliderFill)
        XCTAssertTrue(c.line(15).hasSuffix("│ velocity 80% · armed: Space starts the take · 2.2   │"), c.line(15))
        XCTAssertEqual(c.role(of: "armed:", inRow: 15), .warning)
    }

    func testAClickOnAPadPlaysItWithTheVelocityOfTheRowItHits() {
        let session = Session(document: .demo())
        let view = padsView()
        func hit(_ x: Int, _ y: Int) -> Hit { EditorView.hitTest(x: x, y: y, session: session, view: view, size: (100, 30)) }
        // Pad 5 (q) spans columns 47-58 and rows 19-21: the top row is full velocity, each row down a third softer.
        XCTAssertEqual(hit(47, 19), .pad(slot: 5, velocity: 1))
        XCTAssertEqual(hit(58, 20), .pad(slot: 5, velocity: 0.67))
        XCTAssertEqual(hit(50, 21), .pad(slot: 5, velocity: 0.33))
        XCTAssertEqual(hit(60, 16), .pad(slot: 2, velocity: 1))
        XCTAssertEqual(hit(97, 27), .pad(slot: 16, velocity: 0.33))
        XCTAssertEqual(hit(59, 19), .none, "the gap between two pads")
        XCTAssertEqual(PadsTab.velocity(row: 1, height: 2), 0.5)
    }

    func testInThePadsTabQPlaysSlotFiveInsteadOfQuittingAndShiftPlaysAnAccent() {
        let (editor, d, engine, done) = padsEditor(.demo())
        defer { done() }
        func press(_ names: String) { editor.process(Key.sequence(names).map { .key($0) }) }
        press("F7 q")
        XCTAssertFalse(d.quitRequested)
        XCTAssertEqual(d.view.message, "pad 5 clap 80%")
        XCTAssertEqual(d.view.lastPad, ViewState.LastPad(slot: 5, velocity: 0.8))
        XCTAssertGreaterThan(engine.pump(frames: 4_800).map { abs($0) }.max() ?? 0, 0.01, "the clap is heard")
        XCTAssertTrue(engine.slotSound(5).sounding)
        press("Q")
        XCTAssertEqual(d.view.message, "pad 5 clap 100%")
        press("up up up down v")
        XCTAssertEqual(d.view.message, "pad 16 conga 90%")
        press("down down down down down down down down down down")
        XCTAssertEqual(d.view.padVelocity, 0.1, "the pad velocity stops at a tenth")
        // Back on the timeline q quits as everywhere else.
        press("esc q")
        XCTAssertTrue(d.quitRequested)
    }

    func testThePadKeysAreRebindableInTheKeyMapFile() throws {
        let map = try KeyMap.standard.merging("pads k pad.5\npads q none\n", file: "keys")
        let (editor, d, _, done) = padsEditor(.demo(), keyMap: map)
        defer { done() }
        editor.process(Key.sequence("F7 k").map { .key($0) })
        XCTAssertEqual(d.view.message, "pad 5 clap 80%")
        var canvas = Canvas(width: 100, height: 30)
        EditorView.draw(session: d.session, view: d.view, into: &canvas)
        XCTAssertTrue(canvas.line(19).hasSuffix("│  5 clap    k  6 rim     w  7 low-tom e  8 mid-tom r │"), canvas.line(19))
        // q is the global quit again here.
        editor.process(Key.sequence("q").map { .key($0) })
        XCTAssertTrue(d.quitRequested)
    }

    func testATakeOfTwoPassesRecordsEachHitWhereItWasHeardAndUndoesInOneStep() throws {
        var doc = Document.demo()
        doc.transport.tempo = 1
        let (editor, d, engine, done) = padsEditor(doc)
        defer { done() }
        func press(_ names: String) { editor.process(Key.sequence(names).map { .key($0) }) }
        let before = d.session.document
        let undoSteps = d.session.history.undoSteps.count
        press("F7 enter")
        XCTAssertTrue(d.session.recordArmed)
        XCTAssertFalse(d.session.takeOpen, "armed, the take waits for the transport")
        press("space")
        XCTAssertTrue(d.session.takeOpen)
        _ = pump(engine, 12_000)                  // 0.25 s of the 2 s loop
        press("q")
        XCTAssertEqual(d.view.takeHits, 1)
        _ = pump(engine, 96_000)                  // on to 2.25 s: the second pass, 0.25 s in
        press("W")
        _ = pump(engine, 24_000)
        press("space")
        XCTAssertFalse(d.session.takeOpen)
        XCTAssertFalse(d.session.recordArmed, "the stop ends the take and disarms")
        XCTAssertEqual(d.view.message, "take: 2 hits recorded, one undo step (u undoes)")
        XCTAssertEqual(d.session.history.undoSteps.count, undoSteps + 1)
        let added = d.session.document.tracks.flatMap { t in t.markers.filter { m in !before.tracks.contains { $0.markers.contains(m) } } }
        XCTAssertEqual(added.count, 2)
        // Where they were heard: a pumped block ends where the clock was stamped (no latency on the null output).
        let clap = try XCTUnwrap(added.first { $0.content == .clip(5) })
        let rim = try XCTUnwrap(added.first { $0.content == .clip(6) })
        XCTAssertEqual(clap.time, 0.25, accuracy: 0.02)
        XCTAssertEqual(clap.amp, 0.8)
        XCTAssertEqual(rim.time, 0.25, accuracy: 0.02, "the second pass overdubs the first")
        XCTAssertEqual(rim.amp, 1)
        press("u")
        XCTAssertEqual(d.session.document, before, "one undo: exactly the document before the take")
    }

    func testAnUndoDuringATakeTakesBackItsHitsSoFarAndRecordingGoesOn() {
        let (editor, d, engine, done) = padsEditor(.demo())
        defer { done() }
        func press(_ names: String) { editor.process(Key.sequence(names).map { .key($0) }) }
        let before = d.session.document
        press("F7 enter space")
        _ = pump(engine, 4_800)
        press("q w")
        press("u")
        XCTAssertEqual(d.view.message, "undid record")
        XCTAssertEqual(d.session.document, before)
        XCTAssertTrue(d.session.takeOpen, "still armed and playing: a new take runs")
        _ = pump(engine, 4_800)
        press("e space")
        XCTAssertEqual(d.view.message, "take: 1 hit recorded, one undo step (u undoes)")
        press("u")
        XCTAssertEqual(d.session.document, before)
    }

    func testArmingWhileTheLoopPlaysStartsTheTakeAndDisarmingEndsIt() {
        let (editor, d, engine, done) = padsEditor(.demo())
        defer { done() }
        func press(_ names: String) { editor.process(Key.sequence(names).map { .key($0) }) }
        press("F7 space")
        _ = pump(engine, 4_800)
        press("q")
        XCTAssertEqual(d.view.message, "pad 5 clap 80%", "not armed: played, not recorded")
        press("enter")
        XCTAssertTrue(d.session.takeOpen)
        _ = pump(engine, 4_800)
        press("w")
        XCTAssertTrue(d.view.message?.hasPrefix("pad 6 rim 80% recorded at 0.2") == true, d.view.message ?? "")
        press("enter")
        XCTAssertFalse(d.session.takeOpen)
        XCTAssertEqual(d.view.message, "take: 1 hit recorded, one undo step (u undoes)")
        XCTAssertTrue(engine.isPlaying, "disarming leaves the loop playing")
    }
}

/// An editor on the null output: the engine renders only when the test pumps it.
func padsEditor(_ doc: Document, keyMap: KeyMap = .standard) -> (Editor, Dispatcher, AudioEngine, () -> Void) {
    let screen = MemoryScreen(width: 100, height: 30)
    let dir = NSTemporaryDirectory() + "tempera-pads-\(getpid())-\(UUID().uuidString.prefix(8))"
    let paths = ConfigPaths(config: dir + "/config", state: dir + "/state")
    let d = Dispatcher(session: Session(document: doc), keyMap: keyMap, width: 100, height: 30, paths: paths,
                       clock: { 0 })
    let editor = Editor(screen: screen, dispatcher: d, autosave: Autosave(paths: paths), clock: { 0 })
    let engine = AudioEngine(output: .null)
    engine.start()
    d.player = engine
    d.replaceSession(Session(document: doc))
    editor.process([])
    return (editor, d, engine, { engine.stop(); try? FileManager.default.removeItem(atPath: dir) })
}

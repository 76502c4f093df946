import XCTest
@testable import TemperaTerminal
import TemperaCore
import TemperaAudio
import TemperaTestSupport

/// Grooves on screen: a probability dims its marker, a ratchet shows its count, grooves in the
/// Groups tab, the keys, and `:import`.
final class GrooveScreenTests: XCTestCase {
    func testAProbabilityDimsTheMarkerAndARatchetShowsItsCount() {
        var doc = fiveTracks([(0.1, 1, .clip(1)), (0.2, 1, .clip(1)), (0.3, 1, .clip(1))])
        var markers = Array(doc.tracks[0].markers)
        markers[1].p = 0.5
        markers[2].rep = 4
        doc.tracks[0].markers = MarkerList(markers)
        let canvas = render(Session(document: doc), tenMillisecondView())
        XCTAssertEqual(canvas[22, 4], Cell("█", .marker))
        XCTAssertEqual(canvas[32, 4], Cell("█", .dim), "p=0.5 dims the bar")
        XCTAssertEqual(canvas[32, 5], Cell("1", .clipLabel), "its clip label stays")
        XCTAssertEqual(canvas[42, 4], Cell("⁴", .accent), "rep=4 shows its count")
        // Taller lanes keep the bar and put the count on top.
        var tall = document([[(0.1, 0.5, .clip(1))], []])
        var m = tall.tracks[0].markers[0]
        m.rep = 3
        tall.tracks[0].markers = MarkerList([m])
        let c2 = render(Session(document: tall), tenMillisecondView())
        XCTAssertEqual((4...8).map { c2[22, $0].char }, ["³", " ", "█", "█", "1"])
    }

    func testTheGroupsTabShowsAGroove() throws {
        let s = Session(document: .newDocument())
        s.selection[0] = Set(s.document.tracks[0].markers.map(\.id))
        try s.run(.grooveExtract(5, grid: 4))
        var view = ViewState()
        view.tab = .groups
        view.chosenGroup = 5
        let canvas = render(s, view, width: 120, height: 40)
        XCTAssertTrue((0..<40).contains { canvas.line($0).contains(" 5 ~16 2s") })
        XCTAssertEqual(GroupsTab.summary(5, s.document.groups),
                       "group 5: groove of 16 steps of 1/4 beat, offsets ms +0.0 +0.0 +0.0 +0.0 +0.0 +0.0 +0.0 +0.0 ... (groove apply 5)")
        XCTAssertTrue((0..<40).contains { canvas.line($0).contains("group 5: groove of 16 steps") })
    }

    func testKeysForProbabilityRatchetHumanizeAndFit() throws {
        let d = make()
        keys(d, "Y")
        XCTAssertEqual(d.view.prompt.map { String($0.text) }, "prob")
        keys(d, "esc E")
        XCTAssertEqual(d.view.prompt.map { String($0.text) }, "ratchet")
        keys(d, "esc H")
        XCTAssertEqual(d.view.prompt.map { String($0.text) }, "humanize time=")
        keys(d, "esc")
        // The designer's F fits the selection: stamp the tigrigna preset at 0.37 and fit it back.
        var t = TemperamentPreset.tigrigna.temperament
        t.slider = 0.37
        var doc = Document.newDocument()
        doc.tracks[0].markers = MarkerList(t.stampMarkers(at: 0, sliders: [0.37], content: .clip(1)))
        let f = make(doc)
        try f.session.run(.temperPreset("tigrigna"))
        f.session.selection[0] = Set(f.session.document.tracks[0].markers.map(\.id))
        keys(f, "F4 F")
        XCTAssertEqual(f.view.message, "fit 12:0,2,4,6,9 -> 5, slider 0.37, rms 0 ms")
        XCTAssertEqual(f.session.document.designer.slider, 0.37, accuracy: 1e-6)
    }

    func testImportingARecordingInTheEditor() throws {
        let dir = TestPaths.temporaryDirectory("editor-import")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var x = [Float](repeating: 0, count: 44_100)
        for t in [0.1, 0.35, 0.6] {
            let f = Int(t * 44_100)
            for k in 0..<441 { x[f + k] = 0.8 * Float(exp(-Double(k) / 100)) * (k % 2 == 0 ? 1 : -0.6) }
        }
        let path = dir + "/three.wav"
        try AudioFile.write(x, sampleRate: 44_100, to: path, as: .wavFloat)
        let d = make()
        let before = d.session.document
        // The cursor on track 2 at 0.5 s: the recording comes in below it, from there.
        try d.runLine("track 2")
        d.session.cursor = 0.5
        try d.runLine("import \(path) slice")
        let message = d.view.message ?? ""
        XCTAssertTrue(message.hasPrefix("imported \(path): 3 onsets in 1 s"), message)
        // Every slot holds the default kit and no marker plays one: the last is taken.
        let free = 16
        XCTAssertTrue(message.hasSuffix("; 1 track added below track 2 at 0.5 s, slot 16 added (in place of conga, which no marker played)"),
                      message)
        let doc = d.session.document
        // The document's own tracks and slots stay; the new track sits third and plays the new slot.
        XCTAssertEqual(doc.tracks.map(\.name), [before.tracks[0].name, before.tracks[1].name, "slices", before.tracks[2].name,
                                                before.tracks[3].name])
        XCTAssertEqual(doc.slot(1), before.slot(1))
        XCTAssertEqual(doc.slot(free).file, path)
        XCTAssertEqual(doc.slot(free).mode, .gate)
        let slices = Array(doc.tracks[2].markers)
        XCTAssertEqual(slices.first?.time, 0.5)
        XCTAssertTrue(slices.allSatisfy { $0.content == .clip(free) && abs($0.time - 0.5 - $0.from) < 1e-12 }, "\(slices)")
        XCTAssertEqual(doc.tracks[0].markers.map(\.time), before.tracks[0].markers.map(\.time))
        // One undo step takes it all back.
        XCTAssertEqual(d.session.undoName, "import three.wav")
        try d.runLine("undo")
        XCTAssertEqual(d.session.document.tracks, before.tracks)
        XCTAssertEqual(d.session.document.slots, before.slots)
        try d.runLine("import \(dir)/missing.wav")
        XCTAssertEqual(d.view.messageIsError, true)
    }
}

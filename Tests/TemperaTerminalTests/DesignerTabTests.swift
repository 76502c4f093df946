import XCTest
@testable import TemperaTerminal
import TemperaCore

private func assertTimes(_ actual: [Double], _ expected: [Double], file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(actual.count, expected.count, "\(actual) vs \(expected)", file: file, line: line)
    for (a, e) in zip(actual, expected) { XCTAssertEqual(a, e, accuracy: 1e-12, "\(actual) vs \(expected)", file: file, line: line) }
}

final class DesignerTabTests: XCTestCase {
    private func render(_ s: Session, _ state: DesignerState = DesignerState(), width: Int = 40, height: Int = 6,
                        ascii: Bool = false) -> Canvas {
        var c = Canvas(width: width, height: height)
        DesignerTab.draw(session: s, state: state, view: ViewState(ascii: ascii), into: &c,
                         rect: Rect(x: 0, y: 0, width: width, height: height))
        return c
    }

    private func session(_ preset: String? = nil) throws -> Session {
        let s = Session(document: Document(tracks: [Track(name: "a")]))
        if let preset { try s.run(.temperPreset(preset)) }
        return s
    }

    @discardableResult
    private func act(_ s: Session, _ state: inout DesignerState, _ actions: String...) throws -> String? {
        var last: String?
        for a in actions { last = try DesignerTab.handle(action: a, session: s, state: &state) }
        return last
    }

    // MARK: Drawing

    func testSwingAtHalfShowsItsIntervalsAndSwingRatio() throws {
        let s = try session("swing")
        XCTAssertEqual(render(s).text, """
              top 2 ●              ●
             result ●                 ●
              bot 3 ●         ·         ●
            ▸s 0.50 ────────0━━━━━━●───────1───────
             ioi ms 292 208  swing 1.40:1
                map 0-0 1-2
            """)
    }

    func testSwingAtOneIsTripletSwingTwoToOne() throws {
        let s = try session("swing")
        try s.run(.temperSlider(1))
        let c = render(s)
        XCTAssertEqual(c.line(4).trimmingCharacters(in: .whitespaces), "ioi ms 333 167  swing 2.00:1")
        XCTAssertEqual(c.line(1).trimmingCharacters(in: .whitespaces), "result ●                   ●", "the off-beat on the last triplet eighth")
    }

    func testIntervalsFollowTheDocumentTempo() throws {
        let s = try session("swing")
        try s.run(.tempo(2))
        XCTAssertEqual(render(s).line(4).trimmingCharacters(in: .whitespaces), "ioi ms 146 104  swing 1.40:1")
    }

    func testDefaultDesignerDrawsThePapersFiveAgainstSeven() throws {
        let s = try session()
        XCTAssertEqual(render(s).text, """
              top 7 ●   ●   ·    ●   ●    ·   ●
             result ●    ●      ●     ●      ●
              bot 5 ●     ●     ●     ●     ●
            ▸s 0.50 ────────0━━━━━━●───────1───────
             ioi ms 343 486 343 486 343
                map 0-0 1-1 3-2 4-3 6-4
            """)
    }

    func testAsciiFallbackUsesToussaintsNotation() throws {
        let s = try session("tigrigna")
        XCTAssertEqual(render(s, DesignerState(focus: .top), width: 31, ascii: true).text, """
            >top 12 x. x . x . x. . x . .
             result o   o   o   o    o
              bot 5 x   x   x    x   x
             s 0.50 -----0=====O----1-----
             ioi ms 183 183 183 225 225
                map 0-0 2-1 4-2 6-3 9-4
            """)
    }

    func testTallAreaDrawsTheMappingAsLinksAndTheKeys() throws {
        let s = try session("tigrigna")
        var view = ViewState()
        view.keyHints = ["designer.slider.up": "→", "designer.slider.down": "←", "designer.stamp": "s"]
        var c = Canvas(width: 60, height: 9)
        DesignerTab.draw(session: s, state: DesignerState(), view: view, into: &c, rect: Rect(x: 0, y: 0, width: 60, height: 9))
        XCTAssertEqual(c.text, """
             top 12 ●   ·   ●   ·    ●   ·   ●   ·    ·   ●   ·   ·
                    │       ╲        ╲        ╲           ╲
             result ●        ●        ●         ●          ●
                    │        ╲         ╲         ╲         ╲
              bot 5 ●         ●         ●         ●         ●
            ▸s 0.50 ─────────────0━━━━━━━━━━━●────────────1────────────
             ioi ms 183 183 183 225 225
                map 0-0 2-1 4-2 6-3 9-4
             → s+  ← s-  s stamp                               ♪ track 1
            """)
    }

    func testUnpairedBeatsAreHollowAndCounted() throws {
        let s = try session()
        try s.run(.temperDefine(span: 2, top: 7, topBeats: .all, bottom: 5, bottomBeats: .all, map: nil, slider: 0))
        let c = render(s)
        XCTAssertEqual(c.line(0).trimmingCharacters(in: .whitespaces), "top 7 ●   ●   ●    ●   ●    ○   ○")
        XCTAssertEqual(c.line(5).trimmingCharacters(in: .whitespaces), "map 0-0 1-1 2-2 3-3 4-4 +2 unpaired")
    }

    func testDotsSharingAColumnShowTheirCount() throws {
        let s = try session()
        try s.run(line: "temper span=1 top=4:all bottom=2:all map=0-0,1-0,2-1,3-1 s=1")
        XCTAssertEqual(render(s).line(1).trimmingCharacters(in: .whitespaces), "result ²              ²")
        XCTAssertEqual(render(s, ascii: true).line(1).trimmingCharacters(in: .whitespaces), "result 2              2")
    }

    func testDotsPushedPastTheSpanAreMarkedAtTheEdges() throws {
        let s = try session()
        try s.run(.temperDefine(span: 1, top: 2, topBeats: .all, bottom: 2, bottomBeats: .all,
                                map: [.init(top: 0, bottom: 1), .init(top: 1, bottom: 0)], slider: -0.5))
        // Pair 0-1 at -0.25 and pair 1-0 at 0.75; at s = 1.5 they reach 0.75 and -0.25 the other way round.
        try s.run(.temperSlider(1.5))
        XCTAssertEqual(render(s).line(1), " result‹                       ●        ")
        try s.run(.temperDefine(span: 1, top: 1, topBeats: .all, bottom: 2, bottomBeats: .list([1]),
                                map: [.init(top: 0, bottom: 1)], slider: 2.5))
        XCTAssertEqual(render(s).line(1), " result                                ›")
    }

    func testAnInvalidTemperamentFromAFileSaysWhyInsteadOfDrawing() throws {
        var doc = Document(tracks: [Track(name: "a")])
        doc.designer.top.division = 0
        let c = render(Session(document: doc), width: 60)
        XCTAssertEqual(c.line(0).trimmingCharacters(in: .whitespaces), "temper: the top subdivision must be at least 1 (got 0)")
    }

    // MARK: Keys

    func testSliderKeysStepClampAndUndo() throws {
        let s = try session("swing")
        var st = DesignerState()
        XCTAssertEqual(try act(s, &st, "designer.slider.up"), "s = 0.55, swing 1.45:1")
        XCTAssertEqual(try act(s, &st, "designer.slider.fine.up"), "s = 0.56, swing 1.46:1")
        XCTAssertEqual(s.document.designer.slider, 0.56)
        for _ in 0..<30 { try act(s, &st, "designer.slider.up") }
        XCTAssertEqual(s.document.designer.slider, 1.5)
        XCTAssertEqual(try act(s, &st, "designer.beat.left"), "s = 1.45, swing 2.87:1", "left and right move the slider in its row")
        XCTAssertEqual(s.undoName, "temper slider")
        while s.undoName == "temper slider" { try s.undo() }
        XCTAssertEqual(s.document.designer, TemperamentPreset.swing.temperament)
    }

    func testToggleBeatIsOneUndoStep() throws {
        let s = try session()
        var st = DesignerState(focus: .top)
        try act(s, &st, "designer.beat.right", "designer.beat.right")
        XCTAssertEqual(st.topCursor, 2)
        XCTAssertEqual(try act(s, &st, "designer.beat.toggle"), "top beat 2 chosen")
        XCTAssertEqual(s.document.designer.top.beats, [0, 1, 2, 3, 4, 6])
        XCTAssertEqual(s.undoName, "temper")
        try s.undo()
        XCTAssertEqual(s.document.designer.top.beats, [0, 1, 3, 4, 6])
    }

    func testRemovingAMappedBeatDropsItsPair() throws {
        let s = try session()
        try s.run(.temperDefine(span: 1, top: 4, topBeats: .all, bottom: 2, bottomBeats: .all,
                                map: [.init(top: 0, bottom: 0), .init(top: 1, bottom: 0), .init(top: 3, bottom: 1)], slider: 0.5))
        var st = DesignerState(focus: .top, topCursor: 1)
        try act(s, &st, "designer.beat.toggle")
        XCTAssertEqual(s.document.designer.map, [.init(top: 0, bottom: 0), .init(top: 3, bottom: 1)])
    }

    func testDivisionEuclidKAndRotateOnTheBottomRow() throws {
        let s = try session()
        var st = DesignerState(focus: .bottom)
        XCTAssertEqual(try act(s, &st, "designer.division.up", "designer.division.up", "designer.division.up"), "bottom: 8 pulses")
        XCTAssertEqual(s.document.designer.bottom.beats, [0, 1, 2, 3, 4])
        XCTAssertEqual(s.document.designer.bottom.amps, [0.9, 0.7, 0.7, 0.7, 0.7, 0.8, 0.8, 0.8])
        XCTAssertEqual(try act(s, &st, "designer.euclid"), "bottom: 8 pulses, beats 0,2,3,5,6")
        XCTAssertEqual(try act(s, &st, "designer.rotate"), "bottom rotated left: 8 pulses, beats 1,2,4,5,7")
        XCTAssertEqual(try act(s, &st, "designer.rotate.right"), "bottom rotated right: 8 pulses, beats 0,2,3,5,6")
        XCTAssertEqual(try act(s, &st, "designer.k.down"), "bottom: 8 pulses, beats 0,2,4,6")
        try s.undo(7)
        XCTAssertEqual(s.document.designer, Document.defaultDesigner)
    }

    func testEuclidNeedsATemplateRow() throws {
        let s = try session()
        var st = DesignerState(focus: .slider)
        XCTAssertThrowsError(try act(s, &st, "designer.euclid")) { error in
            XCTAssertEqual((error as? CommandError)?.message, "designer: move to the top or bottom row first")
        }
    }

    func testMapKeysSendSeveralTopBeatsToOneBottomBeat() throws {
        let s = try session()
        var st = DesignerState(focus: .map)
        XCTAssertEqual(try act(s, &st, "designer.beat.right"), "map: top 1 to bottom 1")
        XCTAssertEqual(try act(s, &st, "designer.division.down"), "map: top 1 to bottom 0")
        let t = s.document.designer
        XCTAssertEqual(t.pairs, [.init(top: 0, bottom: 0), .init(top: 1, bottom: 0), .init(top: 3, bottom: 2),
                                 .init(top: 4, bottom: 3), .init(top: 6, bottom: 4)])
        XCTAssertEqual(render(s, st).line(5).trimmingCharacters(in: .whitespaces), "▸   map 0-0 1-0 3-2 4-3 6-4")
        XCTAssertEqual(render(s, st).role(of: "1-0", inRow: 5), .cursor)
        XCTAssertEqual(try act(s, &st, "designer.map.reset"), "map: i-th chosen top beat to i-th chosen bottom beat")
        XCTAssertNil(s.document.designer.map)
    }

    func testPresetKeysCycleThroughThePresets() throws {
        let s = try session()
        var st = DesignerState(focus: .top, topCursor: 5)
        XCTAssertEqual(try act(s, &st, "designer.preset.next"), "preset swing: temper span=0.5 top=2:all bottom=3:0,2 s=0.5")
        XCTAssertEqual(st.topCursor, 0, "cursors start again on a new preset")
        XCTAssertEqual(try act(s, &st, "designer.preset.next"), "preset tigrigna: temper span=1 top=12:0,2,4,6,9 bottom=5:all s=0.5")
        XCTAssertEqual(try act(s, &st, "designer.preset.next"), "preset five-seven: temper span=2 top=7:0,1,3,4,6 bottom=5:all s=0.5")
        XCTAssertEqual(try act(s, &st, "designer.preset.prev"), "preset tigrigna: temper span=1 top=12:0,2,4,6,9 bottom=5:all s=0.5")
        try act(s, &st, "designer.slider.up.coarse")
        XCTAssertEqual(s.document.designer.slider, 0.6)
        XCTAssertEqual(try act(s, &st, "designer.preset"), "preset five-seven: temper span=2 top=7:0,1,3,4,6 bottom=5:all s=0.5",
                       "a preset with its slider moved is still that preset")
    }

    func testStampMorphAndGroupKeysRunTheirCommands() throws {
        let s = try session("swing")
        s.chosenClip = .clip(2)
        var st = DesignerState()
        XCTAssertEqual(try act(s, &st, "designer.stamp"), "stamped 2 markers (1 cycle)")
        XCTAssertEqual(s.cursor, 0.5)
        st.morphTimes = 2
        XCTAssertEqual(try act(s, &st, "designer.morph"), "stamped 4 markers (2 cycles)")
        assertTimes(s.document.tracks[0].markers.map(\.time), [0, 7.0 / 24, 0.5, 0.75, 1, 1 + 7.0 / 24])
        XCTAssertEqual(try act(s, &st, "designer.group.prev"), "designer: results go to group 16")
        XCTAssertEqual(try act(s, &st, "designer.group"), "group 16: 2 elements at s = 0.5")
    }

    func testActionsOutsideTheDesignerAreNotHandled() throws {
        let s = try session()
        var st = DesignerState()
        XCTAssertNil(try DesignerTab.handle(action: "tool.shift", session: s, state: &st))
        XCTAssertThrowsError(try DesignerTab.handle(action: "designer.fly", session: s, state: &st))
        for a in DesignerTab.actions where a != "designer.apply" && !a.hasPrefix("designer.euclid") && !a.hasPrefix("designer.k.")
            && !a.hasPrefix("designer.rotate") && !a.hasPrefix("designer.amp.") {
            XCTAssertNoThrow(try DesignerTab.handle(action: a, session: s, state: &st), a)
        }
    }

    // MARK: Mouse

    func testClickingTheSliderSetsTheValueAndTheMarksAreExact() throws {
        let s = try session("swing")
        var st = DesignerState(focus: .top)
        let g = DesignerTab.Geometry(width: 40, height: 6)
        XCTAssertEqual(try DesignerTab.click(x: g.sliderColumn(1), y: g.slider, width: 40, height: 6, session: s, state: &st),
                       "s = 1.00, swing 2.00:1")
        XCTAssertEqual(st.focus, .slider)
        _ = try DesignerTab.click(x: g.sliderColumn(0), y: g.slider, width: 40, height: 6, session: s, state: &st)
        XCTAssertEqual(s.document.designer.slider, 0)
        _ = try DesignerTab.click(x: g.laneX, y: g.slider, width: 40, height: 6, session: s, state: &st)
        XCTAssertEqual(s.document.designer.slider, -0.5)
    }

    func testClickingABottomPulseTogglesIt() throws {
        let s = try session("swing")
        var st = DesignerState()
        let g = DesignerTab.Geometry(width: 40, height: 6)
        let x = g.column(fraction: 1.0 / 3)
        XCTAssertEqual(try DesignerTab.click(x: x, y: g.bottom, width: 40, height: 6, session: s, state: &st), "bottom beat 1 chosen")
        XCTAssertEqual(st.focus, .bottom)
        XCTAssertEqual(s.document.designer.bottom.beats, [0, 1, 2])
    }

    // MARK: Playback

    func testPlaybackDocumentAuditionsTheCurrentTrackWhileOn() throws {
        var doc = Document(tracks: [Track(name: "a", markers: MarkerList([Marker(id: 0, time: 0, content: .clip(4))])),
                                    Track(name: "b", markers: MarkerList([Marker(id: 1, time: 0.3, content: .clip(5))]))])
        doc.transport.loopStart = 0
        doc.transport.loopEnd = 1
        doc.designer = TemperamentPreset.swing.temperament
        let s = Session(document: doc)
        var st = DesignerState()
        let heard = DesignerTab.playbackDocument(session: s, state: st)
        assertTimes(heard.tracks[0].markers.map(\.time), [0, 7.0 / 24, 0.5, 0.5 + 7.0 / 24])
        XCTAssertEqual(heard.tracks[0].markers.map(\.content), Array(repeating: .clip(4), count: 4))
        XCTAssertEqual(heard.tracks[1], s.document.tracks[1])
        XCTAssertEqual(try act(s, &st, "designer.audition"), "designer: audition off")
        XCTAssertEqual(DesignerTab.playbackDocument(session: s, state: st), s.document)
    }
}

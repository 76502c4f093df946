import XCTest
@testable import TemperaTerminal
import TemperaCore

final class TransportPaneTests: XCTestCase {
    func testPlayingShowsPlayingInThePlayingRole() {
        var view = ViewState()
        view.transport.isPlaying = true
        view.transport.position = 0.734
        let canvas = render(Session(document: .demo()), view)
        XCTAssertTrue(canvas.line(1).hasPrefix("│ ⏮ ▶ playing  "))
        XCTAssertEqual(canvas.role(of: "▶ playing", inRow: 1), .playing)
        XCTAssertTrue(canvas.line(1).hasSuffix(" 0.734 s │"))
    }

    func testPausedShowsPausedInTheStoppedRole() {
        let canvas = render(Session(document: .demo()))
        XCTAssertTrue(canvas.line(1).hasPrefix("│ ⏮ ⏸ paused  "))
        XCTAssertEqual(canvas.role(of: "⏸ paused", inRow: 1), .stopped)
    }

    func testWideScreenSpellsOutLoopAndVolume() {
        let canvas = render(Session(document: .demo()), width: 120, height: 40)
        XCTAssertTrue(canvas.line(1).contains("  ⟲ loop 0.000–2.000  120 bpm ×1.00 "))
        XCTAssertTrue(canvas.line(1).contains("  volume 80% "))
        XCTAssertEqual(canvas.role(of: "⟲ loop", inRow: 1), .loopRegion)
    }

    func testNarrowScreenShortensLabelsToKeepTheSlidersUsable() {
        let canvas = render(Session(document: .demo()))
        XCTAssertEqual(canvas.line(1),
                       "│ ⏮ ⏸ paused  ⟲ 0.000–2.000  120 bpm ×1.00 ━━━●───  vol 80% ━━━━━●─    0.000 s │")
    }

    func testLoopOffIsDim() {
        var doc = Document.demo()
        doc.transport.loopOn = false
        let canvas = render(Session(document: doc))
        XCTAssertEqual(canvas.role(of: "⟲ loop off", inRow: 1), .dim)
    }

    func testTempoSliderIsLogarithmicFromHalfToTwiceAroundOne() {
        XCTAssertEqual(Slider.tempoFraction(0.5), 0, accuracy: 1e-12)
        XCTAssertEqual(Slider.tempoFraction(2), 1, accuracy: 1e-12)
        XCTAssertEqual(Slider.tempoFraction(1), 0.5, accuracy: 1e-12)
        // Doubling is the same distance anywhere on the slider.
        XCTAssertEqual(Slider.tempoFraction(2) - Slider.tempoFraction(1),
                       Slider.tempoFraction(0.5) - Slider.tempoFraction(0.25), accuracy: 1e-12)
        XCTAssertEqual(Slider.tempo(atFraction: 0), 0.5)
        XCTAssertEqual(Slider.tempo(atFraction: 1), 2)
        XCTAssertEqual(Slider.tempo(atFraction: Slider.tempoFraction(1)), 1)
    }

    func testTempoKnobMovesWithTheTempo() {
        var doc = Document.demo()
        doc.transport.tempo = 4
        let canvas = render(Session(document: doc))
        XCTAssertTrue(canvas.line(1).contains("480 bpm ×4.00 ━━━━━━●  "), canvas.line(1))
        doc.transport.tempo = 0.05
        XCTAssertTrue(render(Session(document: doc)).line(1).contains("  6 bpm ×0.05 ●──────  "), render(Session(document: doc)).line(1))
    }

    func testVolumeSliderShowsPercentAndKnob() {
        var doc = Document.demo()
        doc.transport.volume = 0
        let canvas = render(Session(document: doc))
        XCTAssertTrue(canvas.line(1).contains("vol 0% ●"))
        XCTAssertEqual(canvas.role(of: "●", inRow: 1), .sliderKnob)
    }

    func testAudioProblemLatencyAndUnderrunsOnTheTopEdge() {
        var view = ViewState()
        view.transport.audio = "no audio server"
        let canvas = render(Session(document: .demo()), view)
        XCTAssertTrue(canvas.line(0).hasSuffix("─ no audio server ─┐"))
        XCTAssertEqual(canvas.role(of: "no audio server", inRow: 0), .warning)

        view.transport.audio = nil
        view.transport.latencyMs = 12.4
        view.transport.underruns = 0
        XCTAssertTrue(render(Session(document: .demo()), view).line(0).hasSuffix("─ latency 12 ms ─┐"))
        view.transport.underruns = 3
        let withUnderruns = render(Session(document: .demo()), view)
        XCTAssertTrue(withUnderruns.line(0).hasSuffix("─ latency 12 ms ─ 3 underruns ─┐"))
        XCTAssertEqual(withUnderruns.role(of: "3 underruns", inRow: 0), .warning)
    }

    func testARefusedRealTimePriorityIsSaidBesideTheLatencyAndAGrantedOneIsNot() {
        var view = ViewState()
        view.transport.latencyMs = 20
        view.transport.realTime = true
        XCTAssertTrue(render(Session(document: .demo()), view).line(0).hasSuffix("─ latency 20 ms ─┐"))
        view.transport.realTime = false
        let refused = render(Session(document: .demo()), view)
        XCTAssertTrue(refused.line(0).hasSuffix("─ latency 20 ms ─ not real-time ─┐"), refused.line(0))
        XCTAssertEqual(refused.role(of: "not real-time", inRow: 0), .dim)
    }

    func testFileNameIsTheBaseNameOfTheSessionPath() {
        let session = Session(document: .demo(), path: "songs/tigrigna.tempera")
        XCTAssertTrue(render(session).line(0).hasPrefix("┌─ transport ─ tigrigna.tempera ─"))
        session.path = "demo"
        XCTAssertTrue(render(session).line(0).hasPrefix("┌─ transport ─ demo ─"))
    }

    func testAsciiTransportUsesPlainCharacters() {
        var view = ViewState()
        view.ascii = true
        view.transport.isPlaying = true
        let line = render(Session(document: .demo()), view).line(1)
        XCTAssertTrue(line.hasPrefix("| |< > playing  @ 0.000-2.000  120 bpm x1.00 "))
        XCTAssertTrue(line.allSatisfy(\.isASCII))
    }

    func testLongAudioMessageIsCutBeforeItIsDroppedAndLatencyGoesFirst() {
        var doc = Document.demo()
        doc.transport.loopStart = 1234.5
        doc.transport.loopEnd = 2345.25
        var view = ViewState()
        view.transport.position = 12345.678
        view.transport.audio = "no audio server: connection refused"
        view.transport.latencyMs = 25
        view.transport.underruns = 12
        let session = Session(document: doc, path: "songs/a-really-long-name-for-a-document.tempera")
        let canvas = render(session, view)
        XCTAssertEqual(canvas.line(0),
                       "┌─ transport ─ a-really-long-name-for-a-docu… ─ no audio serv… ─ 12 underruns ─┐")
        XCTAssertEqual(canvas.line(1),
                       "│ ⏮ ⏸ paused  ⟲ 1234.500–2345.250  120 bpm ×1.00 ━●─  vol 80% ━━●  12345.678 s │")
    }
}

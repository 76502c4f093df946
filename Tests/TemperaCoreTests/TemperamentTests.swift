import XCTest
import TemperaCore

final class TemperamentTests: XCTestCase {
    private let eps = 1e-12

    private func assertTimes(_ actual: [Double], _ expected: [Double], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(actual.count, expected.count, "count", file: file, line: line)
        for (a, e) in zip(actual, expected) { XCTAssertEqual(a, e, accuracy: eps, file: file, line: line) }
    }

    /// 7 against 5 over 2 s, all five fifths paired with the nearest sevenths.
    private var fiveSeven: Temperament { TemperamentPreset.fiveSeven.temperament }

    func testSliderZeroGivesTheTopBeatsExactly() {
        let sevenths: [Double] = [0, 2.0 / 7, 6.0 / 7, 8.0 / 7, 12.0 / 7]
        XCTAssertEqual(fiveSeven.result(slider: 0).map(\.time), sevenths)
    }

    func testSliderOneGivesTheBottomBeatsExactly() {
        XCTAssertEqual(fiveSeven.result(slider: 1).map(\.time), [0, 0.4, 0.8, 1.2, 1.6])
    }

    func testSliderHalfGivesThePapersTemperedFiveSeven() {
        assertTimes(fiveSeven.result().map(\.time),
                    [0, (2.0 / 7 + 0.4) / 2, (6.0 / 7 + 0.8) / 2, (8.0 / 7 + 1.2) / 2, (12.0 / 7 + 1.6) / 2])
        assertTimes(fiveSeven.result().map(\.time), [0, 0.342857142857143, 0.828571428571429, 1.171428571428571, 1.657142857142857])
    }

    func testExtrapolationPastTheEnds() {
        // s = 1.5 exaggerates the bottom rhythm: 1.5*j*0.4 - 0.5*i*2/7.
        assertTimes(fiveSeven.result(slider: 1.5).map(\.time), [0, 0.6 - 1.0 / 7, 1.2 - 3.0 / 7, 1.8 - 4.0 / 7, 2.4 - 6.0 / 7])
        assertTimes(fiveSeven.result(slider: -0.5).map(\.time), [0, 3.0 / 7 - 0.2, 9.0 / 7 - 0.4, 12.0 / 7 - 0.6, 18.0 / 7 - 0.8])
    }

    func testAmplitudesInterpolateLikeTimesAndClamp() {
        let t = Temperament(span: 1, top: .init(division: 2, beats: [0, 1], amps: [1.0, 0.4]),
                            bottom: .init(division: 3, beats: [0, 2], amps: [0.6, 0.5, 0.8]))
        XCTAssertEqual(t.result(slider: 0).map(\.amp), [1.0, 0.4])
        XCTAssertEqual(t.result(slider: 1).map(\.amp), [0.6, 0.8])
        assertTimes(t.result(slider: 0.5).map(\.amp), [0.8, 0.6])
        // 1.5 * 0.6 - 0.5 * 1.0 = 0.4; -0.5: 1.5*1.0 - 0.5*0.6 = 1.2, clamped to 1.
        assertTimes(t.result(slider: 1.5).map(\.amp), [0.4, 1.0])
        assertTimes(t.result(slider: -0.5).map(\.amp), [1.0, 0.2])
    }

    func testDefaultMapPairsIthChosenWithIthChosen() {
        let t = Temperament(span: 1, top: .init(division: 4, beats: [0, 1, 3]), bottom: .init(division: 6, beats: [0, 2, 5]))
        XCTAssertEqual(t.pairs, [.init(top: 0, bottom: 0), .init(top: 1, bottom: 2), .init(top: 3, bottom: 5)])
        assertTimes(t.result(slider: 0.5).map(\.time), [0, (0.25 + 2.0 / 6) / 2, (0.75 + 5.0 / 6) / 2])
    }

    func testDefaultMapWithUnequalCountsPairsTheFirstAndSaysSo() throws {
        let (t, note) = try Temperament.define(span: 2, top: 7, topBeats: .all, bottom: 5, bottomBeats: .all, map: nil, slider: 0)
        XCTAssertEqual(t.pairs.count, 5)
        let sevenths: [Double] = [0, 2.0 / 7, 4.0 / 7, 6.0 / 7, 8.0 / 7]
        XCTAssertEqual(t.result().map(\.time), sevenths)
        XCTAssertEqual(note, "paired the first 5 beats; 2 top beats unpaired (give map= to choose)")
    }

    func testManyToOneMapSendsSeveralTopBeatsToOneBottomBeat() throws {
        // Top 4:all, bottom 2:all; beats 0,1 go to 0 and 2,3 go to 1: at s = 1 they merge in pairs.
        let (t, note) = try Temperament.define(span: 1, top: 4, topBeats: .all, bottom: 2, bottomBeats: .all,
                                               map: [.init(top: 1, bottom: 0), .init(top: 0, bottom: 0),
                                                     .init(top: 2, bottom: 1), .init(top: 3, bottom: 1)], slider: 0.5)
        XCTAssertNil(note)
        XCTAssertEqual(t.map?.map(\.top), [0, 1, 2, 3], "an explicit map is kept sorted")
        XCTAssertEqual(t.result(slider: 1).map(\.time), [0, 0, 0.5, 0.5])
        assertTimes(t.result().map(\.time), [0, 0.125, 0.5, 0.625])
    }

    func testCrossingPairsAreListedInTimeOrder() throws {
        // 0 -> 1 and 1 -> 0 of 2 against 2: the dots cross at s = 0.5.
        let (t, _) = try Temperament.define(span: 1, top: 2, topBeats: .all, bottom: 2, bottomBeats: .all,
                                            map: [.init(top: 0, bottom: 1), .init(top: 1, bottom: 0)], slider: 0)
        XCTAssertEqual(t.result(slider: 0.25).map(\.pair), [0, 1])
        XCTAssertEqual(t.result(slider: 0.25).map(\.time), [0.125, 0.375])
        XCTAssertEqual(t.result(slider: 0.75).map(\.pair), [1, 0])
        XCTAssertEqual(t.result(slider: 0.75).map(\.time), [0.125, 0.375])
        XCTAssertEqual(t.result(slider: 0.5).map(\.pair), [0, 1], "ties keep the pairs' order")
    }

    func testDefineResolvesEuclidAndAll() throws {
        let (t, _) = try Temperament.define(span: 1, top: 8, topBeats: .euclid(k: 3, rotation: 0), bottom: 13,
                                            bottomBeats: .euclid(k: 5, rotation: 0), map: nil, slider: nil)
        XCTAssertEqual(t.top.beats, [0, 3, 6])
        XCTAssertEqual(t.bottom.beats, [0, 3, 5, 8, 10])
        XCTAssertEqual(t.slider, 0.5)
        XCTAssertEqual(t.top.amps.count, 8)
    }

    func testValidationErrorsAreOneLine() {
        func message(_ body: () throws -> Void) -> String? {
            do { try body(); return nil } catch { return (error as? CommandError)?.message }
        }
        XCTAssertEqual(message { _ = try Temperament.define(span: 1, top: 0, topBeats: .all, bottom: 3, bottomBeats: .all, map: nil, slider: nil) },
                       "temper: the top subdivision must be at least 1 (got 0)")
        XCTAssertEqual(message { _ = try Temperament.define(span: 1, top: 4, topBeats: .list([0, 4]), bottom: 3, bottomBeats: .all, map: nil, slider: nil) },
                       "temper: top beat 4 is out of range for 4 pulses (0-3)")
        XCTAssertEqual(message { _ = try Temperament.define(span: 0, top: 4, topBeats: .all, bottom: 3, bottomBeats: .all, map: nil, slider: nil) },
                       "temper: span must be a positive time up to 10000000 s (got 0)")
        XCTAssertEqual(message { _ = try Temperament.define(span: 1, top: 4, topBeats: .list([0, 2]), bottom: 3, bottomBeats: .all,
                                                            map: [.init(top: 1, bottom: 0)], slider: nil) },
                       "temper: map 1-0: top beat 1 is not chosen (top: 0,2)")
        XCTAssertEqual(message { _ = try Temperament.define(span: 1, top: 4, topBeats: .all, bottom: 3, bottomBeats: .all,
                                                            map: [.init(top: 1, bottom: 3)], slider: nil) },
                       "temper: map 1-3: bottom beat 3 is out of range for 3 pulses (0-2)")
        XCTAssertEqual(message { _ = try Temperament.define(span: 1, top: 4, topBeats: .all, bottom: 3, bottomBeats: .euclid(k: 4, rotation: 0),
                                                            map: nil, slider: nil) },
                       "temper: bottom euclid(4): k must be 0-3 for 3 pulses")
        XCTAssertEqual(message { _ = try Temperament.define(span: 1, top: 4, topBeats: .all, bottom: 3, bottomBeats: .all,
                                                            map: [.init(top: 1, bottom: 1), .init(top: 1, bottom: 1)], slider: nil) },
                       "temper: map pair 1-1 is given twice")
    }

    func testSwingPresetMovesTheOffBeatFromHalfToTwoThirds() {
        let swing = TemperamentPreset.swing.temperament
        XCTAssertEqual(swing.span, 0.5)
        XCTAssertEqual(swing.result(slider: 0).map(\.time), [0, 0.25])
        assertTimes(swing.result(slider: 1).map(\.time), [0, 1.0 / 3])
        assertTimes(swing.result().map(\.time), [0, 7.0 / 24])
        XCTAssertEqual(swing.swingRatio()!, 1.4, accuracy: eps)
        XCTAssertEqual(swing.swingRatio(slider: 1)!, 2, accuracy: eps)
        XCTAssertEqual(swing.swingRatio(slider: 0)!, 1, accuracy: eps)
        assertTimes(swing.intervals(), [7.0 / 24, 5.0 / 24])
    }

    func testTigrignaPresetGoesFromTripletsAndEighthsToEvenFives() {
        let five = TemperamentPreset.tigrigna.temperament
        XCTAssertEqual(five.span, 1)
        assertTimes(five.result(slider: 0).map(\.time), [0, 1.0 / 6, 1.0 / 3, 0.5, 0.75])
        XCTAssertEqual(five.result(slider: 1).map(\.time), [0, 0.2, 0.4, 0.6, 0.8])
        assertTimes(five.result().map(\.time), [0, 0.18333333333333333, 0.36666666666666667, 0.55, 0.775])
        assertTimes(five.intervals(slider: 0), [1.0 / 6, 1.0 / 6, 1.0 / 6, 0.25, 0.25])
    }

    func testFiveSevenPresetIsEuclidFiveOfSevenAgainstFiveEven() throws {
        let t = fiveSeven
        XCTAssertEqual(t.top.beats, try Euclid.beats(k: 5, n: 7, rotation: -1))
        XCTAssertEqual(t.bottom.beats, [0, 1, 2, 3, 4])
        XCTAssertEqual(t.slider, 0.5)
        XCTAssertEqual(t.pairs.map(\.top), [0, 1, 3, 4, 6])
    }

    func testUnknownPresetListsThePresets() {
        XCTAssertThrowsError(try TemperamentPreset.named("bossa")) { error in
            XCTAssertEqual((error as? CommandError)?.message,
                           "temper preset: unknown preset 'bossa' (presets: swing, tigrigna, five-seven)")
        }
    }

    func testMorphSlidersRampLinearlyFromFirstToLastCycle() {
        XCTAssertEqual(Temperament.morphSliders(times: 5, from: 0, to: 1), [0, 0.25, 0.5, 0.75, 1])
        XCTAssertEqual(Temperament.morphSliders(times: 1, from: 0.3, to: 1), [0.3])
        XCTAssertEqual(Temperament.morphSliders(times: 3, from: 1.5, to: -0.5), [1.5, 0.5, -0.5])
    }

    func testStampMarkersPutsCyclesOneSpanApart() {
        let swing = TemperamentPreset.swing.temperament
        let ms = swing.stampMarkers(at: 1, sliders: [0, 1], content: .clip(3))
        assertTimes(ms.map(\.time), [1, 1.25, 1.5, 1.5 + 1.0 / 3])
        XCTAssertEqual(ms.map(\.content), Array(repeating: .clip(3), count: 4))
        assertTimes(ms.map(\.amp), [0.9, 0.6, 0.9, 0.6])
    }

    func testGroupHoldsOffsetsFromTheFirstDotAndTheSpan() {
        let t = Temperament(span: 1, top: .init(division: 4, beats: [1, 3]), bottom: .init(division: 4, beats: [1, 2]), slider: 1)
        let g = t.group(content: nil)
        XCTAssertEqual(g.elements.map(\.offset), [0, 0.25])
        XCTAssertEqual(g.span, 1)
    }

    func testRetimeKeepsTheFirstMarkerAndMovesTheRest() throws {
        let swing = TemperamentPreset.swing.temperament
        let ms = [Marker(id: 7, time: 2.25, amp: 0.3, content: .clip(2)), Marker(id: 4, time: 2, amp: 0.5, content: .clip(1))]
        let out = try swing.retimed(ms, slider: 1)
        XCTAssertEqual(out.map(\.id), [4, 7])
        assertTimes(out.map(\.time), [2, 2 + 1.0 / 3])
        XCTAssertEqual(out.map(\.amp), [0.5, 0.3])
        XCTAssertEqual(out.map(\.content), [.clip(1), .clip(2)])
    }

    func testRetimeRefusesMismatchedCounts() {
        let five = TemperamentPreset.tigrigna.temperament
        let ms = (0..<4).map { Marker(id: MarkerID($0), time: Double($0)) }
        XCTAssertThrowsError(try five.retimed(ms)) { error in
            XCTAssertEqual((error as? CommandError)?.message, "temper apply: 4 markers selected, the temperament has 5 beats (select 5 or a multiple of 5)")
        }
    }

    func testAuditionReplacesTheLoopRegionWithTheRepeatedResult() {
        var doc = Document(tracks: [
            Track(name: "a", markers: MarkerList([Marker(id: 0, time: 0.5, amp: 0.5, content: .clip(1)),
                                                  Marker(id: 1, time: 1.0, amp: 0.5, content: .clip(2)),
                                                  Marker(id: 2, time: 1.2, amp: 0.5, content: nil),
                                                  Marker(id: 3, time: 2.5, amp: 0.5, content: .clip(9))])),
            Track(name: "b", markers: MarkerList([Marker(id: 4, time: 1, content: .clip(4))])),
        ])
        doc.transport.loopStart = 0.5
        doc.transport.loopEnd = 2
        var swing = TemperamentPreset.swing.temperament   // span 0.5, dots at 0 and 7/24
        swing.bottom.amps = [0.9, 0.5, 0.5]   // the off-beat's amplitude: (0.6 + 0.5) / 2
        let out = swing.audition(document: doc, track: 0)
        let a = out.tracks[0].markers
        assertTimes(a.map(\.time), [0.5, 0.5 + 7.0 / 24, 1, 1 + 7.0 / 24, 1.5, 1.5 + 7.0 / 24, 2.5])
        XCTAssertEqual(a.map(\.content), [.clip(1), .clip(2), .clip(1), .clip(2), .clip(1), .clip(2), .clip(9)])
        assertTimes(a.map(\.amp), [0.9, 0.55, 0.9, 0.55, 0.9, 0.55, 0.5])
        XCTAssertEqual(out.tracks[1], doc.tracks[1])
        XCTAssertEqual(Set(a.map(\.id)).count, a.count, "ids stay unique")
    }

    func testAuditionBringsInDotsOfNeighbouringCyclesPastTheEnds() {
        var doc = Document(tracks: [Track(name: "a")])
        doc.transport.loopStart = 0
        doc.transport.loopEnd = 1
        // One pair 0 -> 1 of 1 against 2 over 1 s: at s = 1.5 the dot sits at 0.75; at s = -1 at -0.5,
        // which the previous cycle brings to 0.5.
        var t = Temperament(span: 1, top: .init(division: 1, beats: [0]), bottom: .init(division: 2, beats: [1]),
                            map: [.init(top: 0, bottom: 1)], slider: -1)
        XCTAssertEqual(t.audition(document: doc, track: 0, fallback: .clip(5)).tracks[0].markers.map(\.time), [0.5])
        XCTAssertEqual(t.audition(document: doc, track: 0, fallback: .clip(5)).tracks[0].markers.map(\.content), [.clip(5)])
        t.slider = 1.5
        XCTAssertEqual(t.audition(document: doc, track: 0).tracks[0].markers.map(\.time), [0.75])
    }
}

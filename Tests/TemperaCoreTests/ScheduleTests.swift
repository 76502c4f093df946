import XCTest
@testable import TemperaCore

/// `tempera events` and playback put every onset where the timing rule says: for loop k over the region [A, B),
/// a marker at t sounds at `time = (k*(B-A) + (t-A)) / tempo` and `frame = round(time * rate)`.
final class ScheduleTests: XCTestCase {
    func track(_ items: [(Double, Content?)], amp: Double = 0.8, name: String = "t") -> Track {
        Track(name: name, markers: MarkerList(items.enumerated().map {
            Marker(id: MarkerID($0.offset), time: $0.element.0, amp: amp, content: $0.element.1)
        }))
    }

    func document(_ tracks: [Track], loop: (Double, Double)? = (0, 2), tempo: Double = 1, length: Double = 2,
                  seed: UInt64 = 7) -> Document {
        let t = Transport(tempo: tempo, volume: 0.8, loopStart: loop?.0 ?? 0, loopEnd: loop?.1 ?? 2,
                          loopOn: loop != nil, length: length)
        return Document(tracks: tracks, transport: t, seed: seed)
    }

    /// The section 8 formula, written out independently of `Schedule`.
    func expected(t: Double, k: Int, a: Double, b: Double, tempo: Double, rate: Double) -> (Double, Int64) {
        let time = (Double(k) * (b - a) + (t - a)) / tempo
        return (time, Int64((time * rate).rounded()))
    }

    func testMarkerAtRootTwoOverFourLandsOnItsFrameInEveryLoop() {
        let doc = document([track([(2.0.squareRoot() / 4, .clip(10))])])
        let onsets = Schedule(document: doc, sampleRate: 48_000).onsets(loops: 3)
        XCTAssertEqual(onsets.map(\.frame), [16_971, 112_971, 208_971])
        XCTAssertEqual(onsets.map(\.time), [0.3535533905932738, 2.353553390593274, 4.353553390593274])
        XCTAssertEqual(onsets.map(\.loop), [0, 1, 2])
        XCTAssertEqual(onsets.map(\.clip), [10, 10, 10])
    }

    func testLoopRegionNotStartingAtZeroWithTempoAboveOne() {
        // Markers before A and at or after B are outside the region and never sound.
        let doc = document([track([(0.25, .clip(1)), (0.5, .clip(2)), (0.75, .clip(3)), (1.4999, .clip(4)),
                                   (1.5, .clip(5))])], loop: (0.5, 1.5), tempo: 1.5)
        let onsets = Schedule(document: doc, sampleRate: 44_100).onsets(loops: 2)
        XCTAssertEqual(onsets.map(\.clip), [2, 3, 4, 2, 3, 4])
        XCTAssertEqual(onsets.map(\.frame), [0, 7_350, 29_397, 29_400, 36_750, 58_797])
        XCTAssertEqual(onsets.map(\.time), [0, 0.16666666666666666, 0.6666, 0.6666666666666666, 0.8333333333333334,
                                            1.3332666666666666])
    }

    func testEveryOnsetMatchesTheFormulaToTheFrameOverManyLoops() {
        let times = [0, 1.0 / 3, 2.0.squareRoot() / 4, 0.7071, 1.0 / 7, 1.999_999, 1.25, 0.125 * 7]
        let doc = document([track(times.map { ($0, .clip(1)) }), track(times.map { ($0 / 2 + 0.3, .clip(2)) })],
                           loop: (0.1, 1.9), tempo: 0.75)
        let schedule = Schedule(document: doc, sampleRate: 96_000)
        let onsets = schedule.onsets(loops: 50)
        var expectedOnsets: [(Double, Int64)] = []
        for k in 0..<50 {
            var pass: [(Double, Int, Double)] = []
            for (ti, tr) in doc.tracks.enumerated() {
                for m in tr.markers where m.time >= 0.1 && m.time < 1.9 { pass.append((m.time, ti, m.time)) }
            }
            pass.sort { ($0.0, $0.1) < ($1.0, $1.1) }
            expectedOnsets += pass.map { expected(t: $0.2, k: k, a: 0.1, b: 1.9, tempo: 0.75, rate: 96_000) }
        }
        XCTAssertEqual(onsets.count, expectedOnsets.count)
        XCTAssertEqual(onsets.map(\.time), expectedOnsets.map(\.0))
        XCTAssertEqual(onsets.map(\.frame), expectedOnsets.map(\.1))
    }

    func testRestsHoldsAndEmptyMarkersAreNotOnsets() {
        let doc = document([track([(0, .clip(1)), (0.25, .hold), (0.5, .rest), (0.75, nil), (1, .clip(2))])])
        let onsets = Schedule(document: doc, sampleRate: 48_000).onsets(loops: 1)
        XCTAssertEqual(onsets.map(\.clip), [1, 2])
        XCTAssertEqual(onsets.map(\.frame), [0, 48_000])
    }

    func testTracksCountFromOneAndSortWithinAnInstant() {
        let doc = document([track([(0.5, .clip(1))], amp: 0.9), track([(0.5, .clip(2)), (0.25, .clip(3))], amp: 0.4)])
        let onsets = Schedule(document: doc, sampleRate: 48_000).onsets(loops: 1)
        XCTAssertEqual(onsets.map(\.track), [2, 1, 2])
        XCTAssertEqual(onsets.map(\.clip), [3, 1, 2])
        XCTAssertEqual(onsets.map(\.amp), [0.4, 0.9, 0.4])
    }

    func testWithTheLoopOffTheRegionIsTheWholeLength() {
        let doc = document([track([(0, .clip(1)), (2.5, .clip(2)), (3, .clip(3))])], loop: nil, length: 3)
        let onsets = Schedule(document: doc, sampleRate: 48_000).onsets(loops: 2)
        XCTAssertEqual(onsets.map(\.clip), [1, 2, 1, 2])
        XCTAssertEqual(onsets.map(\.frame), [0, 120_000, 144_000, 264_000])
    }

    func testMutedTracksAndTracksSilencedBySoloAreNotListed() {
        var a = track([(0, .clip(1))]), b = track([(0, .clip(2))]), c = track([(0, .clip(3))])
        a.mute = true
        XCTAssertEqual(Schedule(document: document([a, b, c]), sampleRate: 48_000).onsets(loops: 1).map(\.track), [2, 3])
        c.solo = true
        XCTAssertEqual(Schedule(document: document([a, b, c]), sampleRate: 48_000).onsets(loops: 1).map(\.track), [3])
    }

    func testRandomClipsAreReproducibleAndFollowTheSeed() {
        let items: [(Double, Content?)] = (0..<16).map { (Double($0) / 8, .random) }
        let first = Schedule(document: document([track(items)], seed: 7), sampleRate: 48_000).onsets(loops: 4)
        let again = Schedule(document: document([track(items)], seed: 7), sampleRate: 48_000).onsets(loops: 4)
        let other = Schedule(document: document([track(items)], seed: 8), sampleRate: 48_000).onsets(loops: 4)
        XCTAssertEqual(first, again)
        XCTAssertNotEqual(first.map(\.clip), other.map(\.clip))
        XCTAssertEqual(first.map(\.frame), other.map(\.frame))
        XCTAssertTrue(first.allSatisfy { (1...16).contains($0.clip) })
        // Sixty-four draws from sixteen slots: not all the same clip, and each pass draws anew.
        XCTAssertGreaterThan(Set(first.map(\.clip)).count, 4)
        XCTAssertNotEqual(first[0..<16].map(\.clip), first[16..<32].map(\.clip))
    }

    func testRandomClipsDrawOnlyFromFilledSlots() {
        var doc = document([track((0..<32).map { (Double($0) / 16, .random) })])
        for n in 0..<16 where n != 2 && n != 9 { doc.slots[n] = ClipSlot() }
        let clips = Set(Schedule(document: doc, sampleRate: 48_000).onsets(loops: 3).map(\.clip))
        XCTAssertEqual(clips, [3, 10])
    }

    func testRandomDrawsSurviveSaveAndReloadAndEditsElsewhere() throws {
        var doc = document([track((0..<16).map { (Double($0) / 8, .random) })])
        // Remove and re-add a marker so ids no longer follow time order, as after editing.
        let removed = doc.tracks[0].markers[0]
        doc.tracks[0].markers.remove(id: removed.id)
        doc.tracks[0].markers.insert(Marker(id: doc.makeMarkerID(), time: removed.time, amp: removed.amp, content: .random))
        let before = Schedule(document: doc, sampleRate: 48_000).onsets(loops: 2)
        let reloaded = try DocumentFile.decode(DocumentFile.encode(doc))
        XCTAssertNotEqual(reloaded.tracks[0].markers.map(\.id), doc.tracks[0].markers.map(\.id))
        XCTAssertEqual(Schedule(document: reloaded, sampleRate: 48_000).onsets(loops: 2), before)
        doc.tracks[0].markers.insert(Marker(id: doc.makeMarkerID(), time: 1.0 / 3, amp: 0.5, content: .clip(5)))
        let edited = Schedule(document: doc, sampleRate: 48_000).onsets(loops: 2).filter { $0.time != 1.0 / 3 && $0.time != 2 + 1.0 / 3 }
        XCTAssertEqual(edited, before)
    }
}

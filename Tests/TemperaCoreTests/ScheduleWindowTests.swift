import XCTest
@testable import TemperaCore

/// `tempera events` lists a long document a window of markers at a time: exactly the onsets, in exactly the order,
/// that the whole schedule gives, whatever the window's size.
final class ScheduleWindowTests: XCTestCase {
    /// A document of a few tracks with everything that makes events depend on their neighbours: holds and rests
    /// closing gates, ratchets with and without a span (hits past later markers, past the region's end), `?`
    /// draws, probabilities, markers sharing an instant, a muted track; a loop region or the whole timeline; a
    /// tempo map or none.
    static func document(seed: UInt64) -> Document {
        var rng = SeededRandom(seed: seed)
        var doc = Document(tracks: [])
        doc.seed = rng.next()
        var id: MarkerID = 0
        for t in 0..<Int.random(in: 1...4, using: &rng) {
            var markers: [Marker] = []
            var time = Double(Int.random(in: 0...3, using: &rng)) * 0.125
            for _ in 0..<Int.random(in: 0...60, using: &rng) {
                let contents: [Content?] = [.clip(1 + Int.random(in: 0...15, using: &rng)), .hold, .rest, .random, nil]
                var m = Marker(id: id, time: time, amp: Double(Int.random(in: 1...8, using: &rng)) / 8,
                               content: contents.randomElement(using: &rng)!)
                if Int.random(in: 0...5, using: &rng) == 0 { m.p = 0.5 }
                if Int.random(in: 0...4, using: &rng) == 0 {
                    m.rep = Int.random(in: 2...5, using: &rng)
                    if rng.coin() { m.repSpan = Double(Int.random(in: 1...8, using: &rng)) * 0.25 }
                }
                markers.append(m)
                id += 1
                // Now and then two markers at one instant.
                time += Int.random(in: 0...6, using: &rng) == 0 ? 0 : Double(Int.random(in: 1...4, using: &rng)) * 0.0625
            }
            var track = Track(name: "t\(t)", markers: MarkerList(markers))
            track.mute = Int.random(in: 0...6, using: &rng) == 0
            doc.tracks.append(track)
        }
        doc.nextMarkerID = id
        doc.transport.tempo = [1, 0.75, 1.5].randomElement(using: &rng)!
        doc.transport.length = 4
        if rng.coin() {
            doc.transport.loopOn = true
            doc.transport.loopStart = 0.5
            doc.transport.loopEnd = 2.75
        }
        if Int.random(in: 0...3, using: &rng) == 0 {
            doc.transport.tempoMap = TempoMap([.init(time: 1, tempo: 1.25, shape: .linear), .init(time: 2.5, tempo: 0.8)])
        }
        return doc
    }

    func testWindowedOnsetsAreTheWholeSchedulesOnes() {
        for seed in 0..<300 as Range<UInt64> {
            let doc = Self.document(seed: seed)
            let whole = Schedule(document: doc, sampleRate: 48_000).onsets(loops: 3)
            for window in [1, 2, 3, 7, 16_384] {
                var windowed: [Schedule.Onset] = []
                Schedule.forEachOnset(document: doc, sampleRate: 48_000, loops: 3, window: window) { windowed.append($0) }
                XCTAssertEqual(windowed, whole, "seed \(seed), windows of \(window)")
                if windowed != whole { return }
            }
        }
    }

    func testATrackOnItsOwnCycleIsListedAsTheWholeScheduleListsIt() {
        var doc = Self.document(seed: 7)
        doc.tracks.append(Track(name: "cycle", markers: MarkerList([Marker(id: doc.nextMarkerID, time: 0.3, content: .clip(2))])))
        doc.tracks[doc.tracks.count - 1].cycle = Track.Cycle(start: 0, end: 0.7)
        doc.nextMarkerID += 1
        let whole = Schedule(document: doc, sampleRate: 44_100).onsets(loops: 2)
        var windowed: [Schedule.Onset] = []
        Schedule.forEachOnset(document: doc, sampleRate: 44_100, loops: 2, window: 2) { windowed.append($0) }
        XCTAssertEqual(windowed, whole)
        XCTAssertTrue(whole.contains { $0.track == doc.tracks.count })
    }
}

import XCTest
@testable import TemperaCore

final class MarkerListTests: XCTestCase {
    func testKeepsTimeThenIdOrderWhateverTheInsertionOrder() throws {
        var list = MarkerList()
        list.insert(Marker(id: 5, time: 0.5))
        list.insert(Marker(id: 2, time: 0.25))
        list.insert(Marker(id: 9, time: 0.5))
        list.insert(Marker(id: 1, time: 0.5))
        try list.checkInvariants()
        XCTAssertEqual(list.map(\.id), [2, 1, 5, 9])
        XCTAssertEqual(list.index(of: 5), 2)
        XCTAssertEqual(list.lowerBound(time: 0.5), 1)
        XCTAssertEqual(list.upperBound(time: 0.5), 4)
        XCTAssertEqual(list.lowerBound(time: 0.3), 1)
        XCTAssertEqual(list.upperBound(time: 0.1), 0)
        XCTAssertEqual(list.lowerBound(time: 9), 4)
    }

    func testMarkersBuiltWithoutIdsAreKeptForTheDocumentToNumber() throws {
        let list = MarkerList([Marker(id: 0, time: 0.5), Marker(id: 0, time: 0), Marker(id: 0, time: 0.25)])
        XCTAssertEqual(list.map(\.time), [0, 0.25, 0.5])
        XCTAssertThrowsError(try list.checkInvariants(), "repeated ids are not a valid list yet")
        for doc in [Document.newDocument(), Document.demo()] {
            for track in doc.tracks { try track.markers.checkInvariants() }
        }
        XCTAssertEqual(Document.newDocument().tracks[0].markers.count, 16)
        XCTAssertEqual(Document.demo().tracks[2].markers.count, 16)
    }

    func testUpdateMovesAMarkerAndKeepsItsId() throws {
        var list = MarkerList((0..<10).map { Marker(id: MarkerID($0), time: Double($0)) })
        list.update(Marker(id: 3, time: 8.5, amp: 0.2))
        try list.checkInvariants()
        XCTAssertEqual(list.index(of: 3), 8)
        XCTAssertEqual(list[8].amp, 0.2)
        XCTAssertEqual(list.map(\.time), [0, 1, 2, 4, 5, 6, 7, 8, 8.5, 9])
        list.update(Marker(id: 3, time: 8.5, amp: 0.4, content: .rest))
        XCTAssertEqual(list[8].content, .rest)
        try list.checkInvariants()
    }

    func testRemoveReturnsTheMarkerAndForgetsItsId() throws {
        var list = MarkerList((0..<5).map { Marker(id: MarkerID($0), time: Double($0) / 4) })
        XCTAssertEqual(list.remove(id: 2)?.time, 0.5)
        XCTAssertNil(list.remove(id: 2))
        XCTAssertNil(list.index(of: 2))
        XCTAssertFalse(list.contains(id: 2))
        XCTAssertEqual(list.map(\.time), [0, 0.25, 0.75, 1])
        try list.checkInvariants()
    }

    func testNearestPrefersTheEarlierMarkerOnATieAndHonoursTheFilter() {
        let list = MarkerList([Marker(id: 0, time: 0), Marker(id: 1, time: 1, content: .clip(2)), Marker(id: 2, time: 2)])
        XCTAssertEqual(list.nearest(to: 0.5), 0)
        XCTAssertEqual(list.nearest(to: 0.51), 1)
        XCTAssertEqual(list.nearest(to: 5), 2)
        XCTAssertEqual(list.nearest(to: 1.9, where: { $0.content != nil }), 1)
        XCTAssertNil(MarkerList().nearest(to: 0))
    }

    func testEqualityIgnoresChunkingAndHashAgrees() {
        let markers = (0..<3000).map { Marker(id: MarkerID($0), time: Double($0) * 0.01) }
        let bulk = MarkerList(markers)
        var oneByOne = MarkerList()
        for m in markers.reversed() { oneByOne.insert(m) }
        XCTAssertEqual(bulk, oneByOne)
        XCTAssertEqual(bulk.hashValue, oneByOne.hashValue)
        oneByOne.update(Marker(id: 7, time: 0.07, amp: 0.1))
        XCTAssertNotEqual(bulk, oneByOne)
    }

    func testRandomAccessAgreesWithASortedArrayThroughSplitsAndMerges() throws {
        var rng = SeededRandom(seed: 42)
        var list = MarkerList()
        var model: [Marker] = []
        var nextID: MarkerID = 0
        for step in 0..<6000 {
            let r = rng.next() % 10
            if r < 6 || model.isEmpty {
                let m = Marker(id: nextID, time: Double(rng.next() % 500) / 10)
                nextID += 1
                list.insert(m)
                model.append(m)
            } else if r < 8 {
                let victim = model.remove(at: Int(rng.next() % UInt64(model.count)))
                XCTAssertEqual(list.remove(id: victim.id), victim)
            } else {
                let i = Int(rng.next() % UInt64(model.count))
                model[i].time = Double(rng.next() % 500) / 10
                list.update(model[i])
            }
            if step % 500 == 0 { try list.checkInvariants() }
        }
        try list.checkInvariants()
        model.sort { $0.precedes($1) }
        XCTAssertEqual(Array(list), model)
        for (i, m) in model.enumerated() where i % 37 == 0 {
            XCTAssertEqual(list[i], m)
            XCTAssertEqual(list.index(of: m.id), i)
        }
        XCTAssertGreaterThan(list.chunks.count, 1, "the test must exercise several chunks")
        // Drain it: merges all the way to empty.
        for m in model { list.remove(id: m.id) }
        try list.checkInvariants()
        XCTAssertTrue(list.isEmpty)
    }

    func testApplyGivesTheSameListWhetherItRebuildsOrMovesMarkerByMarker() throws {
        let base = MarkerList((0..<4000).map { Marker(id: MarkerID($0), time: Double($0 % 977) / 7) })
        for batch in [10, 3000] {
            var rng = SeededRandom(seed: UInt64(batch))
            var model = Dictionary(uniqueKeysWithValues: base.map { ($0.id, $0) })
            var removed: [MarkerID] = [], upserts: [Marker] = []
            for _ in 0..<batch {
                let id = MarkerID(rng.next() % 4000)
                if rng.coin() {
                    removed.append(id)
                    model[id] = nil
                } else {
                    let m = Marker(id: id, time: Double(rng.next() % 1000) / 3, amp: 0.5)
                    upserts.append(m)
                }
            }
            let fresh = Marker(id: 9999, time: 1.5)
            upserts.append(fresh)
            for m in upserts { model[m.id] = m }
            var list = base
            list.apply(removing: removed, upserting: upserts)
            try list.checkInvariants()
            XCTAssertEqual(list, MarkerList(model.values), "batch of \(batch)")
        }
    }

    func testACopySharesUntouchedChunks() {
        let list = MarkerList((0..<100_000).map { Marker(id: MarkerID($0), time: Double($0)) })
        var copy = list
        copy.update(Marker(id: 50_000, time: 50_000, amp: 0.1))
        XCTAssertEqual(list[50_000].amp, 0.8)
        XCTAssertEqual(copy[50_000].amp, 0.1)
        XCTAssertEqual(copy[0], list[0])
        // Sharing, not just equal values: the untouched chunks are the same buffers, the touched one is not.
        func storage(_ l: MarkerList, _ c: Int) -> UnsafeRawPointer? {
            l.chunks[c].withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        }
        let touched = list.chunk(containing: 50_000)
        XCTAssertGreaterThan(list.chunks.count, 2)
        for c in list.chunks.indices where c != touched {
            XCTAssertEqual(storage(copy, c), storage(list, c), "chunk \(c)")
        }
        XCTAssertNotEqual(storage(copy, touched), storage(list, touched))
    }
}

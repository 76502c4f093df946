import XCTest
@testable import TemperaCore

final class DocumentTests: XCTestCase {
    func testMarkersMadeWithoutIdsAreAllKeptAndNumberedUniquely() {
        let track = Track(name: "t", markers: MarkerList((0..<5).map { Marker(id: 0, time: Double(4 - $0) / 4) }))
        let doc = Document(tracks: [track, track])
        XCTAssertEqual(doc.tracks[0].markers.map(\.time), [0, 0.25, 0.5, 0.75, 1])
        let ids = doc.tracks.flatMap { $0.markers.map(\.id) }
        XCTAssertEqual(Set(ids).count, 10)
        XCTAssertEqual(doc.nextMarkerID, 10)
        for t in doc.tracks { XCTAssertNoThrow(try t.markers.checkInvariants()) }
    }

    func testNewDocumentStartsFromAPresetGridWithTheKitLoaded() {
        let doc = Document.newDocument()
        XCTAssertEqual(doc.tracks.count, 4)
        for t in doc.tracks { XCTAssertEqual(t.markers.map(\.time), (0..<16).map { Double($0) * 0.125 }) }
        XCTAssertEqual(doc.slots.map(\.file), Document.kitNames.map { "kit/\($0).wav" })
    }

    func testDemoPlaysOnEveryTrackAtOnce() {
        let doc = Document.demo()
        XCTAssertEqual(doc.tracks.map(\.markers.count), [6, 3, 16, 10, 5])
        XCTAssertTrue(doc.transport.loopOn)
        let schedule = Schedule(document: doc, sampleRate: 48_000)
        XCTAssertEqual(Set(schedule.events.map(\.track)), [0, 1, 2, 3, 4])
        XCTAssertEqual(schedule.events.first?.time, 0, "the first onset sounds as soon as Space is pressed")
    }
}

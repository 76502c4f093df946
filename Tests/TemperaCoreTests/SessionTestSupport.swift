import XCTest
@testable import TemperaCore

/// Builders shared by the session tests: small documents with exactly the markers a test talks about.
enum Fixture {
    /// A document whose tracks hold markers at the given times (amp 0.8, no content unless given).
    static func document(_ tracks: [[Double]], contents: [[Content?]]? = nil, amps: [[Double]]? = nil) -> Document {
        var doc = Document(tracks: [])
        for (ti, times) in tracks.enumerated() {
            var list = MarkerList()
            for (i, t) in times.enumerated() {
                list.insert(Marker(id: doc.makeMarkerID(), time: t, amp: amps?[ti][i] ?? 0.8,
                                   content: contents?[ti][i] ?? nil))
            }
            doc.tracks.append(Track(name: "t\(ti + 1)", markers: list))
        }
        return doc
    }

    /// A session on `document` with every marker of the listed tracks selected.
    static func session(_ tracks: [[Double]], contents: [[Content?]]? = nil, amps: [[Double]]? = nil,
                        selectTracks: [Int] = []) -> Session {
        let s = Session(document: document(tracks, contents: contents, amps: amps))
        for t in selectTracks { s.selection[t] = Set(s.document.tracks[t].markers.map(\.id)) }
        return s
    }

    /// A pattern code built without the parser: each token a symbol repeated once.
    static func code(_ symbols: [PatternCode.Symbol], source: String = "") -> PatternCode {
        PatternCode(items: symbols.map { .symbol($0, times: 1) }, source: source)
    }
}

extension Session {
    /// Times of a track in order.
    func times(_ track: Int = 0) -> [Double] { document.tracks[track].markers.map(\.time) }
    /// Contents of a track in order.
    func contents(_ track: Int = 0) -> [Content?] { document.tracks[track].markers.map(\.content) }
    /// Every track's invariants.
    func checkInvariants(file: StaticString = #filePath, line: UInt = #line) {
        for (i, t) in document.tracks.enumerated() {
            XCTAssertNoThrow(try t.markers.checkInvariants(), "track \(i + 1)", file: file, line: line)
        }
    }
}

func assertTimes(_ actual: [Double], _ expected: [Double], file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(actual.count, expected.count, "\(actual) vs \(expected)", file: file, line: line)
    for (a, e) in zip(actual, expected) {
        XCTAssertEqual(a, e, accuracy: 1e-12, "\(actual) vs \(expected)", file: file, line: line)
    }
}

import XCTest
@testable import TemperaTerminal
import TemperaCore

/// The status line while the editor follows an Ableton Link session (`--link`): the session's peers and tempo
/// before the current track.
final class LinkStatusLineTests: XCTestCase {
    func testTheTextCountsPeersAndGivesTheTempoToATenth() {
        XCTAssertEqual(LinkStatus(peers: 0, bpm: 120).text, "link alone 120.0 bpm")
        XCTAssertEqual(LinkStatus(peers: 1, bpm: 140).text, "link 1 peer 140.0 bpm")
        XCTAssertEqual(LinkStatus(peers: 3, bpm: 92.46).text, "link 3 peers 92.5 bpm")
    }

    func testTheSessionStandsBeforeTheTrackWithPeersInTheAccent() {
        let session = Session(document: .demo())
        var view = ViewState()
        view.transport.link = LinkStatus(peers: 2, bpm: 92.5)
        let canvas = render(session, view)
        XCTAssertTrue(canvas.line(23).hasSuffix(" link 2 peers 92.5 bpm  track 1/5 kick "), canvas.line(23))
        XCTAssertEqual(canvas.role(of: "link 2 peers", inRow: 23), .accent)
        view.transport.link = LinkStatus(peers: 0, bpm: 120)
        let alone = render(session, view)
        XCTAssertTrue(alone.line(23).hasSuffix(" link alone 120.0 bpm  track 1/5 kick "), alone.line(23))
        XCTAssertEqual(alone.role(of: "link alone", inRow: 23), .dim)
    }

    func testWithoutASessionTheLineIsAsBefore() {
        let line = render(Session(document: .demo())).line(23)
        XCTAssertFalse(line.contains("link"), line)
        XCTAssertTrue(line.hasSuffix("  track 1/5 kick "), line)
    }

    func testALongTrackNameKeepsTheMessageRoomAndLeavesTheSessionOut() {
        var doc = Document.demo()
        doc.tracks[0].name = String(repeating: "k", count: 50)
        let session = Session(document: doc)
        var view = ViewState()
        view.message = "saved"
        view.transport.link = LinkStatus(peers: 1, bpm: 120)
        let line = render(session, view).line(23)
        XCTAssertFalse(line.contains("link"), line)
        XCTAssertTrue(line.hasPrefix(" saved "), line)
    }
}

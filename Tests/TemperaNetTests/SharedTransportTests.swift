import Foundation
import TemperaCore
import TemperaNet
import TemperaTestSupport
import XCTest

/// The shared transport: a play from anyone reaches everyone as the same moment of the host's clock, and each
/// participant knows the host's clock.
final class SharedTransportTests: XCTestCase {
    func testAPlayFromOneParticipantStartsEveryoneAQuarterSecondAheadOnTheHostsClock() throws {
        var document = Document.newDocument()
        document.transport.tempo = 1.5
        document.transport.loopStart = 0.5
        document.transport.loopEnd = 2
        var options = DocumentHost.Options()
        options.port = 0
        let host = try DocumentHost(session: Session(document: document), options: options)
        defer { host.stop() }
        let ana = Participant(host: "127.0.0.1", port: host.port, name: "ana")
        let bo = Participant(host: "127.0.0.1", port: host.port, name: "bo")
        try ana.connect()
        try bo.connect()
        XCTAssertTrue(waitUntil(5) { ana.sync { $0.connected && $0.clockOffset != nil } && bo.sync { $0.connected && $0.clockOffset != nil } })
        // One machine, one clock: the offset measured is within the round trip of none.
        for p in [ana, bo] {
            let (offset, trip) = p.sync { ($0.clockOffset!, $0.clockRoundTrip!) }
            XCTAssertLessThanOrEqual(abs(offset), trip / 2 + 1e-6)
        }
        let asked = monotonicSeconds()
        ana.play(true)
        XCTAssertTrue(waitUntil(5) { ana.sync { $0.transport.playing } && bo.sync { $0.transport.playing } })
        let a = ana.sync { $0.transport }, b = bo.sync { $0.transport }
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.start, 1)
        XCTAssertEqual(a.music, 0)
        XCTAssertEqual(a.rate, 1.5)
        XCTAssertEqual(a.span, 1.5)
        XCTAssertGreaterThanOrEqual(a.at, asked + SharedTransport.lead)
        XCTAssertLessThan(a.at, monotonicSeconds() + SharedTransport.lead)

        // A late joiner learns it on joining; a tempo change re-anchors the music where it is; a stop stops all.
        let cy = Participant(host: "127.0.0.1", port: host.port, name: "cy")
        try cy.connect()
        XCTAssertTrue(waitUntil(5) { cy.sync { $0.transport } == a })
        usleep(300_000)
        bo.send("tempo 2")
        XCTAssertTrue(waitUntil(5) { cy.sync { $0.transport.rate } == 2 })
        let c = cy.sync { $0.transport }
        XCTAssertEqual(c.start, 1)
        XCTAssertGreaterThan(c.at, a.at)
        XCTAssertEqual(c.music, (c.at - a.at) * 1.5, accuracy: 1e-9)
        bo.play(false)
        XCTAssertTrue(waitUntil(5) { !ana.sync { $0.transport.playing } && !cy.sync { $0.transport.playing } })
    }
}

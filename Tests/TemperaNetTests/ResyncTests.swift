import Foundation
import TemperaCore
@testable import TemperaNet
import TemperaTestSupport
import XCTest

/// A participant that stops reading while the others change the document is sent the whole document again once
/// it reads, and the others are never held up.
final class ResyncTests: XCTestCase {
    func testAParticipantThatFallsBehindIsResyncedAndTheOthersStay() throws {
        let lines = LineList()
        var options = DocumentHost.Options()
        options.port = 0
        options.participantOutbox = 256 << 10
        let h = try DocumentHost(session: Session(document: Document(tracks: [Track(name: "one")])), options: options)
        h.log = { lines.add($0) }
        defer { h.stop() }
        let slow = try RawClient(port: h.port)
        slow.send(Wire.hello(name: "slow", token: nil, session: nil, replied: 0) + "\n")
        XCTAssertNotNil(slow.line(containing: "\"reply\""))
        let fast = Participant(host: "127.0.0.1", port: h.port, name: "fast")
        try fast.connect()
        XCTAssertTrue(waitUntil(5) { fast.sync { $0.connected } })
        // The slow one reads nothing while fast makes 20 changes of 10,000 markers each (about 8 MB).
        for k in 0..<20 { fast.send("pulse period=1/100000 count=10000 start=\(k)") }
        XCTAssertTrue(waitUntil(120) { fast.sync { $0.unanswered.isEmpty } })
        XCTAssertTrue(fast.sync { $0.connected }, "the others stay")
        XCTAssertTrue(lines.items.contains { $0.contains("fell behind") }, "\(lines.items)")
        let finalSeq = h.seq
        var snapshots = 0
        var lastSeq = -1
        while let l = slow.line(within: 20) {
            if l.hasPrefix("{\"snapshot\":"), let n = Int(l.dropFirst(12).prefix { $0.isNumber }) {
                snapshots += 1
                lastSeq = n
            }
            if l.hasPrefix("{\"delta\":"), let n = Int(l.dropFirst(9).prefix { $0.isNumber }) { lastSeq = n }
            if snapshots >= 1 && lastSeq == finalSeq { break }
        }
        XCTAssertGreaterThanOrEqual(snapshots, 1, "the resync's snapshot")
        XCTAssertEqual(lastSeq, finalSeq, "it ends with the host's document as it is")
        fast.cut()
    }
}

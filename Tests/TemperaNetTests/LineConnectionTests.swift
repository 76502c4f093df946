import Dispatch
import Foundation
@testable import TemperaNet
import XCTest

/// How the host writes to a participant: long lines cut into pieces, urgent lines ahead of what waits, no
/// more than a window beyond what the peer acknowledged, and urgent lines a peer never reads not piling up.
final class LineConnectionTests: XCTestCase {
    /// A connection on one end of a socket pair, and the other end's descriptor (blocking).
    func pair(window: Int?) -> (LineConnection, Int32, DispatchQueue) {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds), 0)
        let queue = DispatchQueue(label: "test.line")
        let c = LineConnection(fd: fds[0], queue: queue, maxLine: 1 << 20, peer: "pair")
        queue.sync {
            c.cutsLongLines = true
            c.window = window
            c.start()
        }
        return (c, fds[1], queue)
    }

    /// Reads physical lines from `fd` until `count` have come (or a second passes).
    func read(_ fd: Int32, lines count: Int) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var buffer: [UInt8] = []
        let end = Date().addingTimeInterval(1)
        while out.count < count, Date() < end {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 50) == 1 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            guard n > 0 else { break }
            buffer += chunk[0..<n]
            while let nl = buffer.firstIndex(of: 0x0A) {
                out.append(Array(buffer[..<nl]))
                buffer.removeFirst(nl + 1)
            }
        }
        return out
    }

    func testALongLineGoesOutInPiecesWithinTheWindowAndAnUrgentLinePassesIt() {
        let (c, fd, queue) = pair(window: LineConnection.piece)
        defer { close(fd) }
        let long = String(repeating: "x", count: 3 * LineConnection.piece + 10)
        queue.sync {
            c.send(long)
            c.sendUrgent("{\"pong\":1}")
        }
        // One piece fills the window; the pong goes out beside it, not behind the rest.
        var got = read(fd, lines: 2)
        XCTAssertEqual(got.map(\.count), [LineConnection.piece + 1, 10])
        XCTAssertEqual(got.first?.first, UInt8(ascii: "+"))
        XCTAssertEqual(got.last, Array("{\"pong\":1}".utf8))
        XCTAssertEqual(read(fd, lines: 1), [], "nothing more until the peer says it has read")
        var written = queue.sync { c.written }
        XCTAssertEqual(written, LineConnection.piece + 2 + 11)
        // Each acknowledgement lets the next piece go; the last starts with `=`.
        for _ in 0..<3 {
            queue.sync { c.acknowledged(written) }
            got = read(fd, lines: 1)
            written = queue.sync { c.written }
        }
        XCTAssertEqual(got.first?.first, UInt8(ascii: "="))
        XCTAssertEqual(got.first?.count, 11)
        XCTAssertEqual(queue.sync { c.pending }, 0)
        queue.sync { c.close() }
    }

    func testUrgentLinesAPeerNeverReadsDoNotPileUp() {
        let (c, fd, queue) = pair(window: 1 << 20)
        defer { close(fd) }
        queue.sync {
            for k in 0..<100_000 { c.sendUrgent("{\"pong\":\(k),\"host\":12345.678}") }
        }
        // What the socket pair's buffers took, and at most a piece of answers waiting.
        let pending = queue.sync { c.pending }
        let written = queue.sync { c.written }
        print("100,000 pongs to a peer that never reads: \(written) bytes written, \(pending) waiting")
        XCTAssertLessThan(pending, LineConnection.piece + 64)
        XCTAssertLessThan(written, 8 << 20)
        queue.sync { c.close() }
    }
}

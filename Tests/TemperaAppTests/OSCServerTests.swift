import Foundation
import Synchronization
import TemperaOSC
import TemperaTestSupport
import XCTest

/// The OSC port: bound to loopback unless another address is asked for, each problem in one line, and what is not
/// an OSC message (bytes liblo refuses) dropped without a trace while the messages around it are taken.
final class OSCServerTests: XCTestCase {
    func testItListensOnLoopbackOnlyAndSaysWhatItCannotDo() throws {
        let server = try OSCServer(listen: "127.0.0.1", port: 0, arrived: {})
        defer { server.close() }
        XCTAssertGreaterThan(server.port, 0)
        let sockets = Spawn.run("/usr/bin/ss", ["-uln"]).stdout
        XCTAssertTrue(sockets.contains("127.0.0.1:\(server.port) "), sockets)
        XCTAssertFalse(sockets.contains("0.0.0.0:\(server.port) ") || sockets.contains("*:\(server.port) "), sockets)
        XCTAssertThrowsError(try OSCServer(listen: "example.org", port: 0, arrived: {})) {
            XCTAssertEqual("\($0)", "--osc-listen example.org is not an IP address")
        }
        XCTAssertThrowsError(try OSCServer(listen: "127.0.0.1", port: server.port, arrived: {})) {
            XCTAssertEqual("\($0)", "cannot listen for OSC on 127.0.0.1:\(server.port): Address already in use")
        }
        XCTAssertThrowsError(try OSCServer(listen: "127.0.0.1", port: 70_000, arrived: {})) {
            XCTAssertEqual("\($0)", "the OSC port must be from 0 to 65535, not 70000")
        }
    }

    /// An NSM client listens on loopback for a manager on loopback, and a URL it cannot use is one line.
    func testAnNSMClientListensOnLoopbackForALoopbackManagerAndSaysWhatItCannotUse() throws {
        let client = try NSMClient(url: "osc.udp://127.0.0.1:9/", arrived: {})
        defer { client.close() }
        let sockets = Spawn.run("/usr/bin/ss", ["-uln"]).stdout
        XCTAssertTrue(sockets.contains("127.0.0.1:\(client.server.port) "), sockets)
        XCTAssertEqual(client.manager.description, "127.0.0.1:9")
        for bad in ["http://127.0.0.1:9/", "osc.udp://127.0.0.1/", "osc.udp://127.0.0.1:0/", "osc.udp://:9/"] {
            XCTAssertThrowsError(try NSMClient(url: bad, arrived: {})) {
                XCTAssertEqual("\($0)", "NSM_URL must be osc.udp://HOST:PORT/ (got \(bad))")
            }
        }
    }

    func testBytesThatAreNoOSCMessageAreDroppedAndTheNextMessageIsTaken() throws {
        let arrivals = Counter()
        let server = try OSCServer(listen: "127.0.0.1", port: 0, arrived: { arrivals.add() })
        defer { server.close() }
        func send(_ bytes: [UInt8]) {
            let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            defer { close(fd) }
            var to = sockaddr_in()
            to.sin_family = sa_family_t(AF_INET)
            to.sin_addr.s_addr = inet_addr("127.0.0.1")
            to.sin_port = UInt16(server.port).bigEndian
            _ = withUnsafePointer(to: &to) {
                sendto(fd, bytes, bytes.count, 0, UnsafeRawPointer($0).assumingMemoryBound(to: sockaddr.self),
                       socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        /// An OSC string: its bytes, a NUL, padded to a multiple of four.
        func osc(_ s: String) -> [UInt8] {
            var b = Array(s.utf8) + [0]
            while b.count % 4 != 0 { b.append(0) }
            return b
        }
        send([0xFF, 0x00, 0x12])
        send(osc("/tempera/locate") + osc(",s"))                     // a type tag that promises a string and has none
        send(osc("#bundle") + [0, 0, 0, 0, 0, 0, 0, 1])
        send(osc("/tempera/play") + osc(","))
        send(osc("/tempera/locate") + osc(",f") + [0x3F, 0xC0, 0, 0])  // 1.5
        XCTAssertTrue(waitUntil(5) { arrivals.value >= 2 })
        usleep(100_000)
        XCTAssertEqual(server.take().map(\.kind), [.play, .locate(1.5)])
    }
}

/// Counts calls from another thread.
final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

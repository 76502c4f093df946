import Foundation
@testable import TemperaAudio
import TemperaTestSupport
import XCTest

/// What every test through a private JACK server shares: a scratch folder, the servers it started (stopped and
/// removed afterwards), and a few waits.
class JackTestCase: XCTestCase {
    var dir = ""
    var servers: [JackTestServer] = []

    /// The scratch folder's name.
    var directoryName: String { "jack" }

    override func setUp() { dir = TestPaths.temporaryDirectory(directoryName) }

    override func tearDown() {
        for s in servers { s.stop() }
        try? FileManager.default.removeItem(atPath: dir)
        for s in servers { try? FileManager.default.removeItem(atPath: s.dir) }
    }

    func startServer() throws -> JackTestServer {
        let s = try JackTestServer()
        servers.append(s)
        s.use()
        return s
    }

    func isRunning(_ e: AudioEngine) -> Bool { if case .running = e.status { return true } else { return false } }
}

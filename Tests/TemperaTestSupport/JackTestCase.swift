import Foundation
import TemperaAudio
import TemperaCore
import XCTest

/// What every test through a private JACK server shares: a scratch folder, the servers it started (stopped and
/// removed afterwards), a click to play, and an engine on the server started and waited for.
open class JackTestCase: XCTestCase {
    public var dir = ""
    public var servers: [JackTestServer] = []

    /// The scratch folder's name.
    open var directoryName: String { "jack" }

    override open func setUp() { dir = TestPaths.temporaryDirectory(directoryName) }

    override open func tearDown() {
        for s in servers { s.stop() }
        try? FileManager.default.removeItem(atPath: dir)
        for s in servers { try? FileManager.default.removeItem(atPath: s.dir) }
    }

    /// Starts a private server and points this process's clients at it.
    public func startServer() throws -> JackTestServer {
        let s = try JackTestServer()
        servers.append(s)
        s.use()
        return s
    }

    public func isRunning(_ e: AudioEngine) -> Bool { if case .running = e.status { return true } else { return false } }

    /// Sixteen slots, the first (named `name`) a 200-frame click at 0.5 written into the scratch folder.
    public func clickSlots(_ name: String) throws -> [ClipSlot] {
        let path = dir + "/a.wav"
        try AudioFile.write([Float](repeating: 0.5, count: 200), sampleRate: 48_000, to: path, as: .wavFloat)
        return [ClipSlot(name: name, file: path)] + Array(repeating: ClipSlot(), count: 15)
    }

    /// An engine playing into the server `doc` (its samples from the scratch folder), set up by `configure`
    /// before it starts, running, with `recorder` connected to it.
    public func startEngine(_ doc: Document, recorder: JackTestClient, file: StaticString = #filePath, line: UInt = #line,
                            configure: (AudioEngine) -> Void = { _ in }) -> AudioEngine {
        let engine = AudioEngine(output: .jack)
        configure(engine)
        XCTAssertEqual(engine.load(document: doc, baseDirectory: dir), [], file: file, line: line)
        engine.start()
        XCTAssertTrue(waitUntil(5) { isRunning(engine) }, "the engine runs", file: file, line: line)
        XCTAssertNotNil(recorder.waitReady(), "the recorder is connected", file: file, line: line)
        return engine
    }
}

import Foundation
import TemperaApp
import TemperaAudio
import TemperaCore
import TemperaNet
import TemperaPlayback
import TemperaTerminal
import TemperaTestSupport
import XCTest

/// The editor on a shared document, in this process: a host on a free port, another participant, and the joined
/// editor on a memory screen with a real engine on the null output.
final class JoinedEditorTests: XCTestCase {
    var host: DocumentHost!
    var joined: JoinedEditor!
    var editor: Editor!
    var engine: AudioEngine!
    var ana: Participant!
    let dir = TestPaths.temporaryDirectory("joined-editor")

    override func setUpWithError() throws {
        var options = DocumentHost.Options()
        options.port = 0
        host = try DocumentHost(session: Session(document: .demo()), options: options)
        joined = try JoinedEditor(participant: Participant(host: "127.0.0.1", port: host.port, name: "ed"))
        engine = AudioEngine(output: .null)
        engine.start()
        let paths = ConfigPaths(config: dir + "/config", state: dir + "/state")
        editor = joined.makeEditor(screen: MemoryScreen(width: 120, height: 40), player: engine, offline: nil,
                                   keyMap: .standard, paths: paths)
        ana = Participant(host: "127.0.0.1", port: host.port, name: "ana")
        try ana.connect()
        XCTAssertTrue(until { self.ana.sync { $0.connected } })
    }

    override func tearDown() {
        ana?.cut()
        joined?.participant.cut()
        host?.stop()
        engine?.stop()
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Polls the joined editor (as its loop does) until `condition` holds, at most `seconds`.
    func until(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if joined != nil { _ = joined.poll() }
            if condition() { return true }
            usleep(2_000)
        }
        return condition()
    }

    func testAnotherParticipantsEditArrivesFlashesAndIsHeard() {
        XCTAssertTrue(until { self.editor.dispatcher.view.sharedWith == ["ana"] }, "ana is named")
        let before = joined.session.revision
        ana.send("marker add 0.125")
        XCTAssertTrue(until { self.joined.session.revision > before })
        XCTAssertEqual(editor.dispatcher.view.flashed.count, 1, "her marker flashes")
        let added = joined.session.document.tracks.flatMap { $0.markers.map(\.time) }.filter { $0 == 0.125 }
        XCTAssertEqual(added.count, 1)
        // The loop publishes what arrived (a resize stands for any event): the controller now has this revision.
        editor.process([.resize])
        XCTAssertEqual(editor.dispatcher.playback.version?.revision, joined.session.revision)
    }

    func testTheHostStartsAndStopsThisPlayer() {
        editor.process([.resize])
        XCTAssertFalse(engine.isPlaying)
        ana.play(true)
        XCTAssertTrue(until { self.engine.isPlaying }, "the host's start reaches this player")
        ana.play(false)
        XCTAssertTrue(until { !self.engine.isPlaying }, "and its stop")
    }

    func testSpaceAsksTheHostToPlayForEveryone() {
        editor.process([.resize])
        editor.process([.key(Key(name: "space")!)])
        XCTAssertTrue(until { self.engine.isPlaying }, "played when the host said so")
    }

    /// Another participant's cursor far outside the screen (1e308, -1e308, not a number: what a host before the
    /// limits passed on) is drawn off the screen, never trapping the conversion to a column.
    func testACursorFarOffTheScreenIsDrawnWithoutTrapping() {
        editor.process([.resize])
        for cursor in [1e308, -1e308, .infinity, -.infinity, .nan, 9.3e18, -9.3e18] {
            editor.dispatcher.view.others = [Collaborator(name: "eve", cursor: cursor, track: 0, role: Collaborator.roles[0])]
            editor.process([.resize])
        }
        XCTAssertEqual(Viewport(start: 0, secondsPerColumn: 0.01).column(of: 1e308), 1 << 40)
        XCTAssertEqual(Viewport(start: 0, secondsPerColumn: 0.01).column(of: -1e308), -(1 << 40))
        XCTAssertEqual(Viewport(start: 0, secondsPerColumn: 0.01).column(of: 0.5), 50)
    }

    /// A host's editor that found its journal damaged says so as it starts, as an error.
    func testAStartProblemIsSaidAsTheEditorStarts() {
        joined.startProblem = "the journal j is damaged at record 7 (its checksum does not match)"
        let paths = ConfigPaths(config: dir + "/config", state: dir + "/state")
        editor = joined.makeEditor(screen: MemoryScreen(width: 120, height: 40), player: engine, offline: nil,
                                   keyMap: .standard, paths: paths)
        XCTAssertEqual(editor.dispatcher.view.message, "the journal j is damaged at record 7 (its checksum does not match)")
        XCTAssertTrue(editor.dispatcher.view.messageIsError)
    }
}

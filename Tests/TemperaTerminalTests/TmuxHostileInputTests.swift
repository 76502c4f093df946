import Foundation
import XCTest
import TemperaTestSupport
import TemperaAudio
@testable import TemperaCore

/// The editor against what a terminal may send it: random bytes, half of them mouse reports; a FIFO for a
/// sample; a kill in the middle of a save.
extension TmuxTests {
    /// Bytes that would reach a save, or a line where one could be typed, are never sent: Ctrl-s, S (save as),
    /// `:` (the command line), Ctrl-o, Ctrl-n, q, Ctrl-q, Ctrl-c (quit, whose question offers a save), Ctrl-e
    /// (render) and the keys that open the command line with a command in it (F spread, L loop, T cursor time,
    /// = amplitude, P pattern, E the designer's line), whose words could be edited into `w`. Mouse reports
    /// never land on the last row, the status line, where a click opens the command line. Everything else goes.
    static let neverSent: Set<UInt8> = Set([0x03, 0x05, 0x0e, 0x0f, 0x11, 0x13, 0x00] + Array("S:qFLTPE=".utf8))

    /// Escape sequences a terminal sends for keys (xterm's), whole or cut short.
    static let sequences = ["\u{1b}[A", "\u{1b}[B", "\u{1b}[C", "\u{1b}[D", "\u{1b}[1;2C", "\u{1b}[1;2D", "\u{1b}[1;2A",
                            "\u{1b}[1;2B", "\u{1b}[1;5C", "\u{1b}[1;5D", "\u{1b}[1;5A", "\u{1b}[1;3A", "\u{1b}[H",
                            "\u{1b}[F", "\u{1b}[5~", "\u{1b}[6~", "\u{1b}[3~", "\u{1b}[2~", "\u{1b}OP", "\u{1b}OQ",
                            "\u{1b}OR", "\u{1b}[15~", "\u{1b}[17~", "\u{1b}[Z", "\u{1b}", "\u{1b}[", "\u{1b}[1;",
                            "\u{1b}[<", "\u{1b}[M", "\u{1b}O", "\u{1b}[99;99~", "\u{1b}[200~", "\u{1b}[201~"]

    /// About `count` bytes from `seed`: half mouse reports (SGR and X10: presses, releases, drags, wheel, on
    /// any cell but the status line and beyond the right edge), the rest printable characters, control bytes
    /// and escape sequences.
    static func randomInput(count: Int, width: Int, height: Int, seed: UInt64) -> [String] {
        var rng = SeededRandom(seed: seed)
        var chunks: [String] = []
        var chunk = "", total = 0, mouseBytes = 0
        func allowed(_ b: UInt8) -> Bool { !neverSent.contains(b) }
        while total < count {
            var piece = ""
            if mouseBytes <= total / 2 {
                let buttons = [0, 1, 2, 3, 32, 33, 34, 35, 64, 65, 4, 8, 16, 36, 40]
                let b = buttons[rng.below(buttons.count)]
                let x = 1 + rng.below(width + 4), y = 1 + rng.below(height - 1)
                if rng.below(2) == 0 {
                    piece = "\u{1b}[<\(b);\(x);\(y)" + (rng.below(3) == 0 ? "m" : "M")
                } else {
                    // X10: three bytes offset by 32, kept to 7 bits (columns up to 94).
                    let bytes = [UInt8(32 + b % 96), UInt8(min(126, 32 + x)), UInt8(32 + y)]
                    guard bytes.allSatisfy(allowed) else { continue }
                    piece = "\u{1b}[M" + String(decoding: bytes, as: UTF8.self)
                }
                mouseBytes += piece.utf8.count
            } else {
                switch rng.below(4) {
                case 0, 1:
                    let b = UInt8(32 + rng.below(95))
                    guard allowed(b) else { continue }
                    piece = String(UnicodeScalar(b))
                case 2:
                    let b = UInt8(1 + rng.below(31))
                    guard allowed(b), b != 0x1b else { continue }
                    piece = String(UnicodeScalar(b))
                default:
                    piece = sequences[rng.below(sequences.count)]
                }
            }
            chunk += piece
            total += piece.utf8.count
            if chunk.utf8.count >= 400 {
                chunks.append(chunk)
                chunk = ""
            }
        }
        if !chunk.isEmpty { chunks.append(chunk) }
        return chunks
    }

    /// The pid of the program the pane runs (the shell's child).
    func editorPid() -> pid_t? {
        let shell = tmux("display", "-p", "-t", "t", "#{pane_pid}").trimmingCharacters(in: .whitespacesAndNewlines)
        let child = Spawn.run("/usr/bin/pgrep", ["-P", shell]).stdout.split(separator: "\n").first
        return child.flatMap { pid_t($0.trimmingCharacters(in: .whitespaces)) }
    }

    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// A document with a few tracks of markers and clips, saved at `path`.
    func busyDocument(at path: String) throws {
        let s = Session(document: Document.newDocument())
        try s.run(line: "pulse period=1/8 count=16")
        try DocumentFile.save(s.document, to: path)
    }

    func randomInputKeepsTheEditorAliveAndTheFileUnchanged(width: Int, height: Int, seed: UInt64) throws {
        let path = home + "/random.tempera"
        try busyDocument(at: path)
        let before = try XCTUnwrap(bytes(path))
        launch([path], width: width, height: height)
        waitFor("the editor", { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty })
        usleep(300_000)
        let chunks = TmuxTests.randomInput(count: 10_000, width: width, height: height, seed: seed)
        XCTAssertGreaterThanOrEqual(chunks.joined().utf8.count, 10_000)
        for chunk in chunks {
            type(chunk)
            XCTAssertFalse(screen().contains("tempera-exited"), "the editor ended during the input:\n\(screen())")
        }
        usleep(500_000)
        let after = screen()
        XCTAssertFalse(after.contains("tempera-exited"), "the editor ended:\n\(after)")
        // It still answers: SIGTERM closes it cleanly (it writes a recovery copy, never the document).
        let pid = try XCTUnwrap(editorPid())
        kill(pid, SIGTERM)
        waitFor("a clean end", timeout: 10, { $0.contains("tempera-exited-") })
        XCTAssertTrue(screen().contains("tempera-exited-0") || screen().contains("tempera-exited-143"), screen())
        XCTAssertEqual(bytes(path), before, "the document changed with no save")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: home).filter { $0.hasSuffix(".tmp") }, [])
    }

    func testTenThousandRandomBytesAt80x24NeitherCrashNorChangeTheFile() throws {
        try randomInputKeepsTheEditorAliveAndTheFileUnchanged(width: 80, height: 24, seed: 0x7e3a_11c5)
    }

    func testTenThousandRandomBytesAt20x5NeitherCrashNorChangeTheFile() throws {
        try randomInputKeepsTheEditorAliveAndTheFileUnchanged(width: 20, height: 5, seed: 0x51de_c0de)
    }

    func testAFifoForASampleLeavesTheEditorAnsweringKeys() throws {
        let path = home + "/fifo.tempera"
        XCTAssertEqual(mkfifo(home + "/pipe.wav", 0o600), 0)
        let s = Session(document: Document.newDocument())
        try s.run(line: "slot 2 file=pipe.wav")
        try DocumentFile.save(s.document, to: path)
        launch([path])
        waitFor("the warning", { $0.contains("pipe.wav: is a pipe (FIFO)") })
        keys("?")
        let help = waitFor("the help", { $0.lowercased().contains("play / pause") })
        keys("Escape")
        waitFor("the help closed", { $0 != help })
        usleep(200_000)
        keys("q")
        waitFor("tempera-exited-0")
    }

    func testAnEditorKilledMidSaveLeavesAWholeDocumentAndNoStrayFile() throws {
        let folder = home + "/docs"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/big.tempera"
        let s = Session(document: Document.newDocument())
        try s.run(line: "pulse period=1/100 count=100000")
        try DocumentFile.save(s.document, to: path)
        var tempo = try DocumentFile.load(path).transport.tempo
        let markers = try DocumentFile.load(path).tracks.map(\.markers.count)
        var killedAfterChange = 0
        for round in 0..<8 {
            launch([path])
            waitFor("loaded", timeout: 20, { $0.contains("big.tempera") && $0.contains("timeline") })
            let pid = try XCTUnwrap(editorPid())
            keys("}")
            keys("C-s")
            // Spread the kills over the save (here it takes 60 to 120 ms): encoding, writing, syncing, renaming.
            usleep(useconds_t(round * 19_000))
            if kill(pid, 0) == 0 { killedAfterChange += 1 }
            kill(pid, SIGKILL)
            let end = Date().addingTimeInterval(5)
            while kill(pid, 0) == 0, Date() < end { usleep(20_000) }
            tmux("kill-server")
            let now = try DocumentFile.load(path)
            XCTAssertEqual(now.tracks.map(\.markers.count), markers, "round \(round)")
            XCTAssertTrue(now.transport.tempo >= tempo, "round \(round)")
            tempo = now.transport.tempo
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["big.tempera"], "round \(round)")
            let autosaves = home + "/state/tempera/autosave"
            let strays = ((try? FileManager.default.contentsOfDirectory(atPath: autosaves)) ?? []).filter { $0.hasSuffix(".tmp") }
            XCTAssertEqual(strays, [], "round \(round)")
        }
        XCTAssertGreaterThan(killedAfterChange, 4)
    }
}

extension TmuxTests {
    /// Samples load behind the editor: a slot holding three minutes of 44.1 kHz sound (seconds to convert to the
    /// output rate) holds up neither keys nor SIGTERM.
    func testASlowSampleHoldsUpNeitherKeysNorSigterm() throws {
        let big = home + "/long.wav"
        let made = Spawn.run("/usr/bin/sox", ["-n", "-r", "44100", "-b", "16", "-c", "1", big, "synth", "180", "sine", "440"])
        try XCTSkipUnless(made.status == 0, "sox could not make the sample: \(made.stderr)")
        // How long the load takes here, now.
        let t0 = Date()
        _ = try SampleLoader.load(path: big, sampleRate: 48_000)
        let loadSeconds = Date().timeIntervalSince(t0)
        XCTAssertGreaterThan(loadSeconds, 0.5, "the sample must take a while to load for this test to mean anything")

        let path = home + "/slow.tempera"
        let s = Session(document: Document.newDocument())
        try s.run(line: "slot 2 file=long.wav")
        try DocumentFile.save(s.document, to: path)
        launch([path])
        waitFor("the first frame", { $0.contains("timeline") })
        let pressed = Date()
        keys("?")
        waitFor("the help", timeout: loadSeconds * 3, { $0.lowercased().contains("play / pause") })
        XCTAssertLessThan(Date().timeIntervalSince(pressed), loadSeconds / 2, "the key waited for the samples")
        let pid = try XCTUnwrap(editorPid())
        let signalled = Date()
        kill(pid, SIGTERM)
        waitFor("the end", timeout: loadSeconds * 3, { $0.contains("tempera-exited-") })
        XCTAssertLessThan(Date().timeIntervalSince(signalled), loadSeconds / 2, "SIGTERM waited for the samples")
    }
}

extension TmuxTests {
    /// A server that freezes while the editor plays: the transport says so within a few seconds, editing goes on,
    /// and once the server wakes the editor plays through it again.
    func testAFrozenServerIsShownAndTheEditorPlaysAgainWhenItWakes() throws {
        let server = try PulseTestServer()
        let pidText = try String(contentsOfFile: server.dir + "/run/pid", encoding: .utf8)
        let serverPid = try XCTUnwrap(pid_t(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))
        defer {
            kill(serverPid, SIGCONT)
            server.stop()
        }
        let env = "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME=\(home) XDG_CONFIG_HOME=\(home)/config "
            + "XDG_STATE_HOME=\(home)/state PULSE_SERVER=\(server.address)"
        session.start("\(env) \(TmuxTests.binary); echo tempera-exited-$?; sleep 60", width: 120, height: 40)
        waitFor("connected", timeout: 10, { $0.contains("latency") })
        keys("Space")
        waitFor("playing")
        // Past the idle sink's first-write stall: the stream flows.
        usleep(2_500_000)
        kill(serverPid, SIGSTOP)
        waitFor("the stall shown", timeout: 8, { $0.contains("audio server stalled") })
        // Editing goes on meanwhile.
        keys("}")
        waitFor("tempo up", { $0.contains("×1.05") })
        kill(serverPid, SIGCONT)
        waitFor("playing through the server again", timeout: 15, { $0.contains("latency") && !$0.contains("stalled") })
        keys("Space")
        waitFor("paused")
    }
}

private extension SeededRandom {
    /// 0..<n, as the input generator has always drawn it (so a seed gives the same bytes).
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

import CAllocCounter
import CJack
import Foundation
import Synchronization
import TemperaAudio
import TemperaCore

/// The first frame of the JACK cycle the bench's own client last ran in (its process callback writes it).
let benchCycleFrame = Atomic<Int>(-1)

/// The bench's own client's process callback: notes the cycle's first frame.
func benchClockProcess(_ nframes: jack_nframes_t, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let arg else { return 0 }
    benchCycleFrame.store(Int(jack_last_frame_time(OpaquePointer(arg))), ordering: .relaxed)
    return 0
}

/// The studio through a real JACK server (jackd2's dummy backend, 48 kHz, periods of 256 frames, started here under
/// a private name): the process callback's own cost and allocations with everything on (MIDI out on 16 slots,
/// clock out, MIDI in arriving), and how long a MIDI note or a pad key takes to sound, found in the output as a
/// recording client hears it.
enum JackBench {
    static let period = 256
    static let rate = 48_000.0

    static func run() {
        print("== JACK (dummy server, 48 kHz, \(period)-frame periods)")
        let dir = NSTemporaryDirectory() + "tempera-bench-jack-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let name = "tempera-bench-\(getpid())"
        let start = spawn(script("jack-test-server"), ["start", dir + "/server", name])
        guard start.status == 0 else { return print("  no JACK server could start: \(start.output)") }
        defer { _ = spawn(script("jack-test-server"), ["stop", dir + "/server"]) }
        setenv("JACK_DEFAULT_SERVER", name, 1)
        jackProcessProbe = tempera_process_probe
        defer { jackProcessProbe = nil }
        processCallback(dir: dir, server: name)
        latency(dir: dir, server: name)
    }

    /// The process callback with MIDI out on 16 slots, the clock out, a stereo output per track (16 of them beside
    /// the mix), a note arriving on MIDI in every 960 frames, tempo edits and pads between: its allocations, and its
    /// duration against the period's.
    static func processCallback(dir: String, server: String) {
        var doc = AudioBench.sixteenTrackDocument()
        for i in 0..<16 { doc.slots[i].midiChannel = 1 + i % 16 }
        let engine = AudioEngine(output: .jack, jack: JackOptions(outputs: .tracks))
        engine.sendsClock = true
        engine.load(document: doc, baseDirectory: nil)
        engine.start()
        guard waitRunning(engine) else { return print("  tempera did not connect: \(engine.status)") }
        // 6 s of notes (on and off) on the snare's note, from a client of its own.
        let notes: [(Int, [Int])] = (0..<300).flatMap { (k: Int) -> [(Int, [Int])] in
            [(k * 960, [0x99, 38, 100]), (k * 960 + 480, [0x89, 38, 0])]
        }
        guard let rec = Client(server: server, dir: dir + "/rec", arguments: []),
              let keys = Client(server: server, dir: dir + "/keys", arguments: ["--name", "keys", "--only-send"], send: notes,
                                lead: 4_800) else { return print("  the JACK test client did not start") }
        engine.play()
        usleep(300_000)
        tempera_process_probe_reset()
        var hits = 0
        for round in 0..<20 {
            doc.transport.tempo = 1 + Double(round % 5) / 10
            engine.update(document: doc)
            engine.hitPad(slot: 1 + round % 16, velocity: 0.5)
            hits += engine.takeMidiHits().count
            usleep(250_000)
        }
        var calls = 0, total = 0, longest = 0
        let allocations = tempera_process_probe_read(&calls, &total, &longest)
        let xruns = engine.underruns
        engine.pause()
        usleep(100_000)
        engine.stop()
        _ = keys.finish()
        _ = rec.finish()
        let periodMicros: Double = Double(period) / rate * 1e6
        let meanMicros: Double = Double(total) / Double(max(calls, 1)) / 1000
        let longestMicros: Double = Double(longest) / 1000
        print(String(format: "  process callback, MIDI out on 16 slots + clock out + 16 track outputs + MIDI in (%d notes taken) + 20 edits "
            + "and pads: %d allocations in %d periods; %.1f µs mean, %.1f µs longest of a %.0f µs period (%.2f%%, %.1f%%); xruns: %d",
            hits, allocations, calls, meanMicros, longestMicros, periodMicros,
            meanMicros / periodMicros * 100, longestMicros / periodMicros * 100, xruns))
    }

    /// MIDI in and pad keys to sound, through the server: note-ons sent on chosen frames (the sound on the frame it
    /// arrived, in the recording), and pad keys hit at a frame read from JACK's frame clock (the sound at the start
    /// of the next period).
    static func latency(dir: String, server: String) {
        let hitPath = dir + "/hit.wav"
        let block = [Float](repeating: 0.5, count: 200)
        do { try AudioFile.write(block, sampleRate: 48_000, to: hitPath, as: .wavFloat) } catch {
            return print("  latency: \(error)")
        }
        var slot = ClipSlot(name: "hit", file: hitPath)
        slot.midiInNote = 38
        var slots = [slot]
        while slots.count < 16 { slots.append(ClipSlot()) }
        let doc = Document(tracks: [Track(name: "t1")], slots: slots)
        let engine = AudioEngine(output: .jack)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        defer { engine.stop() }
        guard waitRunning(engine) else { return print("  tempera did not connect: \(engine.status)") }
        // 40 notes 0.1 s apart, each on another offset in its period.
        let notes = (0..<40).map { k in (k * 4_800 + (k * 97) % period, [0x99, 38, 100]) }
        guard let rec = Client(server: server, dir: dir + "/rec2", arguments: []),
              let keys = Client(server: server, dir: dir + "/keys2", arguments: ["--name", "keys", "--only-send"],
                                send: notes, lead: 9_600) else { return print("  the JACK test client did not start") }
        // The last note goes 0.2 s (the lead) + 39 · 0.1 s after the client is ready.
        usleep(4_300_000)
        let latency = engine.outputLatencyFrames

        // Pad keys, 40 of them at uneven moments. Each key's frame two ways: JACK's frame clock (the frame the
        // server's clock says it is now, from the wall clock), and the first frame of the cycle last run (the
        // pad must sound in the next one).
        var status = jack_status_t(rawValue: 0)
        var keyFrames: [Int] = [], keyCycles: [Int] = []
        if let clock = CJack_open("bench-clock", &status) {
            jack_set_process_callback(clock, benchClockProcess, UnsafeMutableRawPointer(clock))
            jack_activate(clock)
            usleep(100_000)
            for k in 0..<40 {
                usleep(UInt32(30_000 + (k * 7_919) % 40_000))
                keyCycles.append(benchCycleFrame.load(ordering: .relaxed))
                keyFrames.append(Int(jack_frame_time(clock)))
                engine.hitPad(slot: 1, velocity: 0.8)
            }
            usleep(200_000)
            jack_client_close(clock)
        }
        let sent = keys.finish().sent
        let recording = rec.finish()
        let onsets = soundStarts(recording.left).map { recording.start + $0 }

        func after(_ frames: [Int]) -> [Int] {
            frames.compactMap { f in onsets.first { $0 >= f && $0 < f + 4_800 }.map { $0 - f } }
        }
        let midi = after(sent)
        let pads = after(keyFrames)
        let cycles = after(keyCycles).map { $0 / period }
        func describe(_ d: [Int]) -> String {
            guard let lo = d.min(), let hi = d.max() else { return "none found" }
            return String(format: "%d..%d frames (mean %.1f)", lo, hi, Double(d.reduce(0, +)) / Double(d.count))
        }
        let bound = period + latency
        print("  reported playback latency: \(latency) frames (\(String(format: "%.2f", Double(latency) / rate * 1000)) ms)")
        let onFrame = midi.filter { $0 == 0 }.count
        let late = midi.filter { $0 != 0 }.map(String.init).joined(separator: ", ")
        print("  MIDI in to sound: \(onFrame)/\(sent.count) notes sound on their very arrival frame (heard the latency, "
            + "\(latency) frames, later: within one period + latency = \(bound))"
            + (late.isEmpty ? "" : "; others \(late) frames after it") + "; xruns: \(engine.underruns)")
        let next = cycles.filter { $0 <= 1 }.count
        let spread = Dictionary(grouping: cycles) { $0 }.mapValues(\.count).sorted { $0.key < $1.key }
            .map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        print("  pad key to sound: \(next)/\(keyCycles.count) keys sound at the start of the next cycle JACK runs "
            + "(periods after the cycle under way: \(spread)), so within one period + latency = \(bound) frames of the key; "
            + "by JACK's frame clock \(describe(pads)) after the key (the dummy server's cycles lag its clock on a "
            + "loaded machine)")
    }

    /// Where sounds start: the first sample that is not exactly zero after at least 100 that are.
    static func soundStarts(_ x: [Float]) -> [Int] {
        var starts: [Int] = []
        var silent = 100
        for (i, v) in x.enumerated() {
            if v == 0 {
                silent += 1
            } else {
                if silent >= 100 { starts.append(i) }
                silent = 0
            }
        }
        return starts
    }

    static func waitRunning(_ engine: AudioEngine) -> Bool {
        for _ in 0..<500 {
            if case .running = engine.status { return true }
            usleep(10_000)
        }
        return false
    }

    static var root: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    static func script(_ name: String) -> String { root + "/scripts/" + name }

    /// Runs a program to its end with posix_spawn and waitpid, its output through a file: the server it starts
    /// inherits its descriptors, which makes Foundation's `Process` wait for ever.
    static func spawn(_ path: String, _ arguments: [String]) -> (status: Int32, output: String) {
        let log = NSTemporaryDirectory() + "tempera-bench-spawn-\(getpid()).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, path, &actions, nil, argv, environ) == 0 else { return (-1, "cannot run \(path)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return ((status >> 8) & 0xff, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    /// scripts/jack-test-client: records tempera's output with frame times, or sends MIDI into it.
    final class Client {
        let dir: String
        let process = Process()

        deinit { if process.isRunning { process.terminate() } }

        init?(server: String, dir: String, arguments: [String], send: [(Int, [Int])] = [], lead: Int = 4_800) {
            self.dir = dir
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            var args = [server, dir, "--lead", "\(lead)"] + arguments
            if !send.isEmpty {
                let text = send.map { "\($0.0) " + $0.1.map(String.init).joined(separator: " ") }.joined(separator: "\n")
                try? (text + "\n").write(toFile: dir + "/send.txt", atomically: true, encoding: .utf8)
                args += ["--send", dir + "/send.txt"]
            }
            process.executableURL = URL(fileURLWithPath: JackBench.script("jack-test-client"))
            process.arguments = args
            _ = FileManager.default.createFile(atPath: dir + "/client.log", contents: nil)
            process.standardOutput = FileHandle(forWritingAtPath: dir + "/client.log")
            process.standardError = FileHandle(forWritingAtPath: dir + "/client.log")
            do { try process.run() } catch { return nil }
            for _ in 0..<1_000 {
                if FileManager.default.fileExists(atPath: dir + "/ready") { return }
                if !process.isRunning { return nil }
                usleep(10_000)
            }
            return nil
        }

        /// Stops the client; what it recorded: the first recorded frame, the left channel, the frames it sent on.
        func finish() -> (start: Int, left: [Float], sent: [Int]) {
            _ = FileManager.default.createFile(atPath: dir + "/stop", contents: nil)
            for _ in 0..<1_000 where process.isRunning { usleep(10_000) }
            if process.isRunning { process.terminate() }
            let meta = FileManager.default.contents(atPath: dir + "/meta.json")
                .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
            let data = FileManager.default.contents(atPath: dir + "/in_1.f32") ?? Data()
            let left = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            let sent = ((try? String(contentsOfFile: dir + "/sent.txt", encoding: .utf8)) ?? "").split(separator: "\n")
                .compactMap { $0.split(separator: " ").first.flatMap { Int($0) } }
            return (meta["start"] as? Int ?? 0, left, sent)
        }
    }
}

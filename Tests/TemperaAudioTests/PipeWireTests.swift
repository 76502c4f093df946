import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// tempera under PipeWire: a private PipeWire (pipewire, wireplumber, pipewire-pulse) in a D-Bus session of its
/// own (`dbus-run-session`), its runtime folder in the test's. `pw-jack tempera play --audio jack` plays into it as
/// into jackd, and `tempera play` through pipewire-pulse beside a reference stream; the default output's monitor is
/// recorded through pipewire-pulse and every onset must be on its frame.
final class PipeWireTests: XCTestCase {
    /// Shell lines starting the private PipeWire in "$D" and waiting until its pulse server has a default output
    /// (run inside `dbus-run-session`); `stopPipeWire` ends it.
    static let startPipeWire = """
        cd "$D"
        export XDG_RUNTIME_DIR="$D/run" PIPEWIRE_RUNTIME_DIR="$D/run" PULSE_RUNTIME_PATH="$D/run/pulse"
        export XDG_CONFIG_HOME="$D/config" XDG_STATE_HOME="$D/state" XDG_DATA_HOME="$D/data"
        export PULSE_SERVER="unix:$D/run/pulse/native"
        pipewire > pipewire.log 2>&1 & P1=$!
        for _ in $(seq 200); do [ -S run/pipewire-0 ] && break; sleep 0.05; done
        wireplumber > wireplumber.log 2>&1 & P2=$!
        pipewire-pulse > pipewire-pulse.log 2>&1 & P3=$!
        for _ in $(seq 200); do pactl info > /dev/null 2>&1 && break; sleep 0.05; done
        for _ in $(seq 200); do pactl get-default-sink 2>/dev/null | grep -q . && break; sleep 0.05; done
        """
    static let stopPipeWire = "kill $P3 $P2 $P1; wait"

    /// Skips unless the private PipeWire's programs, `programs` and the built tempera are there; makes the test's
    /// folder with its runtime folder.
    func prepare(_ name: String, programs: [String]) throws -> String {
        for program in ["/usr/bin/pipewire", "/usr/bin/wireplumber", "/usr/bin/pipewire-pulse", "/usr/bin/dbus-run-session",
                        "/usr/bin/parecord"] + programs
        where !FileManager.default.isExecutableFile(atPath: program) {
            throw XCTSkip("\(program) is missing (make test-deps installs it)")
        }
        guard FileManager.default.isExecutableFile(atPath: TestPaths.binary) else {
            throw XCTSkip("build tempera first (swift build)")
        }
        let dir = TestPaths.temporaryDirectory(name)
        try FileManager.default.createDirectory(atPath: dir + "/run", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        return dir
    }

    func testPwJackPlaysThroughPipeWireWithEveryOnsetOnItsFrame() throws {
        let dir = try prepare("pipewire", programs: ["/usr/bin/pw-jack"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A click on every half second of a 2-second loop, full scale from its first frame.
        try AudioFile.write([Float](repeating: 0.5, count: 240), sampleRate: 48_000, to: dir + "/click.wav", as: .wavFloat)
        let doc = Fixture.document(tracks: [[(0, .clip(1)), (0.5, .clip(1)), (1, .clip(1)), (1.5, .clip(1))]],
                                   slots: [ClipSlot(file: "click.wav")], span: 2)
        try DocumentFile.save(doc, to: dir + "/click.tempera")
        let seconds = 20
        let script = Self.startPipeWire + """

            parecord --device=@DEFAULT_MONITOR@ --format=float32le --rate=48000 --channels=2 --file-format=wav \\
                rec.wav & R=$!
            sleep 1
            pw-jack "$T" play click.tempera --forever --audio jack 2> play.err & J=$!
            sleep 2
            pw-jack jack_lsp -c > ports 2>&1
            sleep \(seconds)
            kill -INT $J; wait $J
            sleep 0.3
            kill -INT $R; wait $R

            """ + Self.stopPipeWire
        let run = Spawn.run("/usr/bin/dbus-run-session", ["--", "/bin/bash", "-c", script],
                            environment: ["D": dir, "T": TestPaths.binary])
        let ports = (try? String(contentsOfFile: dir + "/ports", encoding: .utf8)) ?? ""
        let played = (try? String(contentsOfFile: dir + "/play.err", encoding: .utf8)) ?? ""
        // tempera's outputs, connected (by the name the server gave) to the default output.
        let lines = ports.split(separator: "\n").map(String.init)
        for port in ["tempera:out_1", "tempera:out_2"] {
            guard let i = lines.firstIndex(of: port) else {
                XCTFail("no \(port): \(ports) \(played) \(run.stderr)")
                return
            }
            XCTAssertTrue(i + 1 < lines.count && lines[i + 1].hasPrefix("   "), "\(port) is connected: \(ports)")
        }
        let rec = try AudioFile.read(dir + "/rec.wav")
        let onsets = LinkTests.onsets(rec.samples, channel: 0)
        XCTAssertGreaterThanOrEqual(onsets.count, 2 * seconds, "\(played)")
        guard onsets.count >= 2 else { return }
        // From the second onset (the first may start inside the recording's first block): every onset on its
        // frame of the half-second grid.
        let first = onsets[1]
        let off = onsets.dropFirst().map { o -> Int in
            let d = o - first
            return d - Int((Double(d) / 24_000).rounded()) * 24_000
        }
        let worst = off.max { abs($0) < abs($1) } ?? 0
        print("PipeWire (pw-jack): \(onsets.count) onsets over \(String(format: "%.1f", Double(rec.samples.count / 2) / 48_000)) s, "
              + "worst \(worst) frames (\(String(format: "%.3f", Double(worst) / 48)) ms)")
        XCTAssertEqual(worst, 0, "onsets off their frames: \(off)")
        XCTAssertFalse(played.contains("underrun") || played.contains("xrun"), played)
    }

    /// tempera's PulseAudio stream through pipewire-pulse, measured against a reference stream rather than the
    /// recording's own frames: the capture of the monitor runs in pipewire-pulse too and loses whole quanta of its
    /// own on a loaded machine, and cycles the graph loses move every stream alike, so the recording alone cannot
    /// say whose frames moved. `scripts/pulse-reference-clicks` (libpulse-simple, prebuffering off as tempera's
    /// stream has it, real-time priority as tempera's render thread asks) plays a click every half second on the
    /// right channel into the same output while tempera's clicks, also every half second, are panned hard left:
    /// the distance between the two only changes if one stream shifts against the other. (`paplay` is no
    /// reference: it keeps PulseAudio's prebuffering, and under four busy loops its clicks moved up to 24,192
    /// frames, at real-time priority and with a 500 ms buffer, where tempera's moved none.) Two busy loops keep
    /// both cores busy (at the lowest priority, so the suite's other groups beside this one keep their clocks) and
    /// tempera is stopped dead for 100 ms three times (underruns): a dropout, never a shift.
    func testPulseStreamKeepsItsFramesAgainstAReferenceStream() throws {
        let dir = try prepare("pipewire-pulse", programs: ["/usr/bin/paplay"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let seconds = 40
        try AudioFile.write([Float](repeating: 0.5, count: 240), sampleRate: 48_000, to: dir + "/click.wav", as: .wavFloat)
        var doc = Fixture.document(tracks: [[(0, .clip(1)), (0.5, .clip(1)), (1, .clip(1)), (1.5, .clip(1))]],
                                   slots: [ClipSlot(file: "click.wav")], span: 2)
        doc.slots[0].pan = -1
        try DocumentFile.save(doc, to: dir + "/click.tempera")
        let script = Self.startPipeWire + """

            parecord --device=@DEFAULT_MONITOR@ --format=float32le --rate=48000 --channels=2 --file-format=wav \\
                rec.wav & R=$!
            B=""
            for _ in 1 2; do nice -n 19 /bin/sh -c 'while :; do :; done' & B="$B $!"; done
            sleep 1
            "$S/pulse-reference-clicks" \(seconds + 10) & A=$!
            "$T" play click.tempera --forever --audio pulse 2> play.err & J=$!
            for _ in 1 2 3; do sleep 8; kill -STOP $J; sleep 0.1; kill -CONT $J; done
            sleep \(seconds - 24)
            kill -INT $J; wait $J
            kill $A; wait $A
            sleep 0.3
            kill -INT $R; wait $R
            kill $B

            """ + Self.stopPipeWire
        let run = Spawn.run("/usr/bin/dbus-run-session", ["--", "/bin/bash", "-c", script],
                            environment: ["D": dir, "T": TestPaths.binary, "S": TestPaths.packageRoot + "/scripts"])
        let played = (try? String(contentsOfFile: dir + "/play.err", encoding: .utf8)) ?? ""
        let rec = try AudioFile.read(dir + "/rec.wav")
        let ours = Self.wholeClicks(rec.samples, channel: 0)
        let theirs = Self.wholeClicks(rec.samples, channel: 1)
        XCTAssertGreaterThanOrEqual(ours.count, 2 * seconds - 12, "\(played) \(run.stderr)")
        XCTAssertGreaterThanOrEqual(theirs.count, 2 * seconds - 4, "\(run.stderr)")
        // From tempera's third onset (both streams playing for a while: a stream joining may move the other's
        // start once, before a measured onset), the distance from each of tempera's onsets to the reference clicks
        // before and after it, against the first onset's, folded into a half second either side. A loss that moves
        // both streams can fall between an onset and one of the two clicks, never both: an onset is on its frame
        // when either distance is unchanged.
        let measured = Array(ours.dropFirst(2))
        guard let first = measured.first, let before = theirs.last(where: { $0 <= first }) else { return }
        func fold(_ d: Int) -> Int { d - Int((Double(d) / 24_000).rounded()) * 24_000 }
        let base = first - before
        let relative = measured.map { o -> Int in
            let sides = [theirs.last { $0 <= o }, theirs.first { $0 > o }].compactMap { $0 }.map { fold(o - $0 - base) }
            return sides.min { abs($0) < abs($1) } ?? .max
        }
        // Each stream against the recording's own frames over the same time: what the capture and the graph moved.
        func drift(_ onsets: [Int]) -> Int { onsets.last.map { fold($0 - onsets[0]) } ?? 0 }
        let worst = relative.max { abs($0) < abs($1) } ?? 0
        let underruns = played.split(separator: "\n").first { $0.contains(" underruns") }.map(String.init) ?? "no underrun"
        print("PipeWire (pulse): \(measured.count) onsets against the reference over "
              + "\(String(format: "%.1f", Double(rec.samples.count / 2) / 48_000)) s, worst \(worst) frames; "
              + "against the recording tempera \(drift(measured)) and the reference \(drift(theirs.filter { $0 >= before })) "
              + "frames at the end; \(underruns)")
        XCTAssertEqual(worst, 0, "tempera's onsets moved against the reference's: \(relative)")
        XCTAssertTrue(played.contains(" underruns"), "the stops were underruns: \(played)")
    }

    /// Where one channel's clicks start: runs of sound 200 to 280 frames long (a click is 240) after at least
    /// 2,400 frames of silence. A click an underrun cut short is left out: where a dropout begins or ends inside
    /// a click, its first sounding frame is not where the click starts.
    static func wholeClicks(_ stereo: [Float], channel: Int) -> [Int] {
        var starts: [Int] = []
        var start = 0, last = -10_000, whole = false
        func close() {
            if whole, (200...280).contains(last - start + 1) { starts.append(start) }
        }
        for i in 0..<(stereo.count / 2) where abs(stereo[2 * i + channel]) > 1e-6 {
            if i - last > 2_400 {
                close()
                start = i
                whole = true
            } else if i - last > 1 {
                whole = false
            }
            last = i
        }
        close()
        return starts
    }
}

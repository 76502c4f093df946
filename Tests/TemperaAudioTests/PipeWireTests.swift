import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// tempera under PipeWire: a private PipeWire (pipewire, wireplumber, pipewire-pulse) in a D-Bus session of its
/// own (`dbus-run-session`), its runtime folder in the test's, and `pw-jack tempera play --audio jack` playing
/// into it as into jackd; the default output's monitor is recorded through pipewire-pulse and every onset must be
/// on its frame.
final class PipeWireTests: XCTestCase {
    func testPwJackPlaysThroughPipeWireWithEveryOnsetOnItsFrame() throws {
        for program in ["/usr/bin/pipewire", "/usr/bin/wireplumber", "/usr/bin/pipewire-pulse", "/usr/bin/pw-jack",
                        "/usr/bin/dbus-run-session", "/usr/bin/parecord"]
        where !FileManager.default.isExecutableFile(atPath: program) {
            throw XCTSkip("\(program) is missing (make test-deps installs it)")
        }
        guard FileManager.default.isExecutableFile(atPath: TestPaths.binary) else {
            throw XCTSkip("build tempera first (swift build)")
        }
        let dir = TestPaths.temporaryDirectory("pipewire")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/run", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        // A click on every half second of a 2-second loop, full scale from its first frame.
        try AudioFile.write([Float](repeating: 0.5, count: 240), sampleRate: 48_000, to: dir + "/click.wav", as: .wavFloat)
        let doc = Fixture.document(tracks: [[(0, .clip(1)), (0.5, .clip(1)), (1, .clip(1)), (1.5, .clip(1))]],
                                   slots: [ClipSlot(file: "click.wav")], span: 2)
        try DocumentFile.save(doc, to: dir + "/click.tempera")
        let seconds = 20
        let script = """
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
            kill $P3 $P2 $P1; wait
            """
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
}

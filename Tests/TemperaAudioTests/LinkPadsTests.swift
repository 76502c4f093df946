import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// `tempera play --pads --link`: pads land where they are heard while the music follows a Link session, as they do
/// without Link (`PadTimingTests`). Everything runs in a network namespace with nothing but loopback.
final class LinkPadsTests: DisturbedRunsTestCase {
    typealias Played = PlayedPad

    func testPadsUnderLinkLandOnTheirTimePlusTheReportedLatencyAndOnTheMusicHeardAtTheSessionsTempo() throws {
        // A peer already in the session holds it at 140 BPM (its document's tempo): the player joins it at that
        // tempo before it plays, and the music plays at x7/6 from the peer's next bar.
        try playPads(peerTempo: 7.0 / 6, meter: 4, setTempo: false)
    }

    func testPadsUnderLinkLandAsWellWhenTheSessionsTempoChangesWhileThePlayerWaitsForTheBar() throws {
        // The peer holds the session at 120 BPM; the player joins it at that tempo and waits for the session's
        // bar (8 beats: the session's beat 8, 4 s after the peer began, about 2 s after the player did), and
        // while it waits a third peer sets 140 BPM. The music must start at the new tempo on the bar: started at
        // the old one, the clock is pulled onto the session block by block after the first onset sounded, and
        // every pad lands about 2 ms early.
        try playPads(peerTempo: 1, meter: 8, setTempo: true)
    }

    /// Plays `pads.tempera` (meter `meter`) with `--pads` under Link against a peer whose document plays at
    /// `peerTempo` (x1: 120 BPM); with `setTempo`, `tempera link --bpm 140` starts with the player. The session
    /// ends at 140 BPM either way.
    private func playPads(peerTempo: Double, meter: Int, setTempo: Bool) throws {
        let (dir, server) = try LinkTests.prepare()
        defer {
            server.stop()
            try? FileManager.default.removeItem(atPath: dir)
        }
        // The music: an onset every quarter second of a 6 s loop played once, hard left; the pads on slot 2, hard
        // right. The music's onsets are the reference the pads are measured against: following the session, the
        // music is held on the system's clock, whatever the rate the server's sink plays at.
        _ = try Fixture.wav(Fixture.block(frames: 200, level: 0.3), in: dir, name: "loop.wav")
        _ = try Fixture.wav(Fixture.block(frames: 200, level: 0.5), in: dir, name: "pad.wav")
        let beats: [(Double, Content?)] = (0..<24).map { (Double($0) * 0.25, Content.clip(1)) }
        var doc = Fixture.document(tracks: [beats], slots: [ClipSlot(file: "loop.wav", pan: -1), ClipSlot(file: "pad.wav", pan: 1)],
                                   span: 6, volume: 0.8)
        doc.transport.meter = meter
        try DocumentFile.save(doc, to: dir + "/pads.tempera")
        try DocumentFile.save(Fixture.document(tracks: [[]], slots: [], tempo: peerTempo, span: 2), to: dir + "/quiet.tempera")
        let times: [Double] = (0..<20).map { i -> Double in 0.1 + Double(i) * 0.13 + Double(i % 3) * 0.011 }
        let input: String = times.map { (t: Double) -> String in "\(t) 2 0.8\n" }.joined()
        try input.write(toFile: dir + "/pads.in", atomically: true, encoding: .utf8)
        let script = """
            set -u
            \(LinkTests.loopbackOnly)
            cd '\(dir)'
            export PULSE_SERVER='\(server.address)'
            T='\(TestPaths.binary)'
            "$T" play quiet.tempera --link --forever 2> peer.err &
            Q=$!
            sleep 1
            parecord --device=out.monitor --format=float32le --rate=48000 --channels=2 --file-format=wav rec.wav &
            P=$!
            sleep 0.8
            \(setTempo ? "\"$T\" link --bpm 140 --wait 5 > link.out 2> link.err &" : "")
            "$T" play pads.tempera --link --pads < pads.in > pads.out 2> pads.err
            echo $? > pads.status
            sleep 0.3
            kill -INT $P; wait $P
            kill -INT $Q; wait $Q
            """
        try script.write(toFile: dir + "/run.sh", atomically: true, encoding: .utf8)

        try runAgainWhenDisturbed("pads under Link", times: 3) { run in
            let attempt = run.attempt
            let spawned = Spawn.run("/usr/bin/unshare", ["--net", "sh", dir + "/run.sh"])
            XCTAssertNotEqual(spawned.status, 97, "Link must run only in a loopback-only namespace: \(spawned.stderr)")
            func read(_ name: String) -> String {
                (try? String(contentsOfFile: dir + "/" + name, encoding: .utf8)) ?? ""
            }
            XCTAssertEqual(read("pads.status"), "0\n", read("pads.err"))
            XCTAssertTrue(read("pads.err").contains(setTempo ? " at 140.00 BPM" : "link: 1 peer at 140.00 BPM"),
                          "the player joined the peer: \(read("pads.err"))")
            if setTempo {
                XCTAssertTrue(read("link.out").hasSuffix("\"bpm\":140.000}\n"), "the third peer set the tempo: \(read("link.out"))")
            }
            if read("pads.err").contains(" underrun") { run.disturbed("the player underran") }
            let played: [Played] = try read("pads.out").split(separator: "\n").map { (line: Substring) -> Played in
                try JSONDecoder().decode(Played.self, from: Data(line.utf8))
            }
            XCTAssertEqual(played.map { $0.sent }, times)
            // Keys fed late (the feed's thread kept off the processor for a tenth of a second) arrive together and
            // sound together, as they should, but their onsets cannot be told apart in the recording. (Sent at least
            // 108 ms apart, two keys less than 10 ms apart arrived together.)
            let together = zip(played, played.dropFirst()).filter { $1.at - $0.at < 0.010 }.count
            if together > 0 {
                let late = played.map { $0.at - $0.sent }.max() ?? 0
                run.disturbed("keys were fed together, one " + String(format: "%.1f", late * 1000) + " ms late")
            }
            let samples = try AudioFile.read(dir + "/rec.wav").samples
            let music = Onsets.soundStarts(samples, channels: 2, channel: 0)
            let starts = Onsets.soundStarts(samples, channels: 2, channel: 1)
            XCTAssertEqual(starts.count, 20)
            XCTAssertGreaterThanOrEqual(music.count, 14, "the music's onsets up to the last pad and beyond")
            guard starts.count == 20, played.count == 20, music.count >= 14 else { return }
            // The music ran evenly: a quarter second of music (at x7/6) between its onsets, within 2 ms.
            let steps: [Double] = zip(music, music.dropFirst()).map { (a: Int, b: Int) -> Double in Double(b - a) / 48 }
            let quarter: Double = 250.0 * 6 / 7
            XCTAssertLessThanOrEqual(steps.map { (s: Double) -> Double in abs(s - quarter) }.max() ?? .nan, 2, "the music's onsets came "
                + steps.map { String(format: "%.2f", $0) }.joined(separator: " ") + " ms apart")
            // The music's first onset is the start of playback as heard: each pad sounds the music heard when its
            // key arrived plus the latency reported then (in music, at the session's x7/6), its frame found
            // between the music's onsets on either side (a quarter second of music apart).
            func frame(ofMusic m: Double) -> Double {
                let k = min(max(Int((m / 0.25).rounded(.down)), 0), music.count - 2)
                let f0 = Double(music[k]), f1 = Double(music[k + 1])
                return f0 + (f1 - f0) * (m - Double(k) * 0.25) / 0.25
            }
            let errors: [Double] = zip(played, starts).map { (p: Played, onset: Int) -> Double in
                (Double(onset) - frame(ofMusic: (p.time ?? .nan) + p.latency * 7 / 6)) / 48
            }
            let worst: Double = errors.map { abs($0) }.max() ?? .nan
            // A key that arrives while a block is being rendered misses that block (PadTimingTests).
            let missed = errors.filter { $0 > 1 && $0 <= 25 }
            if !missed.isEmpty {
                run.disturbed("\(missed.count) pad(s) sounded " + missed.map { String(format: "%.3f", $0) }
                    .joined(separator: ", ") + " ms after the clock the key read (it arrived while a block was rendered)")
            }
            // How the sink's frames ran against the system's clock, the music's onsets on it: printed.
            let system: [Double] = (0..<music.count).map { (i: Int) -> Double in Double(i) * 0.25 * 6 / 7 }
            let output: [Double] = music.map { (f: Int) -> Double in Double(f - music[0]) / 48_000 }
            let sink = ClockRate(system: system, output: output)
            print("pads under Link\(setTempo ? " (140 BPM set while waiting)" : ""), attempt \(attempt), errors (ms): "
                + errors.map { String(format: "%.2f", $0) }.joined(separator: " ") + "; the sink's frames against the music: \(sink)")
            for (p, e) in zip(played, errors) { XCTAssertLessThanOrEqual(abs(e), 1, "pad sent at \(p.sent) s") }
            // On the music's timeline each pad is where the music was heard: at the session's 140 BPM, 7/6 of a
            // second of the document for each second of playing (to the frame).
            for p in played {
                guard let time = p.time else {
                    XCTFail("pad sent at \(p.sent) s was not placed on the timeline")
                    continue
                }
                XCTAssertEqual(time, p.at * 7 / 6, accuracy: 0.0005, "pad sent at \(p.sent) s")
            }
            print(String(format: "pads under Link: worst |onset - (heard + reported latency)| %.3f ms over %d pads", worst,
                         played.count))
        }
    }
}

import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// `tempera play --pads --record` through a private PulseAudio server: where the pads land in what the server
/// played, and where the recorded document puts them when it is played back.
final class PadTimingTests: DisturbedRunsTestCase {
    var dir = ""
    var server: PulseTestServer?

    override func setUp() { dir = TestPaths.temporaryDirectory("pad-timing") }
    override func tearDown() {
        server?.stop()
        try? FileManager.default.removeItem(atPath: dir)
    }

    typealias Played = PlayedPad

    /// Runs tempera with `stdin` as its standard input while the server's monitor is recorded. Returns the
    /// recording, the program's standard output, and whether an underrun (a loaded machine) delayed what followed.
    func playRecorded(_ args: [String], stdin: String, name: String) throws
        -> (samples: [Float], stdout: String, underran: Bool) {
        guard FileManager.default.isExecutableFile(atPath: TestPaths.binary) else {
            throw XCTSkip("build tempera first (swift build)")
        }
        let server = try self.server ?? PulseTestServer()
        self.server = server
        let input = dir + "/\(name).in"
        try stdin.write(toFile: input, atomically: true, encoding: .utf8)
        let wav = dir + "/\(name).wav"
        let recorder = try server.record(to: wav)
        usleep(800_000)   // an idle null sink stalls its first writes: let the recording settle first
        let quoted = ([TestPaths.binary] + args).map { "'\($0)'" }.joined(separator: " ")
        let r = Spawn.run("/bin/sh", ["-c", "\(quoted) < '\(input)'"], environment: ["PULSE_SERVER": server.address])
        usleep(300_000)
        PulseTestServer.finish(recorder)
        XCTAssertEqual(r.status, 0, r.stderr)
        return (try AudioFile.read(wav).samples, r.stdout, r.stderr.contains(" underrun"))
    }

    func testPadsLandOnTheirTimePlusTheReportedLatencyAndTheRecordingPlaysThemWhereTheyWereHeard() throws {
        // One loop onset at time 0 (the start of playback as heard), 200-frame blocks, pads on slot 2.
        _ = try Fixture.wav(Fixture.block(frames: 200, level: 0.3), in: dir, name: "loop.wav")
        _ = try Fixture.wav(Fixture.block(frames: 200, level: 0.5), in: dir, name: "pad.wav")
        let doc = Fixture.document(tracks: [[(0, .clip(1))]], slots: [ClipSlot(file: "loop.wav"), ClipSlot(file: "pad.wav")],
                                   span: 3, volume: 0.8)
        let path = dir + "/doc.tempera"
        try DocumentFile.save(doc, to: path)
        // 20 hits on uneven times, each its own velocity.
        let times: [Double] = (0..<20).map { i -> Double in 0.1 + Double(i) * 0.13 + Double(i % 3) * 0.011 }
        let velocities: [Double] = (0..<20).map { i -> Double in 0.3 + Double(i % 7) * 0.1 }
        let stdin = zip(times, velocities).map { "\($0) 2 \($1)" }.joined(separator: "\n") + "\n"
        let out = dir + "/recorded.tempera"

        try runAgainWhenDisturbed("pads", times: 3) { run in
            let attempt = run.attempt
            // (a) Live: each pad sounds where it was sent plus the latency the server reported then.
            let (live, printed, liveUnderran) = try playRecorded(["play", path, "--pads", "--record", out], stdin: stdin,
                                                   name: "live\(attempt)")
            if liveUnderran { run.disturbed("the live take underran") }
            let played = try printed.split(separator: "\n").map { try JSONDecoder().decode(Played.self, from: Data($0.utf8)) }
            XCTAssertEqual(played.count, 20)
            XCTAssertEqual(played.map(\.sent), times)
            // Keys fed late (the feed's thread kept off the processor for a tenth of a second) arrive together and
            // sound together, as they should, but their onsets cannot be told apart in the recording. (Sent at least
            // 108 ms apart, two keys less than 10 ms apart arrived together.)
            let together = zip(played, played.dropFirst()).filter { $1.at - $0.at < 0.010 }.count
            if together > 0 {
                let late = played.map { $0.at - $0.sent }.max() ?? 0
                run.disturbed("keys were fed together, one " + String(format: "%.1f", late * 1000) + " ms late")
            }
            let starts = Onsets.soundStarts(live)
            XCTAssertEqual(starts.count, 21, "sound starts at " + starts.map { String(format: "%.2f", Double($0 - (starts.first ?? 0)) / 48) }
                .joined(separator: " ") + " ms; pads heard at " + played.map { String(format: "%.2f", (($0.time ?? .nan) + $0.latency) * 1000) }
                .joined(separator: " ") + " ms")
            guard starts.count == 21, played.count == 20 else { return }
            let heardStart: Int = starts[0]
            // Each pad sounds its latency after the key, on the output's clock: the music heard when the key
            // arrived (the loop plays once from 0 at x1: seconds of output from the music's first onset) plus the
            // latency reported then. The recording's frames run on the same clock, whatever the system's does.
            XCTAssertEqual(played.map(\.pass), Array(repeating: 0, count: 20))
            // A key that arrives while a block is being rendered (the audio thread kept off the processor in the
            // middle of it, on a loaded machine) misses that block: its pad sounds one block (5 ms) after the clock
            // the key read says, so the latency reported for it is one block short.
            let errors = zip(played, starts.dropFirst()).map { p, onset in
                Double(onset - heardStart) / 48 - ((p.time ?? .nan) + p.latency) * 1000
            }
            let missed = errors.filter { $0 > 1 && $0 <= 25 }
            if !missed.isEmpty {
                run.disturbed("\(missed.count) pad(s) sounded " + missed.map { String(format: "%.3f", $0) }
                    .joined(separator: ", ") + " ms after the clock the key read (it arrived while a block was rendered)")
            }
            var worst = 0.0, keyToSound: [Double] = []
            for (p, onset) in zip(played, starts.dropFirst()) {
                let onsetMs = Double(onset - heardStart) / 48
                let error = onsetMs - ((p.time ?? .nan) + p.latency) * 1000
                worst = max(worst, abs(error))
                XCTAssertLessThanOrEqual(abs(error), 1, "pad sent at \(p.sent) s")
                keyToSound.append(onsetMs - (p.time ?? .nan) * 1000)
                // Velocity is loudness: the block's level times velocity times the volume.
                let peak = (onset..<(onset + 200)).map { abs(live[2 * $0]) }.max()!
                XCTAssertEqual(Double(peak), 0.5 * p.velocity * 0.8, accuracy: 1e-4)
            }
            // And the output's clock against the system's: each key arrived when its music was heard, the two
            // clocks on one line (the sink's rate is its own: printed, and bounded at 0.2 %).
            let rate = ClockRate(system: played.map(\.at), output: played.map { $0.time ?? .nan })
            print(String(format: "pads: worst |onset - (heard + reported latency)| %.3f ms; key to sound %.2f-%.2f ms "
                + "(mean %.2f); reported latency %.2f-%.2f ms; ", worst, keyToSound.min()!, keyToSound.max()!,
                keyToSound.reduce(0, +) / Double(keyToSound.count), played.map(\.latency).min()! * 1000,
                played.map(\.latency).max()! * 1000) + "\(rate)")
            // A key the loaded machine read late (its thread kept off the processor a millisecond) is heard
            // where the output's clock said at the read, off the line through the others.
            if rate.worstResidual > 0.001 && worst <= 1 {
                run.disturbed(String(format: "a key was read %.3f ms off the clocks' line", rate.worstResidual * 1000))
            }
            XCTAssertLessThanOrEqual(abs(rate.offset), 0.001, "the heard start")
            XCTAssertLessThanOrEqual(rate.worstResidual, 0.001, "every key heard where the system's clock put it")
            XCTAssertLessThanOrEqual(abs(rate.drift), 0.002, "the output's clock runs at its rate")

            // The take: 20 markers on the slot's own track, at the music heard when each key arrived, velocity as amp.
            // No track held slot 2, so the take started one named after the slot.
            let recorded = try DocumentFile.load(out)
            let track = try XCTUnwrap(recorded.tracks.last)
            XCTAssertEqual(track.name, recorded.slot(2).name.isEmpty ? "slot 2" : recorded.slot(2).name)
            let markers = track.markers.filter { $0.content == .clip(2) }
            XCTAssertEqual(markers.map(\.time), played.compactMap(\.time))
            XCTAssertEqual(markers.map(\.amp), played.map(\.velocity))

            // (b) Played back, each hit sounds on the frame that was heard when its key arrived.
            let (again, _, againUnderran) = try playRecorded(["play", out], stdin: "", name: "playback\(attempt)")
            if againUnderran { run.disturbed("the playback underran") }
            let replayed = Onsets.soundStarts(again)
            XCTAssertEqual(replayed.count, 21)
            guard replayed.count == 21 else { return }
            var worstReplay = 0.0
            for (p, onset) in zip(played, replayed.dropFirst()) {
                let onsetMs = Double(onset - replayed[0]) / 48
                let error = onsetMs - (p.time ?? .nan) * 1000
                worstReplay = max(worstReplay, abs(error))
                XCTAssertLessThanOrEqual(abs(error), 1, "pad sent at \(p.sent) s")
            }
            print(String(format: "recorded take played back: worst |onset - heard time| %.3f ms (run %d)", worstReplay, attempt))
        }
    }

    func testPadsWhileTheSongPlaysAreRecordedInTheRegionOfTheSectionHeardAndPlayBackWhereTheyWereHeard() throws {
        // A [0,0.5) x2 at x1 (1 s), B [1,1.5) x3 at x2 (0.75 s), C [0.5,1) x1 at x0.5 (1 s): 2.75 s a pass of the
        // song, played twice. Clip 1 at time 0 marks each pass of A; the pads play slot 2.
        _ = try Fixture.wav(Fixture.block(frames: 200, level: 0.3), in: dir, name: "mark.wav")
        _ = try Fixture.wav(Fixture.block(frames: 200, level: 0.5), in: dir, name: "pad.wav")
        var doc = Fixture.document(tracks: [[(0, .clip(1))]], slots: [ClipSlot(file: "mark.wav"), ClipSlot(file: "pad.wav")],
                                   span: 1.5, volume: 0.8)
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 0.5, repeats: 2, tempo: 1),
                                   Song.Section(name: "B", start: 1, end: 1.5, repeats: 3, tempo: 2),
                                   Song.Section(name: "C", start: 0.5, end: 1, repeats: 1, tempo: 0.5)])
        let timing = SongTiming(song: doc.song, tempo: 1)
        let path = dir + "/song.tempera"
        try DocumentFile.save(doc, to: path)
        // Every section, B's three repeats, the second pass of the song, and two hits 8 ms before a section's end
        // (B's, the song's): sent, the next section is already rendered, but the one ending is still heard.
        let times: [Double] = [0.2, 0.8, 1.1, 1.4, 1.62, 1.742, 2.3, 2.742, 3.1, 4.2, 5.35]
        let expected: [SongTiming.Place] = [
            .init(songPass: 0, section: 0, pass: 0, time: 0.2), .init(songPass: 0, section: 0, pass: 1, time: 0.3),
            .init(songPass: 0, section: 1, pass: 0, time: 1.2), .init(songPass: 0, section: 1, pass: 1, time: 1.3),
            .init(songPass: 0, section: 1, pass: 2, time: 1.24), .init(songPass: 0, section: 1, pass: 2, time: 1.484),
            .init(songPass: 0, section: 2, pass: 0, time: 0.775), .init(songPass: 0, section: 2, pass: 0, time: 0.996),
            .init(songPass: 1, section: 0, pass: 0, time: 0.35), .init(songPass: 1, section: 1, pass: 1, time: 1.4),
            .init(songPass: 1, section: 2, pass: 0, time: 0.925)]
        let stdin = times.map { "\($0) 2 0.7" }.joined(separator: "\n") + "\n"
        let out = dir + "/song-recorded.tempera"

        // The song plays 5.5 s twice over (live, then back): a loaded machine disturbs it (an underrun, a key fed
        // late) more often than the loop's 3 s, so a run that failed disturbed is made again up to five times.
        try runAgainWhenDisturbed("song pads", times: 5) { run in
            let attempt = run.attempt
            let (_, printed, liveUnderran) = try playRecorded(["play", path, "--song", "--loops", "2", "--pads", "--record", out],
                                                          stdin: stdin, name: "song-live\(attempt)")
            if liveUnderran { run.disturbed("the live take underran") }
            let played = try printed.split(separator: "\n").map { try JSONDecoder().decode(Played.self, from: Data($0.utf8)) }
            XCTAssertEqual(played.map(\.sent), times)
            guard played.count == times.count else { return XCTFail(printed) }
            // The song time each hit was heard at, on the output's clock: its song pass, section, pass and time.
            func heardSong(_ p: Played) -> Double {
                guard let loop = p.loop, let section = p.section, let pass = p.pass, let time = p.time,
                      timing.sections.indices.contains(section - 1) else { return .nan }
                return timing.time(songPass: loop, section: section - 1, pass: pass,
                                   time: time - timing.sections[section - 1].start)
            }
            // A key fed late (the feed's thread kept off the processor) is heard elsewhere than its line says (a hit
            // sent 8 ms before a section's end, in the next section): such a key is held to the place of its arrival
            // alone, and says so.
            let late = played.map { $0.at - $0.sent }.max()!
            if late > 0.005 { run.disturbed(String(format: "a key was fed %.3f ms late", late * 1000)) }
            // The output's clock against the system's: the keys' arrivals and the song heard then on one line (the
            // sink's rate is its own: printed, bounded at 0.2 %).
            let rate = ClockRate(system: played.map(\.at), output: played.map(heardSong))
            print("song pads: run \(attempt): \(rate)")
            XCTAssertLessThanOrEqual(abs(rate.offset), 0.001, "the heard start")
            XCTAssertLessThanOrEqual(abs(rate.drift), 0.002, "the output's clock runs at its rate")
            // Each hit is placed where the song was when it was heard (its arrival, from the heard start, on the
            // output's clock): its song pass, section and pass, and its time in that region within 1 ms of play;
            // for a key on time, the same song pass, section and pass as its sent time.
            var worst = 0.0
            for (p, want) in zip(played, expected) {
                let heard = timing.place(at: rate.offset + (1 + rate.drift) * p.at, looping: true)!
                XCTAssertEqual(p.loop, heard.songPass, "pad sent at \(p.sent) s")
                XCTAssertEqual(p.section, heard.section + 1, "pad sent at \(p.sent) s")
                XCTAssertEqual(p.pass, heard.pass, "pad sent at \(p.sent) s")
                let tempo = timing.sections[heard.section].tempo
                let error = abs((p.time ?? .nan) - heard.time) / tempo * 1000
                worst = max(worst, error)
                XCTAssertLessThanOrEqual(error, 1, "pad sent at \(p.sent) s")
                guard p.at - p.sent <= 0.005 else {
                    print(String(format: "song pads: the key sent at %.3f s arrived %.3f ms late: held to its arrival's place",
                                 p.sent, (p.at - p.sent) * 1000))
                    continue
                }
                XCTAssertEqual(p.loop, want.songPass, "pad sent at \(p.sent) s")
                XCTAssertEqual(p.section, want.section + 1, "pad sent at \(p.sent) s")
                XCTAssertEqual(p.pass, want.pass, "pad sent at \(p.sent) s")
                // From its line's time (on the system's clock: on the output's, the drift since the start more):
                // the key up to 5 ms late, heard within 1 ms of that.
                XCTAssertEqual(p.time ?? .nan, want.time, accuracy: (0.006 + abs(rate.drift) * p.sent) * tempo,
                               "pad sent at \(p.sent) s")
            }
            print(String(format: "song pads: worst |recorded - heard| %.3f ms of play", worst))
            // The take: one marker a hit, on the slot's own track (no track held clip 2: one named after the slot).
            let recorded = try DocumentFile.load(out)
            let track = try XCTUnwrap(recorded.tracks.last)
            XCTAssertEqual(track.name, recorded.slot(2).name.isEmpty ? "slot 2" : recorded.slot(2).name)
            let markers = track.markers.filter { $0.content == .clip(2) }
            XCTAssertEqual(markers.map(\.time).sorted(), played.compactMap(\.time).sorted())
            XCTAssertEqual(markers.map(\.amp), Array(repeating: 0.7, count: times.count))

            // Played back as the song, twice: every onset on its frame, and each hit, in the pass it was recorded in,
            // where it was heard live (within 1 ms).
            let (again, _, againUnderran) = try playRecorded(["play", out, "--song", "--loops", "2"], stdin: "",
                                                             name: "song-playback\(attempt)")
            if againUnderran { run.disturbed("the playback underran") }
            var song = recorded
            song.song.on = true
            let schedule = SongSchedule(document: song, sampleRate: 48_000)
            let onsets = (0..<2).flatMap { schedule.onsets(songPass: $0) }.sorted { $0.frame < $1.frame }
            let starts = Onsets.soundStarts(again)
            XCTAssertEqual(starts.count, onsets.count)
            guard starts.count == onsets.count else { return }
            let replayErrors = zip(onsets, starts).map { o, s in abs(Double((s - starts[0]) - Int(o.frame)) / 48) }
            for (o, e) in zip(onsets, replayErrors) { XCTAssertLessThanOrEqual(e, 1, "onset at \(o.time) s") }
            var worstReplay = 0.0
            for p in played {
                let own = onsets.first { $0.clip == 2 && $0.loop == p.loop && $0.section == p.section && $0.pass == p.pass
                    && abs($0.time - heardSong(p)) < 0.005 }
                guard let own else { XCTFail("no onset of the hit sent at \(p.sent) s"); continue }
                let i = onsets.firstIndex(of: own)!
                let error = abs(Double(starts[i] - starts[0]) / 48 - heardSong(p) * 1000)
                worstReplay = max(worstReplay, error)
                XCTAssertLessThanOrEqual(error, 1, "pad sent at \(p.sent) s")
            }
            print(String(format: "song take played back: worst |onset - heard time| %.3f ms (run %d)", worstReplay, attempt))
        }
    }

    func testBadPadLinesAreNamedAndSkippedAndRecordNeedsPads() throws {
        guard FileManager.default.isExecutableFile(atPath: TestPaths.binary) else { throw XCTSkip("build tempera first") }
        let path = dir + "/doc.tempera"
        try DocumentFile.save(Fixture.document(tracks: [[]], slots: []), to: path)
        let r = Spawn.run(TestPaths.binary, ["play", path, "--record", dir + "/out.tempera"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "tempera: --record needs --pads (the pads to record come from standard input)\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.tempera"))
    }
}

import Foundation
import TemperaAudio
import TemperaCore

/// `tempera play --pads [--record OUT]`: plays pad events from standard input while the document plays, each at
/// its time from the start of playback as heard, prints what each pad did, and records them into the document.
struct PadPlayer {
    let engine: AudioEngine
    /// The document as its file holds it (what a recording is added to).
    let document: Document
    let song: Bool
    let click: Bool
    /// Where the recorded document goes; nil: nothing is recorded.
    let record: String?
    /// Called as the player waits between pads (following an Ableton Link session's peers, say).
    var tick: (() -> Void)?

    /// The document as the engine plays it: the command line's song and click choices.
    func played(_ doc: Document) -> Document {
        var d = doc
        d.song.on = song
        d.transport.click = click
        return d
    }

    func run() throws {
        let feed = PadFeed()
        feed.start()
        let session = Session(document: document)
        if record != nil {
            try session.run(.recordArm(true))
            session.beginTake()
        }
        let start = heardStart()
        var interrupted = false
        while true {
            if playInterrupted.load(ordering: .relaxed) {
                interrupted = true
                engine.pause()
                break
            }
            if case .unavailable(let why) = engine.status {
                engine.stop()
                throw CommandLineFailure.report("tempera: \(why)")
            }
            let now = MonotonicClock.nanos()
            let t = (Double(now) - Double(start)) / 1e9
            if let e = feed.take(dueBy: t) {
                let hit = engine.hitPad(slot: e.slot, velocity: e.velocity, arrival: MonotonicClock.nanos())
                try recordAndReport(hit, event: e, start: start, session: session)
                continue
            }
            tick?()
            if let next = feed.nextTime {
                wait(until: start &+ UInt64(max(0, next * 1e9)))
                continue
            }
            if feed.finished && engine.isFinished { break }
            usleep(2_000)
        }
        // Let the last block reach the speakers.
        if !interrupted, case .running(let ms) = engine.status { usleep(useconds_t(min(ms, 500) * 1000) + 20_000) }
        if engine.underruns > 0 { warn("\(engine.underruns) underruns") }
        engine.stop()
        if let record {
            session.endTake()
            do {
                try DocumentFile.save(session.document, to: record)
            } catch {
                throw CommandLineFailure.report("tempera: cannot write \(record): \(error)")
            }
        }
        if interrupted { Foundation.exit(130) }
        if feed.errors > 0 { throw CommandLineFailure.report("tempera: \(feed.errors) bad line(s) on standard input were skipped") }
    }

    /// When the first music of this playing is heard, on `MonotonicClock` (after the count-in, or the wait for a Link
    /// session's bar): the time the events' seconds count from. The median over the first stamps, so one early
    /// estimate does not decide it.
    func heardStart() -> UInt64 {
        var seen: [UInt64] = []
        var lastStamp: UInt64 = 0
        let give = MonotonicClock.nanos() + 30_000_000_000
        while seen.count < 8 && MonotonicClock.nanos() < give {
            let c = engine.playheadClock
            if c.playing && c.nanos != lastStamp {
                lastStamp = c.nanos
                // The song counts across its sections (the section's music starts again at each).
                seen.append(song ? c.nanos(whenSongHeard: c.songPlayStart) : c.nanos(whenHeard: c.playStart))
            }
            if engine.isFinished && seen.isEmpty { return MonotonicClock.nanos() }
            // Following a session, its tempo must reach the engine while the start waits for the session's bar.
            tick?()
            usleep(1_000)
        }
        if seen.isEmpty { return MonotonicClock.nanos() }
        return seen.sorted()[seen.count / 2]
    }

    /// Sleeps until 2 ms before `t`, then spins to it: a sleeping thread wakes late by a scheduler tick.
    func wait(until t: UInt64) {
        let now = MonotonicClock.nanos()
        if t > now + 2_000_000 {
            usleep(useconds_t(min((t - now - 2_000_000) / 1_000, 20_000)))
            return
        }
        while MonotonicClock.nanos() < t {}
    }

    /// Records a hit heard while playing (with --record) and prints one JSON line about it.
    func recordAndReport(_ hit: PadHit, event e: PadFeed.Event, start: UInt64, session: Session) throws {
        var line = "{\"slot\":\(e.slot),\"velocity\":\(DocumentFile.number(e.velocity))"
        line += ",\"sent\":\(DocumentFile.number(e.seconds))"
        line += ",\"at\":\(DocumentFile.number((Double(hit.arrival) - Double(start)) / 1e9))"
        line += ",\"latency\":\(DocumentFile.number(hit.latency))"
        if let place = hit.place {
            line += ",\"loop\":\(place.songPass),\"section\":\(place.section + 1)"
        }
        if let (pass, time) = hit.timeline {
            line += ",\"pass\":\(pass),\"time\":\(DocumentFile.number(time))"
            if record != nil && session.takeOpen {
                try session.run(.recordTake([RecordedHit(time: time, slot: e.slot, velocity: e.velocity)]))
                // Heard from the next pass: passes overdub.
                engine.update(document: played(session.document))
            }
        }
        CommandLineFailure.write(line + "}\n", to: 1)
    }
}

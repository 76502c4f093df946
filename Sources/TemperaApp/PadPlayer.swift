import Foundation
import TemperaCore
import TemperaPlayback

/// `tempera play --pads [--record OUT]`: plays pad events from a feed (standard input) while the document plays,
/// each at its time from the start of playback as heard, prints what each pad did, and records them into the
/// document. A recorded hit is heard from the next pass: the controller republishes the recording.
public struct PadPlayer {
    /// The controller the document was first published through (its player plays).
    public let controller: PlaybackController
    /// The document as its file holds it (what a recording is added to).
    public let document: Document
    public let song: Bool
    public let click: Bool
    /// Where the recorded document goes; nil: nothing is recorded.
    public let record: String?
    /// Called as the player waits between pads (following an Ableton Link session's peers, say).
    public var tick: (() -> Void)?
    /// Asked between pads: true once playing should end (an interrupt).
    public var interrupted: () -> Bool = { false }
    /// Each pad's JSON line (standard output).
    public var printLine: (String) -> Void
    /// One line of trouble that does not stop playing (standard error).
    public var warn: (String) -> Void

    /// How a run ended.
    public enum Outcome: Equatable {
        /// The feed ended and the music rang out.
        case finished
        /// Interrupted: the music paused where it was (what was recorded is saved).
        case interrupted
    }

    /// Why a run could not go on, in one line.
    public struct Failure: Error, Equatable {
        public var message: String
        public init(message: String) { self.message = message }
    }

    public init(controller: PlaybackController, document: Document, song: Bool, click: Bool, record: String?,
                printLine: @escaping (String) -> Void, warn: @escaping (String) -> Void) {
        self.controller = controller
        self.document = document
        self.song = song
        self.click = click
        self.record = record
        self.printLine = printLine
        self.warn = warn
    }

    private var player: any Player { controller.player! }

    /// The document as the player plays it: the command line's song and click choices.
    public func played(_ doc: Document) -> Document {
        var d = doc
        d.song.on = song
        d.transport.click = click
        return d
    }

    /// Plays the feed's pads to its end. Throws `Failure` when the output goes away, or the recording cannot be
    /// written; bad lines of the feed are counted and end it with a `Failure` too, once all else played.
    public func run(feed: PadFeed) throws -> Outcome {
        let session = Session(document: document)
        let generation = controller.version?.generation ?? 0
        if record != nil {
            try session.run(.recordArm(true))
            session.beginTake()
        }
        let start = heardStart()
        let droppedBefore = player.droppedMidiHits
        var wasInterrupted = false
        while true {
            if interrupted() {
                wasInterrupted = true
                player.pause()
                break
            }
            if case .unavailable(let why) = player.state.output {
                player.stop()
                throw Failure(message: why)
            }
            let now = MonotonicClock.nanos()
            let t = (Double(now) - Double(start)) / 1e9
            if let e = feed.take(dueBy: t) {
                let hit = player.hitPad(slot: e.slot, velocity: e.velocity, arrival: MonotonicClock.nanos())
                try recordAndReport(hit, sent: e.seconds, start: start, session: session, generation: generation)
                continue
            }
            // MIDI in's note-ons sounded on their frames already: recorded and reported as the feed's pads are.
            for hit in player.takeMidiHits() {
                try recordAndReport(hit, sent: nil, start: start, session: session, generation: generation)
            }
            tick?()
            if let next = feed.nextTime {
                wait(until: start &+ UInt64(max(0, next * 1e9)))
                continue
            }
            if feed.finished && player.state.isFinished { break }
            usleep(2_000)
        }
        // Let the last block reach the speakers.
        let state = player.state
        if !wasInterrupted, case .running(let ms) = state.output { usleep(useconds_t(min(ms, 500) * 1000) + 20_000) }
        if state.underruns > 0 { warn("\(state.underruns) underruns") }
        for hit in player.takeMidiHits() {
            try recordAndReport(hit, sent: nil, start: start, session: session, generation: generation)
        }
        let lost = player.droppedMidiHits - droppedBefore
        if record != nil && lost > 0 {
            warn("the take dropped \(lost) MIDI note\(lost == 1 ? "" : "s") (they came faster than they could be kept)")
        }
        player.stop()
        if let record {
            session.endTake()
            do {
                try DocumentFile.save(session.document, to: record)
            } catch {
                throw Failure(message: "cannot write \(record): \(error)")
            }
        }
        if wasInterrupted { return .interrupted }
        if feed.errors > 0 { throw Failure(message: "\(feed.errors) bad line(s) on standard input were skipped") }
        return .finished
    }

    /// When the first music of this playing is heard, on `MonotonicClock` (after the count-in, or the wait for a Link
    /// session's bar): the time the events' seconds count from. The median over the first stamps, so one early
    /// estimate does not decide it.
    func heardStart() -> UInt64 {
        var seen: [UInt64] = []
        var lastStamp: UInt64 = 0
        let give = MonotonicClock.nanos() + 30_000_000_000
        while seen.count < 8 && MonotonicClock.nanos() < give {
            let c = player.playheadClock
            if c.playing && c.nanos != lastStamp {
                lastStamp = c.nanos
                // The song counts across its sections (the section's music starts again at each).
                seen.append(song ? c.nanos(whenSongHeard: c.songPlayStart) : c.nanos(whenHeard: c.playStart))
            }
            if player.state.isFinished && seen.isEmpty { return MonotonicClock.nanos() }
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

    /// Records a hit heard while playing (with a record file) and prints one JSON line about it: a pad of the feed
    /// (`sent`: its time on the feed) or a note MIDI in played (its note).
    func recordAndReport(_ hit: PadHit, sent: Double?, start: UInt64, session: Session, generation: Int) throws {
        var line = "{\"slot\":\(hit.slot),\"velocity\":\(DocumentFile.number(hit.velocity))"
        if let sent { line += ",\"sent\":\(DocumentFile.number(sent))" }
        if let note = hit.midiNote { line += ",\"midi\":\(note)" }
        line += ",\"at\":\(DocumentFile.number((Double(hit.arrival) - Double(start)) / 1e9))"
        line += ",\"latency\":\(DocumentFile.number(hit.latency))"
        if let place = hit.place {
            line += ",\"loop\":\(place.songPass),\"section\":\(place.section + 1)"
        }
        if let (pass, time) = hit.timeline {
            line += ",\"pass\":\(pass),\"time\":\(DocumentFile.number(time))"
            if record != nil && session.takeOpen {
                try session.run(.recordTake([RecordedHit(time: time, slot: hit.slot, velocity: hit.velocity)]))
                // Heard from the next pass: passes overdub. The slots did not change, so nothing loads.
                _ = controller.publish(PlaybackController.Version(generation: generation, revision: session.revision),
                                       baseDirectory: nil, document: { played(session.document) })
            }
        }
        printLine(line + "}\n")
    }
}

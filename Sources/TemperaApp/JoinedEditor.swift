import Foundation
import Synchronization
import TemperaCore
import TemperaNet
import TemperaPlayback
import TemperaTerminal

/// Events from the participant's queue, handed to the editor's thread.
final class SharedInbox: Sendable {
    private let events = Mutex<[Participant.Event]>([])

    func push(_ e: Participant.Event) {
        events.withLock { $0.append(e) }
    }

    func drain() -> [Participant.Event] {
        events.withLock { e in
            defer { e = [] }
            return e
        }
    }
}

/// The editor on a shared document: the session's document is the host's (every change arrives as a
/// delta), commands that change it go to the host, and the cursor and selection stay here, reported to the
/// host as they move.
///
/// - Warning: main (editor) thread only.
public final class JoinedEditor {
    public let participant: Participant
    public let session: Session
    let inbox = SharedInbox()
    /// Signalled with each event, so the editor draws it at once rather than at its next look.
    let wakeup = Wakeup()
    public private(set) var dispatcher: Dispatcher!
    private var lastSentView: Session.View?
    private var flashUntil = 0.0
    private var reconnectAt: Double?
    /// Set when this editor is also the host: the address it listens on, said at the start.
    public var hosting: String?
    /// Said (as an error) when the editor starts, and again instead of the hosting line: what the host found
    /// wrong at start (a damaged journal, and what became of it).
    public var startProblem: String?
    /// The shared transport the engine follows, and how far the music heard here was from where the host's clock says it should be (seconds, recent looks).
    private var following: SharedTransport?
    /// A song started together: the host's moment its song time 0 is heard (its pass 0's start, host seconds), as
    /// this player aimed it. Nil for the loop, and for a song that began while playing (switched on, or
    /// started over here after a stall), whose song time no one shares.
    private var songZero: Double?
    /// The song shift (`PlayheadClock.songShift`) at the last look: a new one waits for the output to play it.
    private var songShift = 0.0
    private var errors: [Double] = []
    private var lastCorrection = 0.0
    /// Looks wait until a nudge has reached the output.
    private var settledAt = 0.0
    /// How far ahead of a start a player must know of it (the output renders tens of milliseconds ahead).
    static let startMargin = 0.06
    /// How often the phase is corrected, seconds, and the least error that is (the median of a second's looks
    /// varies by a few hundredths of a millisecond).
    static let correctEvery = 1.0
    static let tolerance = 0.0001
    /// A difference corrected at once, seconds.
    static let slip = 0.0005
    /// How long a nudge takes to be heard in the playhead clock, seconds.
    static let settle = 0.06
    /// An error beyond this is not nudged away but the player starts again at the next pass (a stall of the
    /// output of more than this, a stopped engine); below it the engine moves, playing what it skips at once.
    static let rejoinBeyond = 0.5
    /// A playhead clock stamped longer ago than this is not trusted for a correction.
    static let staleNanos: UInt64 = 100_000_000
    /// How long another participant's change stays highlighted, seconds.
    static let flashSeconds = 0.6
    /// The latest start a player is given, on the monotonic clock (seconds): 30 years.
    static let farthestStart = 1e9
    /// How often the editor looks when nothing arrives (reconnecting, a flash fading), milliseconds.
    static let lookMs = 100

    public init(participant: Participant) throws {
        self.participant = participant
        let inbox = self.inbox, wakeup = self.wakeup
        participant.onEvent = {
            inbox.push($0)
            wakeup.signal()
        }
        try participant.connect()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !participant.sync({ $0.connected && $0.seq >= 0 }) {
            if case .notice(let n)? = inbox.drain().last(where: { if case .notice = $0 { return true } else { return false } }) {
                throw NetError(n)
            }
            usleep(2000)
        }
        guard participant.sync({ $0.connected && $0.seq >= 0 }) else { throw NetError("the host did not answer") }
        session = Session(document: participant.sync { $0.document })
        session.remote = { [participant, unowned session] command in
            participant.send(command.text, view: session.view)
            return nil
        }
    }

    /// Applies what arrived; true when the screen should be drawn again.
    public func poll() -> Bool {
        var changed = false
        let now = monotonicSeconds()
        let me = participant.sync { $0.givenName } ?? participant.name
        for event in inbox.drain() {
            changed = true
            switch event {
            case .snapshot(let document):
                session.adopt(document)
            case .changed(let delta):
                do {
                    try session.apply(delta.change)
                } catch {
                    session.adopt(participant.sync { $0.document })
                }
                if delta.by != me {
                    dispatcher.view.flashed = Set(delta.change.markers.flatMap { $0.put.map(\.id) })
                    flashUntil = now + JoinedEditor.flashSeconds
                }
            case .answered(_, let command, let message, let error, let view):
                if let error {
                    dispatcher.say("\(command): \(error)", error: true)
                } else if let message {
                    dispatcher.say(message)
                }
                // A command that moved the cursor or selection (a stamp, a paste) leaves them where the host
                // put them, unless newer commands are on their way.
                if let view, participant.sync({ $0.unanswered.isEmpty }) {
                    var v = view
                    v.random = session.random
                    session.view = v
                    lastSentView = session.view
                }
            case .presence(let people):
                let others = people.filter { $0.name != me }
                dispatcher.view.others = others.enumerated().map { k, p in
                    Collaborator(name: p.name, cursor: p.cursor, track: p.track,
                                 role: Collaborator.roles[k % Collaborator.roles.count])
                }
                dispatcher.view.sharedWith = others.map(\.name)
            case .joined(_, let host):
                if let problem = startProblem {
                    dispatcher.say(problem, error: true)
                    startProblem = nil
                } else {
                    dispatcher.say(hosting.map { "sharing on \($0): others join with tempera join" } ?? "joined \(host)'s document")
                }
                reconnectAt = nil
                lastSentView = nil
            case .notice(let text):
                dispatcher.say(text, error: true)
            case .unreachable(let seconds):
                dispatcher.say("host unreachable, \(seconds) s — edits queued", error: true)
            case .reachable:
                dispatcher.say("host reachable again")
            case .transport(let t):
                follow(t)
            case .disconnected:
                dispatcher.say("connection lost: commands wait and are sent on reconnecting", error: true)
                dispatcher.view.others = []
                reconnectAt = now + 1
            }
        }
        if let at = reconnectAt, now >= at {
            reconnectAt = now + 2
            try? participant.connect()
        }
        if !dispatcher.view.flashed.isEmpty, now >= flashUntil {
            dispatcher.view.flashed = []
            changed = true
        }
        correctPhase(now: now)
        let view = session.view
        if participant.sync({ $0.connected }), lastSentView.map({ !JoinedEditor.same($0, view) }) ?? true {
            participant.send(view: view)
            lastSentView = view
        }
        return changed
    }

    /// The host started, stopped or re-paced the shared transport.
    private func follow(_ t: SharedTransport) {
        guard let player = dispatcher.player else { return }
        guard t.playing else {
            following = nil
            if player.isPlaying { player.pause() }
            return
        }
        if let f = following, f.start == t.start {
            // The same playing, at a new pace: the engine took the change with the document; the corrections
            // follow the new anchor.
            following = t
            errors = []
            if t.rate > 0 { songZero = nil }
            return
        }
        start(t, player)
    }

    /// Starts the engine on the host's moment: pass 0 is heard at the host's `start`; a player that comes in
    /// late (or was thrown off) joins at the next pass's start, which the engine finds.
    private func start(_ t: SharedTransport, _ player: any Player) {
        let zero = t.rate > 0 ? t.at - t.music / t.rate : max(t.at, participant.hostNow())
        following = t
        errors = []
        songZero = t.rate > 0 ? nil : zero
        songShift = 0
        // The transport's numbers are within the limits, but a start computed from them may still be far off:
        // it is kept to the next 30 years rather than trap as nanoseconds.
        let local = participant.local(hostTime: zero)
        let seconds = local.isFinite ? min(max(0, local), JoinedEditor.farthestStart) : 0
        player.play(heardAtNanos: UInt64(seconds * 1e9), loops: 0)
    }

    /// Keeps the music heard here where the host's clock says it is: collects the difference at each look (about
    /// 100 a second while playing) and nudges the engine by their median, once a second for small differences
    /// and at once (from the last three looks) for a slip of more than `slip`, as an underrun makes. The loop
    /// compares its music with the host's; a song, whose sections have tempos of their own, compares its song
    /// time (seconds of output since its start, less what edits and jumps moved it by) with the host's seconds
    /// since the common start.
    private func correctPhase(now: Double) {
        guard let t = following, t.rate > 0 || songZero != nil, let player = dispatcher.player, player.isPlaying else {
            return
        }
        let clock = player.playheadClock
        let nanos = MonotonicClock.nanos()
        if clock.songShift != songShift {
            // An edit of the song's timing or a jump moved the song time: what the output still plays was
            // rendered before, so looks wait until the moved time is heard.
            songShift = clock.songShift
            errors = []
            settledAt = now + JoinedEditor.settle + clock.latency
            return
        }
        // A stamp older than a few blocks means the output stalled: what it says is not what is heard.
        guard clock.playing, nanos < clock.nanos + JoinedEditor.staleNanos, now >= settledAt else { return }
        let hostNow = Double(nanos) / 1e9 + (participant.sync { $0.clockOffset } ?? 0)
        let error: Double
        if let zero = songZero, t.rate == 0 {
            let heard = clock.heardSong(atNanos: nanos)
            guard heard > clock.songPlayStart else { return }
            error = heard - clock.songShift - (hostNow - zero)
            if abs(error) > JoinedEditor.rejoinBeyond {
                // The output stalled for longer than a nudge should skip: the song goes on from where it is here,
                // on its own time (starting it again would lose the section it is in).
                songZero = nil
                return
            }
        } else {
            let heard = clock.heard(atNanos: nanos)
            guard heard > clock.playStart else { return }
            error = (heard - t.music(atHost: hostNow)) / t.rate
            if abs(error) > JoinedEditor.rejoinBeyond {
                start(t, player)
                return
            }
        }
        errors.append(error)
        var correction: Double?
        if errors.count >= 3 {
            let recent = errors.suffix(3).sorted()
            let m = recent[1]
            if abs(m) > JoinedEditor.slip { correction = m }
        }
        if correction == nil, now - lastCorrection >= JoinedEditor.correctEvery, errors.count >= 5 {
            let m = errors.sorted()[errors.count / 2]
            if abs(m) > JoinedEditor.tolerance { correction = m }
            lastCorrection = now
            errors = []
        }
        guard let correction else { return }
        player.nudge(seconds: correction)
        errors = []
        lastCorrection = now
        settledAt = now + JoinedEditor.settle
    }

    static func same(_ a: Session.View, _ b: Session.View) -> Bool {
        a.cursor == b.cursor && a.currentTrack == b.currentTrack && a.selection == b.selection && a.clipMode == b.clipMode
            && a.snap == b.snap && a.chosenClip == b.chosenClip
    }

    /// The editor on `screen`, playing through `player` (started, and aimed: see `AudioEngine.aimed`), writing
    /// `:render` and `:export` with `offline`.
    public func makeEditor(screen: Screen, player: (any Player)?, offline: (any OfflineRendering)?, keyMap: KeyMap,
                           paths: ConfigPaths) -> Editor {
        dispatcher = Dispatcher(session: session, keyMap: keyMap, player: player, offline: offline, paths: paths)
        dispatcher.sharedPlay = { [participant] on in participant.play(on) }
        dispatcher.view.sharedWith = []
        if let problem = startProblem { dispatcher.say(problem, error: true) }
        let editor = Editor(screen: screen, dispatcher: dispatcher)
        editor.poll = { [unowned self] in self.poll() }
        editor.pollInterval = JoinedEditor.lookMs
        return editor
    }

    /// Runs the editor in the terminal until the user quits, then leaves the shared document.
    public func run(player: any Player, offline: any OfflineRendering, keyMap: KeyMap, theme: Theme,
                    paths: ConfigPaths) throws {
        let screen = try CursesScreen(theme: theme)
        screen.wakeup = wakeup
        let editor = makeEditor(screen: screen, player: player, offline: offline, keyMap: keyMap, paths: paths)
        dispatcher.commandHistory = CommandHistory.load(paths: paths)
        editor.loadsInBackground = true
        editor.run()
        screen.close()
        dispatcher.commandHistory.save(paths: paths)
        participant.cut()
    }
}

/// Made and used on one thread (the editor's): the compiler refuses to let it cross to another (a `@Sendable`
/// closure, a queue, a thread, a task), and nothing may declare it `Sendable` later.
@available(*, unavailable)
extension JoinedEditor: Sendable {}

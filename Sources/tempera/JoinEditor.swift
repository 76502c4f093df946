import Foundation
import TemperaAudio
import TemperaCore
import TemperaNet
import TemperaTerminal

/// Events from the participant's queue, handed to the editor's thread.
final class SharedInbox: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [Participant.Event] = []

    func push(_ e: Participant.Event) {
        lock.lock()
        events.append(e)
        lock.unlock()
    }

    func drain() -> [Participant.Event] {
        lock.lock()
        defer { lock.unlock() }
        let out = events
        events = []
        return out
    }
}

/// The editor on a shared document: the session's document is the host's (every change arrives as a
/// delta), commands that change it go to the host, and the cursor and selection stay here, reported to the
/// host as they move.
///
/// - Warning: main (editor) thread only.
final class JoinedEditor {
    let participant: Participant
    let session: Session
    let inbox = SharedInbox()
    /// Signalled with each event, so the editor draws it at once rather than at its next look.
    let wakeup = Wakeup()
    var dispatcher: Dispatcher!
    private var lastSentView: Session.View?
    private var flashUntil = 0.0
    private var reconnectAt: Double?
    /// How long another participant's change stays highlighted, seconds.
    static let flashSeconds = 0.6
    /// How often the editor looks when nothing arrives (reconnecting, a flash fading), milliseconds.
    static let lookMs = 100

    init(participant: Participant) throws {
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
    func poll() -> Bool {
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
                dispatcher.say("joined \(host)'s document")
                reconnectAt = nil
                lastSentView = nil
            case .notice(let text):
                dispatcher.say(text, error: true)
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
        let view = session.view
        if participant.sync({ $0.connected }), lastSentView.map({ !JoinedEditor.same($0, view) }) ?? true {
            participant.send(view: view)
            lastSentView = view
        }
        return changed
    }

    static func same(_ a: Session.View, _ b: Session.View) -> Bool {
        a.cursor == b.cursor && a.currentTrack == b.currentTrack && a.selection == b.selection && a.clipMode == b.clipMode
            && a.snap == b.snap && a.chosenClip == b.chosenClip
    }

    /// Runs the editor until the user quits.
    func run(keyMap: KeyMap, theme: Theme, paths: ConfigPaths) throws {
        let engine = AudioEngine()
        engine.start()
        dispatcher = Dispatcher(session: session, keyMap: keyMap, engine: engine, paths: paths)
        dispatcher.commandHistory = CommandHistory.load(paths: paths)
        dispatcher.view.sharedWith = []
        let screen = try CursesScreen(theme: theme)
        screen.wakeup = wakeup
        let editor = Editor(screen: screen, dispatcher: dispatcher, autosave: Autosave(paths: paths))
        editor.poll = { [unowned self] in self.poll() }
        editor.pollInterval = JoinedEditor.lookMs
        editor.run()
        screen.close()
        CommandHistory.save(dispatcher.commandHistory, paths: paths)
        participant.cut()
    }
}

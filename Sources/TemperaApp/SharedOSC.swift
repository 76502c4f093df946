import Foundation
import TemperaCore
import TemperaNet
import TemperaOSC

/// OSC on a shared document (`tempera serve --osc PORT`): a participant of the host, named "osc", whose session
/// runs the lines OSC sends as any participant's are run. Edits and `save` go to the host and are answered when
/// the host answers; `play` and `stop` start and stop everyone; the state subscribers hear is the shared
/// transport's (the host has no player of its own).
///
/// - Warning: one thread only: the one that made it and calls `step`.
public final class SharedOSC: SessionHost {
    public let participant: Participant
    public let session: Session
    public let control: OSCControl
    let inbox = SharedInbox()
    /// Lines sent to the host, by their number, and who is waiting for the answer.
    private var waiting: [Int: OSCPeer] = [:]
    private var lastSent: Int?

    /// Joins the host (at most 10 seconds) as "osc".
    public init(participant: Participant, control: OSCControl) throws {
        self.participant = participant
        self.control = control
        let inbox = self.inbox
        participant.onEvent = { inbox.push($0) }
        try participant.connect()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !participant.sync({ $0.connected && $0.seq >= 0 }) { usleep(2000) }
        guard participant.sync({ $0.connected && $0.seq >= 0 }) else { throw NetError("the host did not answer") }
        session = Session(document: participant.sync { $0.document })
        session.host = self
        session.remote = { [participant, unowned self] command in
            self.lastSent = participant.send(command.text, view: self.session.view)
            return nil
        }
    }

    /// Takes what the host said, runs what OSC sent, and sends subscribers the state when due.
    public func step(now: Double) {
        for event in inbox.drain() {
            switch event {
            case .snapshot(let document):
                session.adopt(document)
            case .changed(let delta):
                do { try session.apply(delta.change) } catch { session.adopt(participant.sync { $0.document }) }
            case .answered(let id, let command, let message, let error, _):
                guard let peer = waiting.removeValue(forKey: id) else { continue }
                control.reply(peer, error.map { "\(command): \($0)" } ?? message ?? "ok", isError: error != nil)
            default:
                break
            }
        }
        control.service(now: now, run: run) { state(now: now) }
    }

    /// One line: answered now when it ran here (the view, the transport), later when it went to the host.
    func run(_ line: String, _ peer: OSCPeer) -> (text: String, isError: Bool)? {
        lastSent = nil
        do {
            let message = try session.run(line: line)
            if let id = lastSent {
                waiting[id] = peer
                return nil
            }
            return (message ?? "ok", false)
        } catch {
            return ("\(error)", true)
        }
    }

    /// The shared transport as a subscriber hears it: the position on the timeline, the tempo, playing.
    func state(now: Double) -> OSCState {
        let t = participant.sync { $0.transport }
        let document = session.document
        guard t.playing else { return OSCState(position: Schedule.region(of: document.transport).0, tempo: document.transport.tempo, playing: false) }
        let music = max(0, t.music(atHost: now))
        let start = Schedule.region(of: document.transport).0
        return OSCState(position: t.span > 0 ? start + music.truncatingRemainder(dividingBy: t.span) : music,
                        tempo: t.rate > 0 ? t.rate : document.transport.tempo, playing: true)
    }

    public func play() throws -> String? {
        participant.play(true)
        return "playing"
    }

    public func stop() throws -> String? {
        participant.play(false)
        return "stopped"
    }
}

import CLink
import TemperaAudio
import TemperaCore
import TemperaTerminal

/// The editor as a member of an Ableton Link session (`--link`): the document's tempo follows the session's
/// (a peer's change arrives as a `bpm` command, one undoable step; a change here is given to the session),
/// Space starts pass 0 on the session's next bar (quantum: the meter), and while it plays the beat phase is kept
/// on the session's by nudging the engine, as a shared document's players keep to their host.
///
/// - Warning: main (editor) thread only.
final class LinkFollower {
    private let link: OpaquePointer
    private let dispatcher: Dispatcher
    private var lastLinkBPM: Double
    private var lastDocumentBPM: Double
    /// Started on a bar of the session: the phase is kept while this holds and the engine plays.
    private var following = false
    private var errors: [Double] = []
    private var lastCorrection = 0.0
    private var settledAt = 0.0
    private var lastPeers = 0

    /// How far ahead of now a start may be aimed (the output renders tens of milliseconds ahead), seconds.
    static let startMargin = 0.06

    init?(dispatcher: Dispatcher) {
        let bpm = dispatcher.session.document.transport.bpm
        guard let link = CLink_new(bpm) else { return nil }
        self.link = link
        self.dispatcher = dispatcher
        lastLinkBPM = bpm
        lastDocumentBPM = bpm
        CLink_enable(link, 1)
    }

    deinit {
        CLink_enable(link, 0)
        CLink_free(link)
    }

    private var quantum: Double { Double(max(1, dispatcher.session.document.transport.meter)) }

    /// The session now: tempo, beat and phase.
    private func state(at micros: Int64) -> (bpm: Double, beat: Double, phase: Double) {
        var bpm = 0.0, beat = 0.0, phase = 0.0
        CLink_state(link, micros, quantum, &bpm, &beat, &phase)
        return (bpm, beat, phase)
    }

    /// Space: plays from pass 0 on the session's next bar, or stops.
    func play(_ on: Bool) {
        guard let engine = dispatcher.engine else { return }
        guard on else {
            following = false
            engine.pause()
            return
        }
        let q = quantum
        let s = state(at: CLink_now() + Int64(LinkFollower.startMargin * 1e6))
        let bar = (s.beat / q).rounded(.up) * q
        let at = CLink_timeAtBeat(link, bar, q)
        following = true
        errors = []
        engine.play(heardAtNanos: UInt64(max(0, at)) * 1000)
        dispatcher.say("playing from the session's next bar")
    }

    /// Follows the session: tempo both ways, the phase while playing. True when the screen changed.
    func poll(now: Double) -> Bool {
        var changed = false
        let s = state(at: CLink_now())
        let documentBPM = dispatcher.session.document.transport.bpm
        if abs(s.bpm - lastLinkBPM) > 1e-6 {
            // A peer changed the tempo: the document takes it, as a step of its own.
            lastLinkBPM = s.bpm
            do {
                _ = try dispatcher.session.run(.bpm(s.bpm))
                dispatcher.say("tempo \(DocumentFile.number((s.bpm * 1000).rounded() / 1000)) bpm from the Link session")
            } catch {
                dispatcher.say("the Link session's tempo: \(error)", error: true)
            }
            lastDocumentBPM = dispatcher.session.document.transport.bpm
            changed = true
        } else if abs(documentBPM - lastDocumentBPM) > 1e-6 {
            lastDocumentBPM = documentBPM
            lastLinkBPM = documentBPM
            CLink_setTempo(link, documentBPM, CLink_now())
        }
        let peers = CLink_peers(link)
        if peers != lastPeers {
            lastPeers = peers
            dispatcher.say("Link: \(peers) peer\(peers == 1 ? "" : "s")")
            changed = true
        }
        correctPhase(now: now)
        return changed
    }

    /// Keeps the beat phase heard on the session's (see `JoinedEditor.correctPhase`, the same rule).
    private func correctPhase(now: Double) {
        guard following, let engine = dispatcher.engine, engine.isPlaying else { return }
        let clock = engine.playheadClock
        let nanos = MonotonicClock.nanos()
        guard clock.playing, nanos < clock.nanos + 100_000_000, now >= settledAt else { return }
        let heard = clock.heard(atNanos: nanos)
        guard heard > clock.playStart else { return }
        let t = dispatcher.session.document.transport
        let q = quantum
        let s = state(at: Int64(nanos / 1000))
        guard s.bpm > 0 else { return }
        var beats = (heard / t.beat).truncatingRemainder(dividingBy: q) - s.phase
        if beats > q / 2 { beats -= q }
        if beats < -q / 2 { beats += q }
        let error = beats * 60 / s.bpm
        errors.append(error)
        var correction: Double?
        if errors.count >= 4 {
            let recent = errors.suffix(4).sorted()
            let m = (recent[1] + recent[2]) / 2
            if abs(m) > 0.001 { correction = m }
        }
        if correction == nil, now - lastCorrection >= 1, errors.count >= 5 {
            let m = errors.sorted()[errors.count / 2]
            if abs(m) > 0.0003 { correction = m }
            lastCorrection = now
            errors = []
        }
        guard let correction else { return }
        engine.nudge(seconds: correction)
        errors = []
        lastCorrection = now
        settledAt = now + 0.06
    }
}

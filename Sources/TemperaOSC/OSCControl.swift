import Foundation
import TemperaCore
import TemperaPlayback

/// What a subscriber hears about 20 times a second.
public struct OSCState: Equatable, Sendable {
    /// The playhead, seconds on the timeline.
    public var position: Double
    /// The tempo heard (x1 plays as written).
    public var tempo: Double
    public var playing: Bool

    public init(position: Double, tempo: Double, playing: Bool) {
        self.position = position
        self.tempo = tempo
        self.playing = playing
    }

    /// What a player says of `document`, as the transport shows it: the tempo heard while it plays, the
    /// document's own when it does not.
    public init(_ state: PlayerState, playing document: Document) {
        self.init(position: state.position, tempo: state.isPlaying ? state.heardTempo ?? document.transport.tempo
                                                                    : document.transport.tempo,
                  playing: state.isPlaying)
    }
}

/// OSC as a front end: each request becomes a command line run by the owner (the editor, `tempera play`,
/// `tempera serve`) on its own thread, and the line it says goes back to the sender as `/tempera/reply s`;
/// subscribers get `/tempera/state f f i` (position, tempo, playing) every `stateInterval` seconds.
///
/// - `/tempera/command s`: one line of the command language (`tempo 1.5`, `save`, `play`).
/// - `/tempera/play`, `/tempera/stop`, `/tempera/locate f`: the lines `play`, `stop`, `locate F`.
/// - `/tempera/subscribe`, `/tempera/unsubscribe`.
///
/// - Warning: the owning thread only (where `service` is called).
public final class OSCControl {
    public let server: OSCServer
    /// Who asked for the state, in the order they asked.
    public private(set) var subscribers: [OSCPeer] = []
    private var lastState = -Double.infinity
    /// Seconds between two state messages (20 a second).
    public static let stateInterval = 0.05
    /// The most subscribers: a later one is told so.
    public static let maxSubscribers = 16

    public init(server: OSCServer) { self.server = server }

    /// Runs what arrived (`run` takes a line and who sent it, and answers what to say and whether it is an error,
    /// or nil when the answer comes later through `reply`), and sends the state to subscribers when it is due.
    /// True when a request ran (the owner may have something to redraw).
    @discardableResult
    public func service(now: Double, run: (String, OSCPeer) -> (text: String, isError: Bool)?,
                        state: () -> OSCState) -> Bool {
        let requests = server.take()
        for request in requests {
            let line: String
            switch request.kind {
            case .command(let text): line = text
            case .play: line = "play"
            case .stop: line = "stop"
            case .locate(let t): line = Command.locate(t).text
            case .subscribe:
                if !subscribers.contains(request.sender) {
                    guard subscribers.count < Self.maxSubscribers else {
                        reply(request.sender, "no more than \(Self.maxSubscribers) subscribers", isError: true)
                        continue
                    }
                    subscribers.append(request.sender)
                }
                reply(request.sender, "subscribed: /tempera/state f f i (position, tempo, playing) 20 times a second",
                      isError: false)
                lastState = -.infinity
                continue
            case .unsubscribe:
                subscribers.removeAll { $0 == request.sender }
                reply(request.sender, "unsubscribed", isError: false)
                continue
            case .refused(let why):
                reply(request.sender, why, isError: true)
                continue
            case .nsm:
                // Only an NSM client's port reads the session manager's messages.
                continue
            }
            if let answer = run(line, request.sender) { reply(request.sender, answer.text, isError: answer.isError) }
        }
        if !subscribers.isEmpty, now - lastState >= Self.stateInterval {
            // On the interval's grid, so a late call does not push every later message back.
            lastState = now - (now - lastState).truncatingRemainder(dividingBy: Self.stateInterval)
            if !lastState.isFinite || now - lastState > Self.stateInterval { lastState = now }
            let s = state()
            for peer in subscribers {
                server.send("/tempera/state", [.float(Float(s.position)), .float(Float(s.tempo)), .int(s.playing ? 1 : 0)],
                            to: peer)
            }
        }
        return !requests.isEmpty
    }

    /// Seconds until the next state message is due (nil: nobody subscribed), for the owner's wait.
    public func untilNextState(now: Double) -> Double? {
        subscribers.isEmpty ? nil : max(0, lastState + Self.stateInterval - now)
    }

    /// Answers `peer` (`/tempera/reply s`; an error's line starts with "error: ").
    public func reply(_ peer: OSCPeer, _ text: String, isError: Bool) {
        server.send("/tempera/reply", [.string(isError ? "error: " + text : text)], to: peer)
    }

    /// Stops listening.
    public func close() { server.close() }
}

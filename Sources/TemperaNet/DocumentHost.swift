import Dispatch
import Foundation
import Synchronization
import TemperaCore
#if canImport(Glibc)
import Glibc
#endif

/// Hosts a shared document: accepts participants (over TCP, or handed over connected, as `serve --stdio` does),
/// runs their commands on the `SharedDocument`, and sends each change to everyone in the host's order.
///
/// Two serial queues share the work. The connections live on `io`: reading, writing, hellos, tokens and clock
/// probes, so a ping is answered at once whatever the document is doing. The document lives on `queue`: every
/// command, join and change runs there, in order, and what it produces is handed back to `io` to send. A
/// participant that floods, sends garbage or stops reading only ever slows or loses its own connection; one that
/// cannot keep up with the changes is sent the whole document again once it drains (the others go on).
///
/// With a journal (`Options.journal`) every change is written there before it is answered, and a host started
/// again after a crash replays it (see `Journal`).
///
/// - Warning: create it and call it from any thread; it does its work on its queues.
public final class DocumentHost: @unchecked Sendable {
    /// The host's settings.
    public struct Options: Sendable {
        /// The address to listen on (`127.0.0.1` unless told otherwise).
        public var listen = "127.0.0.1"
        public var port = 7400
        /// The name participants see for the host.
        public var name = "host"
        /// The shared secret participants must give; required when listening beyond loopback.
        public var token: String?
        /// The most connections at once (participants and those still to say hello).
        public var maxConnections = 64
        /// Seconds a new connection has to say hello.
        public var helloSeconds = 5.0
        /// Bytes queued for a connection that has not said hello before it is dropped.
        public var unauthenticatedOutbox = 1 << 20
        /// Bytes queued for a participant before it is resynced from a snapshot.
        public var participantOutbox = 64 << 20
        /// The journal's path (nil: none).
        public var journal: String?
        /// Where to listen on a Unix socket instead of TCP (nil: TCP).
        public var unixSocket: String?
        /// The name the host's own editor joins with: it may take the host's name, which no one else may (nor
        /// one confusable with it, nor `host`).
        public var ownName: String?

        public init() {}
    }

    /// The document's queue: commands, joins and changes (autosave timers belong here too).
    public let queue = DispatchQueue(label: "tempera.host")
    /// The connections' queue.
    let io = DispatchQueue(label: "tempera.host.io")
    public let options: Options
    /// The port actually listened on (useful with port 0; 0 on a Unix socket).
    public let port: Int
    /// Where the host says what it refused and who came and went (one line each, control characters escaped).
    public var log: @Sendable (String) -> Void {
        get { logger.value }
        set { logger.value = newValue }
    }
    private let logger = LogBox()
    /// Called on `queue` after every change (autosave hooks here).
    public var onChange: ((Session) -> Void)?
    /// Changes recovered from the journal at start (0: none).
    public private(set) var recovered = 0
    /// A journal that did not follow the file, set aside at start.
    public private(set) var journalSetAside: String?
    /// What was wrong with the journal at start, in one line (a damaged record and what became of the rest).
    public private(set) var journalDamage: String?

    let shared: SharedDocument
    var journal: Journal?
    let listenFD: Int32
    let acceptSource: DispatchSourceRead?
    var acceptSuspended = false
    // io queue state
    var clients: [ObjectIdentifier: Client] = [:]
    var failures: [String: (count: Int, next: Double)] = [:]
    var nextGuest = 1
    /// A presence message is due (document queue).
    var presenceScheduled = false
    /// What everyone plays by (document queue).
    public internal(set) var transport = SharedTransport()

    /// A connection: its line connection and, once it said hello, its key (io queue).
    final class Client: @unchecked Sendable {
        let connection: LineConnection
        var key: String?
        /// Said hello and waiting for the document's answer, or being refused: input is not read meanwhile.
        var judging = false
        /// Requests handed to the document queue and not yet answered.
        var inFlight = 0
        /// Overflowed: its queue was dropped and a snapshot is due once it drains.
        var resyncing = false
        let address: String
        /// Reading held: too many requests wait on the document queue, or the participant used up its messages.
        var heldForFlight = false
        var heldForRate = false
        /// Messages the participant may still send now (refilled at `messagesPerSecond`), and when it was.
        var allowance = DocumentHost.messageBurst
        var refilled = monotonicSeconds()
        /// The latest view and play not yet taken to the document queue (a storm of them costs one each turn).
        var pendingView: JSONMessage?
        var pendingPlay: Bool?
        var flushDue = false
        /// Refusals written to the log for this connection (past `loggedRefusals` they go unlogged).
        var refusalsLogged = 0
        init(_ c: LineConnection, address: String) {
            connection = c
            self.address = address
        }

        func updateHold() { connection.hold(heldForFlight || heldForRate) }
    }

    /// Requests from one participant that may wait on the document queue before its reading pauses.
    static let maxInFlight = 64
    /// Messages a participant may send a second on average, and at once; past them its reading pauses until
    /// the allowance has grown back, so one participant's storm takes only its share of the host.
    static let messagesPerSecond = 1_000.0
    static let messageBurst = 2_000.0
    /// How often a participant's latest view and play are taken to the document (seconds): a storm of them
    /// is coalesced to one each this often.
    static let coalesceSeconds = 0.02
    /// Refusals logged per connection; later ones are counted in one line, not each logged.
    static let loggedRefusals = 20

    /// Listens at once; throws a one-line error when it cannot (address taken, no token for a non-local
    /// address, a journal that cannot be written).
    public init(session: Session, options: Options) throws {
        self.options = options
        var session = session
        if let path = options.journal {
            let bytes = session.path.flatMap { FileManager.default.contents(atPath: $0) }.map { [UInt8]($0) }
            let (j, replay) = try Journal.open(path, fileBytes: bytes, loaded: session.document)
            journal = j
            journalSetAside = replay.setAside
            journalDamage = replay.damage
            if !replay.entries.isEmpty {
                let recoveredSession = Session(document: replay.document, path: session.path)
                recoveredSession.markModified()
                session = recoveredSession
                recovered = replay.entries.count
            }
            shared = SharedDocument(session: session)
            shared.recover(replay.entries)
        } else {
            shared = SharedDocument(session: session)
        }
        shared.reservedNames = Set([options.name, "host"].filter { $0 != options.ownName })
        if let socketPath = options.unixSocket {
            listenFD = try Sockets.listenUnix(path: socketPath)
            port = 0
        } else {
            let (fd, port, loopback) = try Sockets.listen(host: options.listen, port: options.port)
            if !loopback && (options.token ?? "").isEmpty {
                close(fd)
                throw NetError("listening on \(options.listen) needs --token: anyone who can reach it could edit")
            }
            listenFD = fd
            self.port = port
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: listenFD, queue: io)
        acceptSource = source
        let fd = listenFD
        source.setEventHandler { [weak self] in self?.accept() }
        source.setCancelHandler { close(fd) }
        source.resume()
    }

    /// Runs `body` on the document queue with the shared document's session, and waits for it.
    public func sync<T>(_ body: (Session) throws -> T) rethrows -> T {
        try queue.sync { try body(shared.session) }
    }

    /// The number of the last change.
    public var seq: Int { queue.sync { shared.seq } }

    /// Starts (or stops) everyone playing, as a participant's `{"play":…}` does.
    public func setPlaying(_ on: Bool) {
        queue.async { self.play(on) }
    }

    /// Stops listening and closes every connection.
    public func stop() {
        io.sync {
            acceptSource?.cancel()
            if acceptSuspended {
                acceptSuspended = false
                acceptSource?.resume()
            }
            for c in clients.values { c.connection.finish(timeout: 0.5) }
        }
    }

    /// After the shared file was saved with everything in it: the journal starts again from it.
    public func saved() {
        queue.async { self.restartJournalIfSaved() }
    }

    /// Stops with everything saved: the journal is no longer needed (call on `queue`).
    public func removeJournalNow() {
        journal?.remove()
        journal = nil
    }

    /// Stops with everything saved: the journal is no longer needed.
    public func removeJournal() {
        queue.sync { removeJournalNow() }
    }

    /// Participants connected now (call on `queue`).
    public var participantsPresent: Int { shared.present.count }

    /// Takes a connection made elsewhere (a Unix socket's peer, standard input and output joined into one
    /// socket pair): it is a connection like any other.
    public func adopt(fd: Int32, peer: String) {
        io.async { self.add(fd: fd, peer: peer, address: peer) }
    }

    /// A participant's key: 96 bits from the system's random source, in hex.
    static func newKey() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<3).map { _ in String(UInt32.random(in: .min ... .max, using: &g), radix: 16) }.joined(separator: "-")
    }

    /// Whether a given token is the host's, compared as bytes (no Unicode equivalence: `café` written two
    /// ways is two tokens) in time that does not depend on where they differ.
    static func sameBytes(_ given: String?, _ token: String) -> Bool {
        let a = Array((given ?? "").utf8), b = Array(token.utf8)
        var diff = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<b.count { diff |= (i < a.count ? a[i] : 0) ^ b[i] }
        return diff == 0 && given != nil
    }

    /// A line for the log with every control character escaped, so nothing a peer sends can move the
    /// terminal's cursor, clear it or set its title.
    public static func escaped(_ line: String) -> String {
        var out = ""
        for u in line.unicodeScalars {
            switch u.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator:
                out += u.value < 0x100 ? String(format: "\\x%02x", u.value) : String(format: "\\u{%x}", u.value)
            default:
                out.unicodeScalars.append(u)
            }
        }
        return out
    }
}

/// The log function, escaping what it is given.
///
/// The function is kept in a struct: a function value held directly in the `Mutex` (a generic) is reabstracted
/// on every `withLock`, and the inout access writes back the function wrapped in two more thunks, so each log
/// line walked a chain as long as all the lines before it (the host's CPU per 2,500 joins grew from 4 s to 42 s
/// over 20,000 joins).
final class LogBox: Sendable {
    private struct Sink: Sendable {
        let write: @Sendable (String) -> Void
    }

    private let sink = Mutex(Sink(write: { _ in }))
    var value: @Sendable (String) -> Void {
        get {
            let s = sink.withLock { $0.write }
            return { s(DocumentHost.escaped($0)) }
        }
        set { sink.withLock { $0 = Sink(write: newValue) } }
    }
}

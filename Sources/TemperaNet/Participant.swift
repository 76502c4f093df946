import Dispatch
import TemperaCore
#if canImport(Glibc)
import Glibc
#endif

/// A participant's end of a shared document: a copy of the document kept in step with the host's numbered
/// changes, and the commands it sends. Commands are numbered and kept until the host answers them; when the
/// connection breaks they wait, and on reconnecting the host says which it already ran (with their answers)
/// and the rest are sent again, in order. A participant whose connection is down keeps its copy of the
/// document and its queue.
///
/// - Warning: call it from any thread; it works on `queue`, and `onEvent` runs there.
public final class Participant: @unchecked Sendable {
    /// What the participant learns.
    public enum Event: Sendable {
        /// Connected (again) and holding the host's document.
        case joined(name: String, host: String)
        /// The whole document (on joining and after every reconnect): replace the copy with it.
        case snapshot(Document)
        /// A change applied to the copy (`mine`: made by one of this participant's commands).
        case changed(SharedDocument.Delta)
        /// The host answered a command: `error` set when it was refused.
        /// `view`: the participant's own state after it, when the command moved it (a stamp moves the cursor).
        case answered(id: Int, command: String, message: String?, error: String?, view: Session.View?)
        /// Who is there and where their cursors are.
        case presence([Presence])
        /// The host said something is wrong with what was sent, or the connection broke.
        case notice(String)
        case disconnected
        /// The shared transport started, stopped or changed pace (see `SharedTransport`).
        case transport(SharedTransport)
        /// Nothing has come from the host for this many seconds (said once a second while it lasts); commands
        /// wait in the queue.
        case unreachable(Int)
        /// The host is heard again after being unreachable.
        case reachable
    }

    /// One participant's cursor, as the host reports it.
    public struct Presence: Sendable, Equatable {
        public var name: String
        public var cursor: Double
        public var track: Int
    }

    public let queue = DispatchQueue(label: "tempera.participant")
    public let host: String
    public let port: Int
    public var name: String
    public let token: String?
    public var onEvent: (@Sendable (Event) -> Void)?
    /// Makes the connection instead of TCP to `host:port` (ssh to the document's machine, say): returns a
    /// connected socket's descriptor, or throws a one-line error.
    public var connector: (@Sendable () throws -> Int32)?
    /// True when the last connection ended before the host's welcome (refused, or never reached).
    public private(set) var endedBeforeWelcome = false

    /// The document as the host last said it is.
    public private(set) var document = Document(tracks: [])
    /// The number of the last change applied.
    public private(set) var seq = -1
    /// This participant's cursor, selection and modes as the host keeps them.
    public private(set) var view = Session.View(random: SeededRandom(seed: 1))
    public private(set) var presence: [Presence] = []
    /// Commands sent or waiting to be sent, not yet answered, in order.
    public private(set) var unanswered: [(id: Int, command: String)] = []
    /// Answers received, by id (the accounting a test reads).
    public private(set) var answers: [Int: (message: String?, error: String?)] = [:]
    /// True between the host's welcome and the connection breaking.
    public private(set) var connected = false
    /// The name the host gave (it adds a number when two share a name).
    public private(set) var givenName: String?
    /// The number of the change the host's last answer followed (the copy is up to date once `seq` reaches it).
    public private(set) var lastReplySeq = 0
    /// Commands sent again after a reconnect.
    public private(set) var resent = 0
    /// The shared transport as the host last said.
    public private(set) var transport = SharedTransport()
    /// The host's clock minus this one (seconds), from the least delayed of the recent probes; nil before the
    /// first answer.
    public private(set) var clockOffset: Double?
    /// The round trip of the probe `clockOffset` comes from, seconds.
    public private(set) var clockRoundTrip: Double?
    /// Recent probes: round trip and offset.
    private var probes: [(roundTrip: Double, offset: Double)] = []
    private var probeTimer: DispatchSourceTimer?
    /// Probes kept (the least delayed of them gives the offset): about the last three bursts.
    static let probesKept = 12
    /// Probes a burst sends, and how far apart (seconds); one burst on joining, then one every `probeEvery`.
    static let probesPerBurst = 4
    static let probeSpacing = 0.01
    static let probeEvery = 3.0
    /// The most participants a presence message is read for (a host has at most its connections' worth).
    static let presenceKept = 1024

    private var connection: LineConnection?
    /// The document being received whole (on joining, or after falling behind).
    private var snapshot: DocumentSnapshot.Reader?
    /// When the host was last heard from (monotonic seconds), and how many whole seconds of silence were said.
    private var lastHeard = 0.0
    private var silenceSaid = 0
    private var watchdog: DispatchSourceTimer?
    /// Seconds between keep-alive probes, and of silence before the host counts as unreachable.
    static let keepAlive = 0.5
    static let unreachableAfter = 1.0
    private var sessionKey: String?
    private var nextID = 1
    private var lastAnswered = 0
    private var sentUpTo = 0
    /// The highest id ever written to a connection.
    private var highestSent = 0

    public init(host: String, port: Int, name: String, token: String? = nil) {
        self.host = host
        self.port = port
        self.name = name
        self.token = token
    }

    /// Connects and says hello (again, after a break: the host then sends what was missed). Throws a
    /// one-line error when the host cannot be reached.
    public func connect() throws {
        let fd = try connector?() ?? Sockets.connect(host: host, port: port)
        queue.sync {
            endedBeforeWelcome = false
            let c = LineConnection(fd: fd, queue: queue, maxLine: Wire.maxHostLine, peer: "\(host):\(port)")
            c.joinsPieces = true
            c.acknowledgeEvery = Wire.acknowledgeEvery
            c.onAcknowledge = { [weak c] bytes in c?.send(Wire.got(bytes)) }
            snapshot = nil
            c.onInput = { [weak self] input in self?.handle(input) }
            c.onClose = { [weak self] in self?.lost() }
            c.onBytes = { [weak self] in self?.heard() }
            connection = c
            c.start()
            c.send(Wire.hello(name: name, token: token, session: sessionKey, replied: lastAnswered))
        }
    }

    /// Breaks the connection at once, as a network fault would (queued commands stay).
    public func cut() {
        queue.sync { connection?.close() }
    }

    /// Sends one command of the language (queued while disconnected) and returns its id.
    /// `view`: the participant's own state the command is to run in (an editor's cursor and selection).
    @discardableResult
    public func send(_ command: String, view: Session.View? = nil) -> Int {
        queue.sync {
            let id = nextID
            nextID += 1
            unanswered.append((id, command))
            if connected {
                connection?.send(Wire.request(id: id, command, view: view))
                sentUpTo = id
                highestSent = id
            }
            return id
        }
    }

    /// Splits "HOST:PORT" ("[V6]:PORT"; the port defaults to 7400).
    public static func split(_ address: String) throws -> (host: String, port: Int) {
        try Sockets.split(address, defaultPort: 7400)
    }

    /// Tells the host where this participant's cursor is and what it selected (not queued: the next one
    /// after a reconnect says it again).
    public func send(view: Session.View) {
        queue.async { [self] in
            if connected { connection?.send(Wire.viewMessage(view)) }
        }
    }

    /// Sends a clock probe.
    public func ping() {
        queue.async { [self] in connection?.send(Wire.ping(monotonicSeconds())) }
    }

    /// Asks the host to start everyone playing from the start, or to stop everyone.
    public func play(_ on: Bool) {
        queue.async { [self] in
            if connected { connection?.send(Wire.play(on)) }
        }
    }

    /// The host's clock now, as far as the probes tell (this clock until the first answer).
    public func hostNow() -> Double {
        queue.sync { monotonicSeconds() + (clockOffset ?? 0) }
    }

    /// Where the host's moment `t` is on this machine's monotonic clock.
    public func local(hostTime t: Double) -> Double {
        queue.sync { t - (clockOffset ?? 0) }
    }

    /// Sends a burst of probes (on the queue).
    private func probeBurst() {
        for k in 0..<Participant.probesPerBurst {
            queue.asyncAfter(deadline: .now() + Participant.probeSpacing * Double(k)) { [self] in
                if connected { connection?.send(Wire.ping(monotonicSeconds())) }
            }
        }
    }

    /// A probe came back: `sent` on this clock, `host` the host's clock when it answered.
    private func pong(sent: Double, host: Double) {
        let now = monotonicSeconds()
        let roundTrip = now - sent
        guard roundTrip >= 0, roundTrip < 10 else { return }
        // The host answered somewhere in the round trip; in its middle is the best guess, and the shorter the
        // trip the less that guess can be off.
        probes.append((roundTrip, host - (sent + now) / 2))
        if probes.count > Participant.probesKept { probes.removeFirst(probes.count - Participant.probesKept) }
        if let best = probes.min(by: { $0.roundTrip < $1.roundTrip }) {
            clockOffset = best.offset
            clockRoundTrip = best.roundTrip
        }
    }

    /// Runs `body` on the participant's queue (to read its state consistently).
    public func sync<T>(_ body: (Participant) throws -> T) rethrows -> T {
        try queue.sync { try body(self) }
    }

    /// Bytes came from the host.
    private func heard() {
        lastHeard = monotonicSeconds()
        if silenceSaid > 0 {
            silenceSaid = 0
            onEvent?(.reachable)
        }
    }

    /// Every quarter second while connected: a keep-alive probe, and the host's silence told once a second.
    private func watch() {
        guard connected else { return }
        let now = monotonicSeconds()
        let silent = now - lastHeard
        if silent >= Participant.keepAlive { connection?.send(Wire.ping(now)) }
        if silent >= Participant.unreachableAfter, Int(silent) > silenceSaid {
            silenceSaid = Int(silent)
            onEvent?(.unreachable(silenceSaid))
        }
    }

    private func lost() {
        probeTimer?.cancel()
        probeTimer = nil
        watchdog?.cancel()
        watchdog = nil
        silenceSaid = 0
        connection = nil
        let was = connected
        connected = false
        sentUpTo = 0
        if was {
            onEvent?(.disconnected)
        } else {
            endedBeforeWelcome = true
            onEvent?(.notice("the connection ended before the host welcomed this participant"))
        }
    }

    /// Reads one line as if the host had sent it, as the connection hands lines over (the protocol's fuzzer
    /// reads its inputs here).
    public func receive(line bytes: [UInt8]) {
        queue.sync { handle(.line(bytes)) }
    }

    private func handle(_ input: LineConnection.Input) {
        guard case .line(let bytes) = input else { return }
        let m: JSONMessage
        do {
            m = try JSONMessage.parse(bytes)
        } catch {
            onEvent?(.notice("the host sent a malformed line: \(error)"))
            return
        }
        if m["part"] != nil { return part(m) }
        if m["snapshot"] != nil { return startSnapshot(m) }
        if let seq = m["delta"]?.int { return delta(m, seq: seq) }
        if let id = m["reply"] {
            var moved: Session.View?
            if let v = m["view"] {
                do {
                    try Wire.read(view: v, into: &view)
                    moved = view
                } catch {
                    onEvent?(.notice("the host sent a view that does not read: \(error)"))
                }
            }
            if let s = m["seq"]?.int { lastReplySeq = max(lastReplySeq, s) }
            guard let id = id.int else { return }
            return answered(id, message: m["ok"]?.string, error: m["error"]?.string, view: moved)
        }
        if let people = m["presence"]?.array {
            // Someone outside the limits is left out (a cursor at 1e308 cannot be drawn).
            presence = people.prefix(Participant.presenceKept).compactMap { p in
                Wire.read(presence: p).map { Presence(name: $0.name, cursor: $0.cursor, track: $0.track) }
            }
            onEvent?(.presence(presence))
            return
        }
        if let given = m["welcome"]?.string { return welcome(m, name: given) }
        if let error = m["error"]?.string {
            onEvent?(.notice(error))
            return
        }
        if let sent = m["pong"]?.number, let host = m["host"]?.number {
            // A clock reading outside the limits would put the host's moments anywhere: the probe is dropped.
            guard (try? Limits.checkClock(sent, "")) != nil, (try? Limits.checkClock(host, "")) != nil else { return }
            return pong(sent: sent, host: host)
        }
        if let t = m["transport"] {
            do {
                transport = try Wire.read(transport: t)
            } catch {
                onEvent?(.notice("the host sent a transport that does not read: \(error)"))
                return
            }
            onEvent?(.transport(transport))
            return
        }
    }

    private func welcome(_ m: JSONMessage, name given: String) {
        guard m["protocol"]?.int == Wire.version else {
            let v = m["protocol"]?.int.map(String.init) ?? "1"
            onEvent?(.notice("the host speaks protocol \(v) and this participant \(Wire.version): run the same version "
                + "of tempera on both sides"))
            connection?.close()
            return
        }
        givenName = given
        sessionKey = m["session"]?.string
        // Answers missed while the connection was down.
        for r in m["results"]?.array ?? [] {
            guard let id = r["id"]?.int else { continue }
            answered(id, message: r["ok"]?.string, error: r["error"]?.string, view: nil)
        }
        let done = m["done"]?.int ?? 0
        // Requests the host ran whose answers are gone from its memory count as answered without a message.
        while let first = unanswered.first, first.id <= done { answered(first.id, message: nil, error: nil, view: nil) }
        connected = true
        onEvent?(.joined(name: given, host: m["host"]?.string ?? host))
        if let n = m["recovered"]?.int, n > 0 {
            onEvent?(.notice("the host restarted after a crash and recovered \(n) change\(n == 1 ? "" : "s") from its "
                + "journal: this is its document"))
        }
        lastHeard = monotonicSeconds()
        watchdog?.cancel()
        let dog = DispatchSource.makeTimerSource(queue: queue)
        dog.schedule(deadline: .now() + 0.25, repeating: 0.25)
        dog.setEventHandler { [weak self] in self?.watch() }
        dog.resume()
        watchdog = dog
        probeBurst()
        probeTimer?.cancel()
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + Participant.probeEvery, repeating: Participant.probeEvery)
        timer.setEventHandler { [weak self] in self?.probeBurst() }
        timer.resume()
        probeTimer = timer
        for (id, command) in unanswered {
            connection?.send(Wire.request(id: id, command))
            if id <= highestSent { resent += 1 }
            sentUpTo = id
            highestSent = max(highestSent, id)
        }
    }

    private func answered(_ id: Int, message: String?, error: String?, view: Session.View?) {
        guard let k = unanswered.firstIndex(where: { $0.id == id }) else { return }
        let command = unanswered[k].command
        unanswered.remove(at: k)
        answers[id] = (message, error)
        lastAnswered = max(lastAnswered, id)
        onEvent?(.answered(id: id, command: command, message: message, error: error, view: view))
    }

    /// The first line of the whole document.
    private func startSnapshot(_ m: JSONMessage) {
        do {
            snapshot = try DocumentSnapshot.Reader(header: m)
            snapshotDone()
        } catch {
            onEvent?(.notice("the host's document does not read: \(error)"))
            connection?.close()
        }
    }

    /// A run of the whole document's markers.
    private func part(_ m: JSONMessage) {
        guard snapshot != nil else {
            onEvent?(.notice("the host sent part of a document it had not begun: reconnecting"))
            connection?.close()
            return
        }
        do {
            try snapshot!.add(part: m)
            snapshotDone()
        } catch {
            snapshot = nil
            onEvent?(.notice("the host's document does not read: \(error)"))
            connection?.close()
        }
    }

    /// Once the whole document is here, it replaces the copy.
    private func snapshotDone() {
        guard let s = snapshot, s.isComplete else { return }
        snapshot = nil
        document = s.finished()
        seq = s.seq
        onEvent?(.snapshot(document))
    }

    private func delta(_ m: JSONMessage, seq: Int) {
        guard let c = m["change"] else { return }
        guard snapshot == nil else {
            onEvent?(.notice("a change arrived before the whole document: reconnecting"))
            connection?.close()
            return
        }
        do {
            let change = try DocumentDelta(decoding: c)
            guard seq == self.seq + 1 else {
                onEvent?(.notice("change \(seq) arrived after \(self.seq): reconnecting"))
                connection?.close()
                return
            }
            try change.apply(to: &document)
            self.seq = seq
            onEvent?(.changed(SharedDocument.Delta(seq: seq, by: m["by"]?.string ?? "", name: m["name"]?.string ?? "",
                                                   change: change)))
        } catch {
            onEvent?(.notice("a change from the host does not apply: \(error)"))
            connection?.close()
        }
    }
}

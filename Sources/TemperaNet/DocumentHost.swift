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

    let shared: SharedDocument
    private var journal: Journal?
    private let listenFD: Int32
    private let acceptSource: DispatchSourceRead?
    private var acceptSuspended = false
    // io queue state
    private var clients: [ObjectIdentifier: Client] = [:]
    private var failures: [String: (count: Int, next: Double)] = [:]
    private var nextGuest = 1
    /// What everyone plays by (document queue).
    public private(set) var transport = SharedTransport()

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
        init(_ c: LineConnection, address: String) {
            connection = c
            self.address = address
        }
    }

    /// Requests from one participant that may wait on the document queue before its reading pauses.
    static let maxInFlight = 64

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

    // MARK: - Connections (io queue)

    private func accept() {
        while true {
            var storage = sockaddr_storage()
            var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listenFD, $0, &len) }
            }
            if fd < 0 {
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
                    pauseAccepting(why: String(cString: strerror(errno)))
                }
                return
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let family = Int32(storage.ss_family)
            let peer = family == AF_UNIX ? "local" : withUnsafeBytes(of: &storage) { Sockets.describe($0.baseAddress!, family: family) }
            if clients.count >= options.maxConnections {
                let line = "{\"error\":\"the host has \(options.maxConnections) connections already: try again later\"}\n"
                _ = line.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                close(fd)
                log("refused a connection from \(peer): \(options.maxConnections) connections already (the limit)")
                continue
            }
            let address = peer.hasPrefix("[") ? String(peer[..<(peer.lastIndex(of: "]") ?? peer.endIndex)]) + "]"
                : String(peer.split(separator: ":").first ?? Substring(peer))
            add(fd: fd, peer: peer, address: address)
        }
    }

    /// Out of descriptors: accepting stops for a second (one line), instead of spinning on a listening socket
    /// that stays readable.
    private func pauseAccepting(why: String) {
        guard !acceptSuspended, let source = acceptSource else { return }
        acceptSuspended = true
        source.suspend()
        log("out of file descriptors (\(why)): not accepting connections for 1 s")
        io.asyncAfter(deadline: .now() + 1) { [weak self] in
            guard let self, self.acceptSuspended else { return }
            self.acceptSuspended = false
            self.acceptSource?.resume()
        }
    }

    private func add(fd: Int32, peer: String, address: String) {
        let connection = LineConnection(fd: fd, queue: io, maxLine: Wire.maxRequestLine,
                                        maxOutbox: options.unauthenticatedOutbox, peer: peer)
        connection.cutsLongLines = true
        let client = Client(connection, address: address)
        let id = ObjectIdentifier(client)
        clients[id] = client
        connection.onInput = { [weak self, weak client] (input: LineConnection.Input) in
            guard let self, let client else { return }
            self.handle(input, from: client)
        }
        connection.onClose = { [weak self] in self?.closed(id) }
        connection.start()
        io.asyncAfter(deadline: .now() + options.helloSeconds) { [weak self, weak client] in
            guard let self, let client, client.key == nil, !client.judging, client.connection.isOpen else { return }
            self.log("closed \(peer): no hello in \(Limits.seconds(self.options.helloSeconds)) s")
            client.connection.stopReading()
            client.connection.close()
        }
    }

    private func closed(_ id: ObjectIdentifier) {
        guard let client = clients.removeValue(forKey: id) else { return }
        if let key = client.key {
            // Another connection may have taken the participant over already (a reconnect before the old one
            // was noticed as gone).
            let stillHere = clients.values.contains(where: { $0.key == key })
            let peer = client.connection.peer
            queue.async { [self] in
                if !stillHere { shared.leave(key: key, now: monotonicSeconds()) }
                log("\(shared.participants[key]?.name ?? key) left (\(peer))")
                broadcastPresence()
            }
        }
    }

    private func handle(_ input: LineConnection.Input, from client: Client) {
        guard !client.judging else { return }
        switch input {
        case .tooLong(let n):
            log("refused a line of more than \(n) bytes from \(client.connection.peer)")
            client.connection.send(Wire.error("line too long: the limit is \(Wire.maxRequestLine) bytes"))
        case .line(let bytes):
            guard !bytes.isEmpty else { return }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                log("refused a line that is not UTF-8 text from \(client.connection.peer)")
                client.connection.send(Wire.error("not UTF-8 text"))
                return
            }
            if text.first == "{" {
                let message: JSONMessage
                do {
                    message = try JSONMessage.parse(bytes)
                } catch {
                    log("refused a malformed message from \(client.connection.peer): \(error)")
                    client.connection.send(Wire.error("malformed message: \(error)"))
                    return
                }
                handle(message, from: client)
            } else {
                run(text, id: nil, view: nil, from: client)
            }
        }
    }

    private func handle(_ m: JSONMessage, from client: Client) {
        if m["hello"] != nil { return hello(m, from: client) }
        guard let key = client.key else { return stranger(client) }
        if let t = m["ping"]?.number {
            client.connection.sendUrgent(Wire.pong(t, host: monotonicSeconds()))
            return
        }
        if let n = m["got"]?.int {
            client.connection.acknowledged(n)
            return
        }
        if let on = m["play"]?.bool {
            queue.async { self.play(on) }
            return
        }
        if let v = m["view"], m["run"] == nil {
            queue.async { [self] in
                shared.updateView(of: key, from: v)
                broadcastPresence()
            }
            return
        }
        if let text = m["run"]?.string {
            let id = m["id"]?.int
            if let id, id < 1 {
                client.connection.send(Wire.error("a request id counts from 1"))
                return
            }
            return run(text, id: id, view: m["view"], from: client)
        }
        log("refused a message it does not know from \(client.connection.peer): \(m.keys)")
        client.connection.send(Wire.error("unknown message (known: hello, run, view, ping, play, got)"))
    }

    private func hello(_ m: JSONMessage, from client: Client) {
        guard client.key == nil else {
            client.connection.send(Wire.error("already said hello"))
            return
        }
        guard m["hello"]?.int == Wire.version else {
            let v = m["hello"]?.int.map(String.init) ?? "unknown"
            log("refused \(client.connection.peer): it speaks protocol \(v), not \(Wire.version)")
            return refuse(client, "this host speaks protocol \(Wire.version) and the participant \(v): run the same "
                + "version of tempera on both sides")
        }
        client.judging = true
        client.connection.hold(true)
        // After three wrong tokens from an address, each further try waits a second more (at most 30 s), and
        // tries at once from many connections wait their turn one after another.
        let now = monotonicSeconds()
        var wait = 0.0
        if let token = options.token, !token.isEmpty, let f = failures[client.address], f.count >= 3 {
            let delay = min(30, Double(f.count - 2))
            let at = max(now, f.next) + delay
            failures[client.address] = (f.count, at)
            wait = at - now
        }
        if wait > 0 {
            io.asyncAfter(deadline: .now() + wait) { [weak self, weak client] in
                guard let self, let client, client.connection.isOpen else { return }
                self.judge(m, from: client)
            }
        } else {
            judge(m, from: client)
        }
    }

    /// Checks a hello's token and name and, when they pass, joins the participant on the document queue.
    private func judge(_ m: JSONMessage, from client: Client) {
        if let token = options.token, !token.isEmpty {
            guard DocumentHost.sameBytes(m["token"]?.string, token) else {
                let f = failures[client.address] ?? (0, 0)
                failures[client.address] = (f.count + 1, max(f.next, monotonicSeconds()))
                if failures.count > 10_000 { failures = failures.filter { $0.value.count >= 3 } }
                log("refused \(client.connection.peer): wrong or missing token")
                return refuse(client, "wrong or missing token")
            }
            failures[client.address] = nil
        }
        var name = m["name"]?.string ?? ""
        if name.isEmpty || name.count > 40 {
            name = "guest\(nextGuest)"
            nextGuest += 1
        }
        let chosen = name
        let replied = m["replied"]?.int ?? 0
        let wanted = m["session"]?.string ?? ""
        let peer = client.connection.peer
        queue.async { [self] in
            let returning = !wanted.isEmpty && shared.participants[wanted] != nil
            // A new participant is refused a name someone connected has; one coming back is given a numbered one.
            if let why = shared.nameProblem(chosen, key: returning ? wanted : nil),
               !returning || why.hasPrefix("a name may not") {
                log("refused \(peer): \(why)")
                io.async { self.refuse(client, why) }
                return
            }
            let key = wanted.isEmpty || shared.participants[wanted] == nil ? DocumentHost.newKey() : wanted
            let p = shared.join(key: key, name: chosen)
            let welcome = Wire.welcome(name: p.name, session: key, host: options.name, done: p.lastRequest,
                                       results: shared.outcomes(of: key, after: replied), recovered: recovered)
            // The document goes out as the connection takes it, from a copy made now (a value: it costs
            // memory only as the host's document changes meanwhile).
            let snapshot = DocumentSnapshot.Writer(shared.session.document, seq: shared.seq)
            var lines = [Wire.reply(id: nil, SharedDocument.Outcome(), view: p.view)]
            if transport.playing { lines.append(Wire.transport(transport)) }
            let after = lines
            log("\(p.name) joined (\(peer))")
            io.async { [self] in
                // A participant coming back takes over from a connection the host has not yet seen break.
                for (id, other) in clients where other.key == key && other !== client {
                    other.key = nil
                    other.connection.close()
                    clients[id] = nil
                }
                guard client.connection.isOpen else { return }
                client.key = key
                client.judging = false
                client.connection.maxOutbox = options.participantOutbox
                client.connection.window = Wire.window
                client.connection.send(welcome)
                client.connection.send(stream: Wire.snapshot(snapshot))
                for line in after { client.connection.send(line) }
                client.connection.onOverflow = { [weak self, weak client] in
                    guard let self, let client else { return }
                    self.overflowed(client)
                }
                client.connection.hold(false)
            }
            broadcastPresence()
        }
    }

    private func refuse(_ client: Client, _ why: String) {
        client.connection.stopReading()
        client.connection.send(Wire.error(why))
        client.connection.finish(timeout: 0.5)
    }

    /// A participant that cannot keep up: what was queued for it is dropped, and once it has taken what is
    /// on its socket it gets the whole document again (the others are not held up).
    private func overflowed(_ client: Client) {
        guard !client.resyncing else { return }
        client.resyncing = true
        log("\(client.connection.peer) fell behind by more than \(options.participantOutbox >> 20) MiB: sending it the whole document again")
        resync(client)
    }

    /// The whole document goes out once the peer has taken everything: what was queued here and what the
    /// kernel still holds for it (a peer that never reads is not sent one snapshot after another).
    private func resync(_ client: Client) {
        guard client.connection.isOpen else { return }
        if client.connection.pending > 0 || client.connection.streaming || DocumentHost.unsent(client.connection.fd) > 0 {
            io.asyncAfter(deadline: .now() + .milliseconds(50)) { [weak self, weak client] in
                guard let self, let client else { return }
                self.resync(client)
            }
            return
        }
        queue.async { [self] in
            let snapshot = DocumentSnapshot.Writer(shared.session.document, seq: shared.seq)
            io.async {
                client.resyncing = false
                client.connection.send(stream: Wire.snapshot(snapshot))
            }
        }
    }

    /// Bytes the kernel holds for a socket's peer, not yet taken by it (0 when unknown).
    static func unsent(_ fd: Int32) -> Int {
        var n: Int32 = 0
        return ioctl(fd, UInt(TIOCOUTQ), &n) == 0 ? Int(n) : 0
    }

    /// A connection that sends anything but hello first is closed: until it is known, it gets nothing else.
    private func stranger(_ client: Client) {
        log("closed \(client.connection.peer): it did not say hello first")
        refuse(client, "say hello first: {\"hello\":1,\"name\":\"NAME\"}")
    }

    private func run(_ text: String, id: Int?, view: JSONMessage?, from client: Client) {
        guard let key = client.key else { return stranger(client) }
        client.inFlight += 1
        if client.inFlight >= DocumentHost.maxInFlight { client.connection.hold(true) }
        queue.async { [self] in
            if let view { shared.updateView(of: key, from: view) }
            // A change is answered only once it is in the journal; one that cannot be written there is taken
            // back and refused, and nobody else hears of it.
            let who = shared.participants[key]?.name ?? ""
            let keep: ((SharedDocument.Outcome) -> String?)? = journal.map { journal in
                { [self] outcome in
                    do {
                        try journal.append(key: key, name: who, id: id, deltas: outcome.deltas)
                        return nil
                    } catch {
                        log("\(error): refused \(who)'s change (\(DocumentHost.firstWord(text))), nothing changed")
                        return DocumentHost.journalRefusal(error)
                    }
                }
            }
            let outcome = shared.run(text, by: key, id: id, keep: keep)
            let deltaLines = outcome.deltas.map(Wire.delta)
            let reply = Wire.reply(id: id, outcome, view: outcome.viewChanged ? shared.participants[key]?.view : nil)
            io.async { [self] in
                for line in deltaLines {
                    for c in clients.values where c.key != nil && !c.resyncing { c.connection.send(line) }
                }
                client.connection.send(reply)
                client.inFlight -= 1
                if client.inFlight < DocumentHost.maxInFlight / 2 { client.connection.hold(false) }
            }
            if !outcome.deltas.isEmpty {
                onChange?(shared.session)
                follow()
            } else if outcome.error == nil {
                restartJournalIfSaved()
            }
            if outcome.viewChanged { broadcastPresence() }
        }
    }

    /// The line a participant is refused with when the host cannot journal their change: the reason (a full
    /// disk, a file-size limit), not the host's paths.
    static func journalRefusal(_ error: Error) -> String {
        let reason = (error as? Journal.WriteFailure)?.reason ?? "\(error)"
        return "the host cannot write its journal (\(reason)): the change was not made"
    }

    /// The command's first word, for the log.
    static func firstWord(_ line: String) -> String {
        String(line.split(separator: " ").first ?? "")
    }

    /// After a `save` of the shared file, the journal starts again from what is in it.
    private func restartJournalIfSaved() {
        guard let journal, journal.count > 0, !shared.session.isModified, let path = shared.session.path,
              let data = FileManager.default.contents(atPath: path) else { return }
        do {
            try journal.restart(fileBytes: [UInt8](data), loaded: shared.session.document)
        } catch {
            log("\(error)")
        }
    }

    // MARK: - The document queue

    /// Starts everyone playing from the start a moment from now (`SharedTransport.lead`), or stops everyone.
    private func play(_ on: Bool) {
        let now = monotonicSeconds()
        var t = transport
        if on {
            t.start += 1
            t.at = now + SharedTransport.lead
            t.music = 0
            (t.rate, t.span) = SharedTransport.pace(of: shared.session.document)
        } else {
            t.music = t.music(atHost: now)
            t.at = now
        }
        t.playing = on
        transport = t
        broadcast(Wire.transport(t))
        log(on ? "playing from the start" : "stopped")
    }

    /// After a change: when it changed the pace (tempo, loop, song), the music goes on from where it is now at
    /// the new pace, and everyone is told.
    private func follow() {
        guard transport.playing else { return }
        let (rate, span) = SharedTransport.pace(of: shared.session.document)
        guard rate != transport.rate || span != transport.span else { return }
        let now = monotonicSeconds()
        var t = transport
        if now > t.at {
            t.music = t.music(atHost: now)
            t.at = now
        } else {
            // Not started yet: the start stays where it was announced.
            t.music = 0
        }
        t.rate = rate
        t.span = span
        transport = t
        broadcast(Wire.transport(t))
    }

    private func broadcast(_ line: String) {
        io.async { [self] in
            for c in clients.values where c.key != nil && !c.resyncing { c.connection.send(line) }
        }
    }

    private func broadcastPresence() {
        let people = shared.present.map { ($0.name, $0.view.cursor, $0.view.currentTrack) }
        broadcast(Wire.presence(people))
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

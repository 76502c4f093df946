import Dispatch
import TemperaCore
#if canImport(Glibc)
import Glibc
#endif

/// Hosts a shared document over TCP: accepts participants, runs their commands on the `SharedDocument`, and
/// sends each change to everyone in the host's order. Everything happens on one serial Dispatch queue, so the
/// document never needs a lock; a participant that floods, sends garbage or stops reading only ever slows or
/// loses its own connection.
///
/// - Warning: create it and call it from any thread; it does its work on `queue`.
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

        public init() {}
    }

    public let queue = DispatchQueue(label: "tempera.host")
    public let options: Options
    /// The port actually listened on (useful with port 0).
    public let port: Int
    /// Where the host says what it refused and who came and went (one line each).
    public var log: @Sendable (String) -> Void = { _ in }
    /// Called on `queue` after every change (autosave hooks here).
    public var onChange: ((Session) -> Void)?

    let shared: SharedDocument
    private let listenFD: Int32
    private let acceptSource: DispatchSourceRead
    private var clients: [ObjectIdentifier: Client] = [:]
    private var nextGuest = 1
    private let loopbackOnly: Bool
    /// What everyone plays by.
    public private(set) var transport = SharedTransport()

    /// A connected participant: its connection and, once it said hello, its key.
    final class Client {
        let connection: LineConnection
        var key: String?
        var lastPresence: (Double, Int)?
        init(_ c: LineConnection) { connection = c }
    }

    /// Listens at once; throws a one-line error when it cannot (address taken, no token for a non-local
    /// address).
    public init(session: Session, options: Options) throws {
        self.options = options
        shared = SharedDocument(session: session)
        let (fd, port, loopback) = try Sockets.listen(host: options.listen, port: options.port)
        if !loopback && (options.token ?? "").isEmpty {
            close(fd)
            throw NetError("listening on \(options.listen) needs --token: anyone who can reach it could edit")
        }
        listenFD = fd
        self.port = port
        loopbackOnly = loopback
        acceptSource = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        acceptSource.setEventHandler { [weak self] in self?.accept() }
        acceptSource.setCancelHandler { close(fd) }
        acceptSource.resume()
    }

    /// Runs `body` on the host's queue with the shared document's session, and waits for it.
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
        queue.sync {
            acceptSource.cancel()
            for c in clients.values { c.connection.finish(timeout: 0.5) }
        }
    }

    private func accept() {
        while true {
            var storage = sockaddr_storage()
            var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listenFD, $0, &len) }
            }
            if fd < 0 { return }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let family = Int32(storage.ss_family)
            let peer = withUnsafeBytes(of: &storage) { Sockets.describe($0.baseAddress!, family: family) }
            let connection = LineConnection(fd: fd, queue: queue, maxLine: Wire.maxRequestLine, peer: peer)
            let client = Client(connection)
            let id = ObjectIdentifier(client)
            clients[id] = client
            connection.onInput = { [weak self, weak client] (input: LineConnection.Input) in
                guard let self, let client else { return }
                self.handle(input, from: client)
            }
            connection.onClose = { [weak self] in self?.closed(id) }
            connection.start()
        }
    }

    private func closed(_ id: ObjectIdentifier) {
        guard let client = clients.removeValue(forKey: id) else { return }
        if let key = client.key {
            // Another connection may have taken the participant over already (a reconnect before the old one
            // was noticed as gone).
            if !clients.values.contains(where: { $0.key == key }) { shared.leave(key: key) }
            log("\(shared.participants[key]?.name ?? key) left (\(client.connection.peer))")
            broadcastPresence()
        }
    }

    private func handle(_ input: LineConnection.Input, from client: Client) {
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
                run(text, id: nil, from: client)
            }
        }
    }

    private func handle(_ m: JSONMessage, from client: Client) {
        if m["hello"] != nil { return hello(m, from: client) }
        if let t = m["ping"]?.number {
            client.connection.send(Wire.pong(t, host: monotonicSeconds()))
            return
        }
        if let on = m["play"]?.bool {
            guard client.key != nil else {
                client.connection.send(Wire.error("say hello first: {\"hello\":1,\"name\":\"NAME\"}"))
                return
            }
            return play(on)
        }
        if let v = m["view"], let key = client.key {
            shared.updateView(of: key, from: v)
            if m["run"] == nil {
                broadcastPresence()
                return
            }
        }
        if let text = m["run"]?.string {
            let id = m["id"]?.int
            if let id, id < 1 {
                client.connection.send(Wire.error("a request id counts from 1"))
                return
            }
            return run(text, id: id, from: client)
        }
        log("refused a message it does not know from \(client.connection.peer): \(m.keys)")
        client.connection.send(Wire.error("unknown message (known: hello, run, view, ping)"))
    }

    private func hello(_ m: JSONMessage, from client: Client) {
        guard client.key == nil else {
            client.connection.send(Wire.error("already said hello"))
            return
        }
        if let token = options.token, !token.isEmpty, m["token"]?.string != token {
            log("refused \(client.connection.peer): wrong or missing token")
            client.connection.send(Wire.error("wrong or missing token"))
            client.connection.finish()
            return
        }
        var name = m["name"]?.string ?? ""
        if name.isEmpty || name.count > 40 || name.contains(where: { $0.isNewline }) {
            name = "guest\(nextGuest)"
            nextGuest += 1
        }
        let replied = m["replied"]?.int ?? 0
        var key = m["session"]?.string ?? ""
        if key.isEmpty || shared.participants[key] == nil { key = DocumentHost.newKey() }
        // A participant coming back takes over from a connection the host has not yet seen break.
        for (id, other) in clients where other.key == key && other !== client {
            other.key = nil
            other.connection.close()
            clients[id] = nil
        }
        client.key = key
        let p = shared.join(key: key, name: name)
        client.connection.send(Wire.welcome(name: p.name, session: key, host: options.name, done: p.lastRequest,
                                            results: shared.outcomes(of: key, after: replied)))
        client.connection.send(Wire.snapshot(shared.session.document, seq: shared.seq))
        client.connection.send(Wire.reply(id: nil, SharedDocument.Outcome(), view: p.view))
        if transport.playing { client.connection.send(Wire.transport(transport)) }
        log("\(p.name) joined (\(client.connection.peer))")
        broadcastPresence()
    }

    private func run(_ text: String, id: Int?, from client: Client) {
        guard let key = client.key else {
            client.connection.send(Wire.error("say hello first: {\"hello\":1,\"name\":\"NAME\"}"))
            return
        }
        let outcome = shared.run(text, by: key, id: id)
        for d in outcome.deltas {
            let line = Wire.delta(d)
            for c in clients.values where c.key != nil { c.connection.send(line) }
        }
        client.connection.send(Wire.reply(id: id, outcome, view: outcome.viewChanged ? shared.participants[key]?.view : nil))
        if !outcome.deltas.isEmpty {
            onChange?(shared.session)
            follow()
        }
        if outcome.viewChanged { broadcastPresence() }
    }

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
        for c in clients.values where c.key != nil { c.connection.send(line) }
    }

    private func broadcastPresence() {
        let people = shared.present.map { ($0.name, $0.view.cursor, $0.view.currentTrack) }
        let line = Wire.presence(people)
        for c in clients.values where c.key != nil { c.connection.send(line) }
    }

    /// A participant's key: 96 bits from the system's random source, in hex.
    static func newKey() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<3).map { _ in String(UInt32.random(in: .min ... .max, using: &g), radix: 16) }.joined(separator: "-")
    }
}

import Dispatch
import Foundation
import TemperaCore
#if canImport(Glibc)
import Glibc
#endif

extension DocumentHost {
    // MARK: - Connections (io queue)

    func accept() {
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
    func pauseAccepting(why: String) {
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

    func add(fd: Int32, peer: String, address: String) {
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

    func closed(_ id: ObjectIdentifier) {
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

    func handle(_ input: LineConnection.Input, from client: Client) {
        guard !client.judging else { return }
        if client.key != nil { charge(client) }
        switch input {
        case .tooLong(let n):
            logRefusal(client, "refused a line of more than \(Limits.count(n)) bytes from \(client.connection.peer)")
            client.connection.send(Wire.error("line too long: the limit is \(Wire.maxRequestLine) bytes"))
        case .line(let bytes):
            guard !bytes.isEmpty else { return }
            let message: ParticipantMessage
            do {
                message = try ParticipantMessage.read(bytes)
            } catch {
                logRefusal(client, "refused \(error) from \(client.connection.peer)")
                client.connection.send(Wire.error("\(error)"))
                return
            }
            handle(message, from: client)
        }
    }

    func handle(_ m: ParticipantMessage, from client: Client) {
        if case .hello(let h) = m { return hello(h, from: client) }
        guard client.key != nil else { return stranger(client) }
        switch m {
        case .hello: break
        case .ping(let t): client.connection.sendUrgent(Wire.pong(t, host: monotonicSeconds()))
        case .got(let n): client.connection.acknowledged(n)
        case .play(let on):
            client.pendingPlay = on
            flushSoon(client)
        case .view(let v):
            client.pendingView = v
            flushSoon(client)
        case .run(let text, let id, let view):
            // A view still waiting is older than the request: it goes first (or is overtaken by the request's own).
            let latest = view ?? client.pendingView
            client.pendingView = nil
            run(text, id: id, view: latest, from: client)
        }
    }

    func hello(_ m: ParticipantMessage.Hello, from client: Client) {
        guard client.key == nil else {
            client.connection.send(Wire.error("already said hello"))
            return
        }
        guard m.version == Wire.version else {
            let v = m.version.map(String.init) ?? "unknown"
            log("refused \(client.connection.peer): it speaks protocol \(v), not \(Wire.version)")
            return refuse(client, "this host speaks protocol \(Wire.version) and the participant \(v): run the same "
                + "version of tempera on both sides")
        }
        // After three wrong tokens from an address, each further try within a second more (at most 30 s) of
        // the last is refused at once: nothing waits, so tries at once are not queued one after another and
        // never hold connections that others need.
        let now = monotonicSeconds()
        if let token = options.token, !token.isEmpty, let f = failures[client.address], now < f.next {
            let wait = Int((f.next - now).rounded(.up))
            logRefusal(client, "refused \(client.connection.peer): too many wrong tokens from \(client.address)")
            return refuse(client, "too many wrong tokens from this address: try again in \(wait) s")
        }
        client.judging = true
        client.connection.hold(true)
        judge(m, from: client)
    }

    /// Checks a hello's token and name and, when they pass, joins the participant on the document queue.
    func judge(_ m: ParticipantMessage.Hello, from client: Client) {
        if let token = options.token, !token.isEmpty {
            guard DocumentHost.sameBytes(m.token, token) else {
                let f = failures[client.address] ?? (0, 0)
                let count = f.count + 1
                failures[client.address] = (count, count >= 3 ? monotonicSeconds() + min(30, Double(count - 2)) : 0)
                if failures.count > 10_000 { failures = failures.filter { $0.value.count >= 3 } }
                log("refused \(client.connection.peer): wrong or missing token")
                return refuse(client, "wrong or missing token")
            }
            failures[client.address] = nil
        }
        var name = m.name
        if name.isEmpty || name.count > ParticipantMessage.maxName {
            name = "guest\(nextGuest)"
            nextGuest += 1
        }
        let chosen = name
        let replied = m.replied
        let wanted = m.session
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
                client.updateHold()
            }
            broadcastPresence()
        }
    }

    func refuse(_ client: Client, _ why: String) {
        client.connection.stopReading()
        client.connection.send(Wire.error(why))
        client.connection.finish(timeout: 0.5)
    }

    /// A participant that cannot keep up: what was queued for it is dropped, and once it has taken what is
    /// on its socket it gets the whole document again (the others are not held up).
    func overflowed(_ client: Client) {
        guard !client.resyncing else { return }
        client.resyncing = true
        log("\(client.connection.peer) fell behind by more than \(options.participantOutbox >> 20) MiB: sending it the whole document again")
        resync(client)
    }

    /// The whole document goes out once the peer has taken everything: what was queued here and what the
    /// kernel still holds for it (a peer that never reads is not sent one snapshot after another).
    func resync(_ client: Client) {
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
    func stranger(_ client: Client) {
        log("closed \(client.connection.peer): it did not say hello first")
        refuse(client, "say hello first: {\"hello\":\(Wire.version),\"name\":\"NAME\"}")
    }

    /// Takes one message from a participant's allowance; past it, reading from the participant pauses until the
    /// allowance has grown back to a message.
    func charge(_ client: Client) {
        let now = monotonicSeconds()
        client.allowance = min(DocumentHost.messageBurst,
                               client.allowance + (now - client.refilled) * DocumentHost.messagesPerSecond)
        client.refilled = now
        client.allowance -= 1
        guard client.allowance < 0, !client.heldForRate else { return }
        client.heldForRate = true
        client.updateHold()
        let wait = (1 - client.allowance) / DocumentHost.messagesPerSecond
        io.asyncAfter(deadline: .now() + wait) { [weak client] in
            guard let client else { return }
            client.heldForRate = false
            client.updateHold()
        }
    }

    /// Takes the participant's latest view and play to the document queue a moment from now (once, however many
    /// arrive meanwhile).
    func flushSoon(_ client: Client) {
        guard !client.flushDue else { return }
        client.flushDue = true
        io.asyncAfter(deadline: .now() + DocumentHost.coalesceSeconds) { [weak self, weak client] in
            guard let self, let client else { return }
            client.flushDue = false
            let view = client.pendingView, play = client.pendingPlay
            client.pendingView = nil
            client.pendingPlay = nil
            guard let key = client.key else { return }
            queue.async { [self] in
                if let view {
                    do {
                        if try shared.updateView(of: key, from: view) { presenceDue() }
                    } catch {
                        io.async { [self] in
                            logRefusal(client, "refused a view from \(client.connection.peer): \(error)")
                            client.connection.send(Wire.error("view refused: \(error)"))
                        }
                    }
                }
                if let play { self.play(play) }
            }
        }
    }

    /// Logs a refusal, at most `loggedRefusals` a connection: one participant's garbage does not fill the log.
    func logRefusal(_ client: Client, _ line: String) {
        client.refusalsLogged += 1
        if client.refusalsLogged <= DocumentHost.loggedRefusals {
            log(line)
        } else if client.refusalsLogged == DocumentHost.loggedRefusals + 1 {
            log("further refusals from \(client.connection.peer) are not logged")
        }
    }
}

import Dispatch
import Foundation
import TemperaCore
#if canImport(Glibc)
import Glibc
#endif

extension DocumentHost {
    func run(_ text: String, id: Int?, view: JSONMessage?, from client: Client) {
        guard let key = client.key else { return stranger(client) }
        client.inFlight += 1
        if client.inFlight >= DocumentHost.maxInFlight {
            client.heldForFlight = true
            client.updateHold()
        }
        queue.async { [self] in
            if let view {
                do {
                    try shared.updateView(of: key, from: view)
                } catch {
                    // The request is refused whole: it would run at a cursor or on a track outside the limits.
                    let reply = Wire.reply(id: id, SharedDocument.Outcome(error: "view refused: \(error)"), view: nil)
                    io.async {
                        client.connection.send(reply)
                        self.answered(client)
                    }
                    return
                }
            }
            // A change is answered only once it is in the journal; one that cannot be written there is taken
            // back and refused, and nobody else hears of it.
            let who = shared.participants[key]?.name ?? ""
            // Each change is encoded once, for the journal and for everyone's line.
            var changes: [String]?
            let keep: ((SharedDocument.Outcome) -> String?)? = journal.map { journal in
                { [self] outcome in
                    do {
                        changes = outcome.deltas.map { $0.change.encoded() }
                        try journal.append(key: key, name: who, id: id, deltas: outcome.deltas, changes: changes)
                        return nil
                    } catch {
                        log("\(error): refused \(who)'s change (\(DocumentHost.firstWord(text))), nothing changed")
                        return DocumentHost.journalRefusal(error)
                    }
                }
            }
            let outcome = shared.run(text, by: key, id: id, keep: keep)
            let deltaLines = outcome.deltas.indices.map { Wire.delta(outcome.deltas[$0], change: changes?[$0]) }
            let view = outcome.viewChanged ? shared.participants[key]?.view : nil
            // A reply selecting many markers goes out in pieces as the connection takes them, like a document.
            let selected = view?.selection.values.reduce(0) { $0 + $1.count } ?? 0
            let reply = selected > Wire.streamedSelection ? nil : Wire.reply(id: id, outcome, view: view)
            let pieces = reply == nil ? view.map { Wire.ReplyWriter(id: id, outcome, view: $0) } : nil
            io.async { [self] in
                for line in deltaLines {
                    for c in clients.values where c.key != nil && !c.resyncing { c.connection.send(line) }
                }
                if let reply { client.connection.send(reply) }
                if let pieces { client.connection.send(stream: Wire.stream(pieces)) }
                answered(client)
            }
            if !outcome.deltas.isEmpty {
                onChange?(shared.session)
                follow()
            } else if outcome.error == nil {
                restartJournalIfSaved()
            }
            if outcome.viewChanged { presenceDue() }
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
    func restartJournalIfSaved() {
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
    func play(_ on: Bool) {
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
        // Not logged: a participant may start and stop as often as it likes, and the log is for what went wrong.
        broadcast(Wire.transport(t))
    }

    /// After a change: when it changed the pace (tempo, loop, song), the music goes on from where it is now at
    /// the new pace, and everyone is told.
    func follow() {
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

    func broadcast(_ line: String) {
        io.async { [self] in
            for c in clients.values where c.key != nil && !c.resyncing { c.connection.send(line) }
        }
    }

    /// One of this participant's requests was answered (io queue): its reading goes on once few wait.
    func answered(_ client: Client) {
        client.inFlight -= 1
        if client.inFlight < DocumentHost.maxInFlight / 2, client.heldForFlight {
            client.heldForFlight = false
            client.updateHold()
        }
    }

    /// Someone moved: everyone is told where everyone is a moment from now (once, however many move meanwhile).
    func presenceDue() {
        guard !presenceScheduled else { return }
        presenceScheduled = true
        queue.asyncAfter(deadline: .now() + DocumentHost.coalesceSeconds) { [weak self] in
            guard let self else { return }
            presenceScheduled = false
            broadcastPresence()
        }
    }

    func broadcastPresence() {
        let people = shared.present.map { ($0.name, $0.view.cursor, $0.view.currentTrack) }
        broadcast(Wire.presence(people))
    }
}

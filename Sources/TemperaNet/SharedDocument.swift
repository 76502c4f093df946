import TemperaCore

/// The host's side of a shared document, without the network: one document and one history (a `Session`),
/// and for each participant their own cursor, selection, modes and chosen clip, and their own undo and redo.
///
/// A participant's command runs against their own state; a change becomes a numbered `Delta` for everyone, a
/// refusal an error for the sender only, with the line the editor would show. `undo` takes back the
/// participant's own last step when everything it touched is as that step left it; otherwise it names who
/// changed it since.
///
/// - Warning: one thread at a time (the host's queue).
public final class SharedDocument {
    /// A change for every participant, numbered from 1 in the order the host made them.
    public struct Delta: Sendable {
        public var seq: Int
        /// The participant whose command made it.
        public var by: String
        /// The step's name ("shift", "undo fill"...).
        public var name: String
        public var change: DocumentDelta
    }

    /// What one request did.
    public struct Outcome: Sendable {
        /// The message for the sender (nil: nothing to say).
        public var message: String?
        /// Why the command was refused, in the one line the editor would show.
        public var error: String?
        /// The changes it made, in order (usually none or one).
        public var deltas: [Delta] = []
        /// The sender's own state changed (cursor, selection, track, modes).
        public var viewChanged = false
    }

    /// One participant's own state on the host.
    public struct Participant {
        public let key: String
        public var name: String
        public var view: Session.View
        var undo: [History.Step] = []
        var redo: [History.Step] = []
        /// The id of the last request run for them (requests carry increasing ids; a repeat is not run twice).
        public var lastRequest = 0
        /// Outcomes of their latest requests, by id, so a participant whose connection broke learns what became
        /// of requests whose answers it missed.
        var recent: [(id: Int, outcome: Outcome)] = []
        public var connected = true
    }

    /// The document and its one history.
    public let session: Session
    /// The number of the last change.
    public private(set) var seq = 0
    public private(set) var participants: [String: Participant] = [:]
    /// Who last changed each part of the document, to say who is in the way of an undo.
    private var authors: [History.Part: String] = [:]
    private var head: [UInt8]
    /// Outcomes kept per participant for a reconnect.
    static let recentLimit = 4096
    /// Whether participants may `save PATH` (write files on the host's machine): only the host's own editor.
    public var localKeys: Set<String> = []

    public init(session: Session) {
        self.session = session
        head = DocumentDelta.headText(of: session.document)
    }

    /// Adds a participant (or finds one that is coming back with its key) and returns it.
    @discardableResult
    public func join(key: String, name: String) -> Participant {
        if var p = participants[key] {
            p.name = name
            p.connected = true
            participants[key] = p
            return p
        }
        let seed = session.document.seed ^ UInt64(truncatingIfNeeded: key.hashValue)
        let p = Participant(key: key, name: uniqueName(name), view: Session.View(random: SeededRandom(seed: seed)))
        participants[key] = p
        return p
    }

    /// Marks a participant as gone (their state stays, for a reconnect).
    public func leave(key: String) {
        participants[key]?.connected = false
    }

    /// The names of the participants connected now, in joining order of their keys.
    public var present: [Participant] {
        participants.values.filter(\.connected).sorted { $0.key < $1.key }
    }

    private func uniqueName(_ wanted: String) -> String {
        let base = wanted.isEmpty ? "guest" : wanted
        let taken = Set(participants.values.map(\.name))
        if !taken.contains(base) { return base }
        var n = 2
        while taken.contains("\(base)\(n)") { n += 1 }
        return "\(base)\(n)"
    }

    /// Takes a participant's own state as they report it (their editor moves the cursor and selects locally).
    public func updateView(of key: String, from message: JSONMessage) {
        guard var p = participants[key] else { return }
        Wire.read(view: message, into: &p.view)
        participants[key] = p
    }

    /// Outcomes of the participant's requests with ids after `id` (what a reconnecting participant missed).
    public func outcomes(of key: String, after id: Int) -> [(id: Int, outcome: Outcome)] {
        participants[key]?.recent.filter { $0.id > id } ?? []
    }

    /// Runs one line of the command language for a participant. `id` (when the participant numbers its
    /// requests) must grow; a request already run is not run again, and its kept outcome is returned.
    public func run(_ line: String, by key: String, id: Int? = nil) -> Outcome {
        guard var p = participants[key] else { return Outcome(error: "unknown participant") }
        if let id {
            if id <= p.lastRequest {
                return p.recent.first { $0.id == id }?.outcome ?? Outcome(error: "request \(id) was already run")
            }
            p.lastRequest = id
        }
        var outcome = Outcome()
        do {
            if let command = try CommandParser.parse(line) {
                outcome = try execute(command, for: &p)
            }
        } catch let error as CommandError {
            outcome.error = error.description
        } catch {
            outcome.error = "\(error)"
        }
        if let id {
            p.recent.append((id, outcome))
            if p.recent.count > SharedDocument.recentLimit { p.recent.removeFirst(p.recent.count - SharedDocument.recentLimit) }
        }
        participants[key] = p
        return outcome
    }

    private func execute(_ command: Command, for p: inout Participant) throws -> Outcome {
        var outcome = Outcome()
        // Undo and redo are each participant's own; save writes the shared file.
        if let undo = command.as(Command.Undo.self) {
            guard undo.count >= 1 else { throw CommandError("undo needs a count of at least 1") }
            return try self.undo(undo.count, for: &p)
        }
        if let redo = command.as(Command.Redo.self) {
            guard redo.count >= 1 else { throw CommandError("redo needs a count of at least 1") }
            return try self.redo(redo.count, for: &p)
        }
        if let save = command.as(Command.Save.self) {
            if save.path != nil, !localKeys.contains(p.key) {
                throw CommandError("only the host saves elsewhere: 'save' writes the shared file")
            }
            outcome.message = try session.save(to: save.path)
            return outcome
        }
        if command.spec.flags.contains(.refusedWhenShared) {
            throw CommandError("\(command.spec.head) is not available on a shared document")
        }
        let before = session.view
        session.view = p.view
        defer {
            p.view = session.view
            session.view = before
        }
        let steps = session.history.undoSteps.count
        let oldView = p.view
        outcome.message = try session.run(command)
        if session.history.undoSteps.count > steps, let step = session.lastStep {
            p.undo.append(step)
            p.redo.removeAll()
            outcome.deltas.append(record(step, by: p.name))
        }
        outcome.viewChanged = !Self.sameView(oldView, session.view)
        return outcome
    }

    private func undo(_ k: Int, for p: inout Participant) throws -> Outcome {
        guard !p.undo.isEmpty else { throw CommandError("nothing to undo") }
        var outcome = Outcome()
        var names: [String] = []
        while names.count < k, let step = p.undo.last {
            do {
                try session.revert(step, as: "undo \(step.name)")
            } catch let conflict as History.Conflict {
                let why = blame(conflict.part, step: step, undoing: true, by: p.name)
                if names.isEmpty { throw CommandError(why) }
                outcome.message = "undid \(names.count) step\(names.count == 1 ? "" : "s"); \(why)"
                return outcome
            }
            p.undo.removeLast()
            p.redo.append(step)
            names.append(step.name)
            if let done = session.lastStep { outcome.deltas.append(record(done, by: p.name)) }
        }
        outcome.message = names.count == 1 ? "undid \(names[0])" : "undid \(names.count) steps"
        return outcome
    }

    private func redo(_ k: Int, for p: inout Participant) throws -> Outcome {
        guard !p.redo.isEmpty else { throw CommandError("nothing to redo") }
        var outcome = Outcome()
        var names: [String] = []
        while names.count < k, let step = p.redo.last {
            do {
                try session.reapply(step, as: step.name)
            } catch let conflict as History.Conflict {
                let why = blame(conflict.part, step: step, undoing: false, by: p.name)
                if names.isEmpty { throw CommandError(why) }
                outcome.message = "redid \(names.count) step\(names.count == 1 ? "" : "s"); \(why)"
                return outcome
            }
            p.redo.removeLast()
            // The step as redone (what undo must find later) is the new one the history recorded.
            p.undo.append(session.lastStep ?? step)
            names.append(step.name)
            if let done = session.lastStep { outcome.deltas.append(record(done, by: p.name)) }
        }
        outcome.message = names.count == 1 ? "redid \(names[0])" : "redid \(names.count) steps"
        return outcome
    }

    /// "cannot undo shift: bo changed it since".
    private func blame(_ part: History.Part, step: History.Step, undoing: Bool, by me: String) -> String {
        let what = "cannot \(undoing ? "undo" : "redo") \(step.name)"
        if let who = authors[part], who != me { return "\(what): \(who) changed it since" }
        return "\(what): it has changed since"
    }

    /// Numbers a step the history just recorded and turns it into the change everyone applies.
    private func record(_ step: History.Step, by name: String) -> Delta {
        let newHead = DocumentDelta.headText(of: session.document)
        let change = DocumentDelta(step: step, after: session.document, headChanged: newHead != head)
        head = newHead
        for part in step.parts { authors[part] = name }
        seq += 1
        return Delta(seq: seq, by: name, name: step.name, change: change)
    }

    static func sameView(_ a: Session.View, _ b: Session.View) -> Bool {
        a.cursor == b.cursor && a.currentTrack == b.currentTrack && a.selection == b.selection && a.clipMode == b.clipMode
            && a.snap == b.snap && a.chosenClip == b.chosenClip && a.subdivision == b.subdivision
    }
}

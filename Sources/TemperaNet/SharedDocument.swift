import Foundation
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
        var undo = ChunkedList<History.Step>()
        var redo = ChunkedList<History.Step>()
        /// The bytes the steps in `undo` cost together (`History.Step.bytes`), kept as it changes.
        var undoBytes = 0
        /// The id of the last request run for them (requests carry increasing ids; a repeat is not run twice).
        public var lastRequest = 0
        /// Outcomes of their latest requests, by id, so a participant whose connection broke learns what became
        /// of requests whose answers it missed.
        var recent = ChunkedList<(id: Int, outcome: Outcome)>()
        /// The marker records the changes in `recent` hold, and the first of `recent` that may still hold some:
        /// kept as they change, so a request costs the same with 4,096 outcomes kept as with none.
        var recentHeld = 0
        var firstHeld = 0
        public var connected = true
        /// When they left (monotonic seconds), while they are remembered for a reconnect.
        var leftAt: Double?
    }

    /// The most markers one shared command may touch (add, move, remove, change): about a tenth of a second
    /// of the host's work, so no participant's command holds up the others for long.
    public static let maxTouched = 100_000
    /// How long a participant who left is remembered for a reconnect, and how many such are kept at most.
    public static let rememberSeconds = 600.0
    public static let rememberCount = 256

    /// The document and its one history.
    public let session: Session
    /// The number of the last change.
    public private(set) var seq = 0
    public private(set) var participants: [String: Participant] = [:]
    /// Who last changed each part of the document, to say who is in the way of an undo.
    private var authors: [History.Part: String] = [:]
    /// While a request's changes may still be taken back (`run`'s `keep`): the authors they replaced.
    private var authorsBefore: [(History.Part, String?)]?
    private var head: [UInt8]
    /// Outcomes kept per participant for a reconnect.
    static let recentLimit = 4096
    /// Whether participants may `save PATH` (write files on the host's machine): only the host's own editor.
    public var localKeys: Set<String> = []

    public init(session: Session) {
        self.session = session
        head = DocumentDelta.headText(of: session.document)
    }

    /// Names no participant may take, nor one that looks like them (the host's own name, `host`).
    public var reservedNames: Set<String> = []

    /// Why `name` cannot be the name of the participant with `key`, or nil when it can: a name holds no control
    /// characters (they would reach others' screens and the host's log), neither starts nor ends with a space,
    /// and does not look like a reserved name or a connected participant's: names are compared by their
    /// `skeleton`, so `аna` with a Cyrillic а, `ána` or `Ana` is not taken beside `ana`.
    /// (A participant who left keeps a claim to nothing: after a crash or a restart of their editor, the same
    /// person comes back under a new key with the same name.)
    public func nameProblem(_ name: String, key: String?) -> String? {
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format
            || $0.properties.generalCategory == .lineSeparator || $0.properties.generalCategory == .paragraphSeparator }) {
            return "a name may not hold control characters"
        }
        if let first = name.unicodeScalars.first, let last = name.unicodeScalars.last,
           first.properties.isWhitespace || last.properties.isWhitespace {
            return "a name may not start or end with a space"
        }
        let skeleton = SharedDocument.skeleton(name)
        if reservedNames.contains(where: { SharedDocument.skeleton($0) == skeleton }) {
            return "a name may not be, or look like, '\(reservedNames.first { SharedDocument.skeleton($0) == skeleton }!)': choose another (--name)"
        }
        if let other = participants.values.first(where: {
            $0.key != key && $0.connected && ($0.name == name || SharedDocument.skeleton($0.name) == skeleton)
        }) {
            return other.name == name ? "the name '\(name)' is taken: choose another (--name)"
                : "the name '\(name)' looks like '\(other.name)', who is here: choose another (--name)"
        }
        return nil
    }

    /// What a name looks like: compatibility-decomposed, lowercased, without combining marks or spaces, and with
    /// letters of other scripts that look like Latin ones (Cyrillic а, Greek ο) and look-alike digits taken as
    /// those Latin letters. Two names with one skeleton are too alike to tell apart on a screen.
    public static func skeleton(_ name: String) -> String {
        var out = String.UnicodeScalarView()
        for u in name.decomposedStringWithCompatibilityMapping.lowercased().unicodeScalars {
            switch u.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark, .spaceSeparator: continue
            default: break
            }
            if u.properties.isWhitespace { continue }
            out.append(lookAlikes[u.value].flatMap(Unicode.Scalar.init) ?? u)
        }
        return String(out)
    }

    /// Lowercase letters (and digits) that look like a Latin lowercase letter, by code point.
    static let lookAlikes: [UInt32: UInt32] = {
        let pairs: [(UInt32, Character)] = [
            // Cyrillic
            (0x0430, "a"), (0x0435, "e"), (0x043E, "o"), (0x0440, "p"), (0x0441, "c"), (0x0443, "y"), (0x0445, "x"),
            (0x0455, "s"), (0x0456, "i"), (0x0458, "j"), (0x04BB, "h"), (0x0501, "d"), (0x051B, "q"), (0x051D, "w"),
            (0x0432, "b"), (0x043A, "k"), (0x043C, "m"), (0x043D, "h"), (0x0442, "t"), (0x0457, "i"), (0x04CF, "l"),
            // Greek
            (0x03B1, "a"), (0x03BF, "o"), (0x03C1, "p"), (0x03BD, "v"), (0x03B9, "i"), (0x03BA, "k"), (0x03C5, "u"),
            (0x03C7, "x"), (0x03F2, "c"), (0x03C4, "t"), (0x03B5, "e"), (0x03B3, "y"),
            // Latin look-alikes and digits
            (0x0131, "i"), (0x0251, "a"), (0x0261, "g"), (0x0269, "i"), (0x026A, "i"), (0x0030, "o"), (0x0031, "l"),
            (0x0049, "l"), (0x007C, "l"),
        ]
        var table: [UInt32: UInt32] = [:]
        for (code, letter) in pairs { table[code] = letter.unicodeScalars.first!.value }
        return table
    }()

    /// Adds a participant (or finds one that is coming back with its key) and returns it.
    @discardableResult
    public func join(key: String, name: String) -> Participant {
        if var p = participants[key] {
            // Coming back: their name, unless someone connected has it meanwhile (then a numbered one).
            p.name = nameProblem(name, key: key) == nil ? name : uniqueName(name)
            p.connected = true
            p.leftAt = nil
            participants[key] = p
            return p
        }
        let seed = session.document.seed ^ UInt64(truncatingIfNeeded: key.hashValue)
        let p = Participant(key: key, name: uniqueName(name), view: Session.View(random: SeededRandom(seed: seed)))
        participants[key] = p
        return p
    }

    /// Marks a participant as gone (their state stays a while, for a reconnect); participants gone longer
    /// than `rememberSeconds`, or beyond the `rememberCount` most recent, are forgotten.
    public func leave(key: String, now: Double = 0) {
        participants[key]?.connected = false
        participants[key]?.leftAt = now
        forget(now: now)
    }

    /// Forgets participants gone too long, or too many.
    public func forget(now: Double) {
        var gone = participants.values.filter { !$0.connected }
        for p in gone where now - (p.leftAt ?? now) > SharedDocument.rememberSeconds { participants[p.key] = nil }
        gone = participants.values.filter { !$0.connected }
        // Trimmed in batches, so that each leave costs little.
        if gone.count > SharedDocument.rememberCount + 32 {
            for p in gone.sorted(by: { ($0.leftAt ?? 0) < ($1.leftAt ?? 0) }).prefix(gone.count - SharedDocument.rememberCount) {
                participants[p.key] = nil
            }
        }
    }

    /// Takes back what a journal held after a crash: the changes are already in the session's document; the
    /// change numbers go on from the last, and each participant is remembered with their last request, so a
    /// reconnecting participant is not sent again what was done.
    public func recover(_ entries: [Journal.Entry]) {
        for e in entries {
            if let last = e.deltas.last?.seq { seq = max(seq, last) }
            var p = participants[e.key] ?? Participant(key: e.key, name: e.name,
                                                        view: Session.View(random: SeededRandom(seed: session.document.seed)))
            p.connected = false
            p.leftAt = monotonicSeconds()
            if let id = e.id { p.lastRequest = max(p.lastRequest, id) }
            participants[e.key] = p
        }
        head = DocumentDelta.headText(of: session.document)
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

    /// Takes a participant's own state as they report it (their editor moves the cursor and selects locally);
    /// throws a one-line refusal, changing nothing, when a value is outside the limits. Returns whether the
    /// cursor or track moved (what the others see).
    @discardableResult
    public func updateView(of key: String, from message: JSONMessage) throws -> Bool {
        guard var p = participants[key] else { return false }
        let before = (p.view.cursor, p.view.currentTrack)
        try Wire.read(view: message, into: &p.view)
        participants[key] = p
        return before != (p.view.cursor, p.view.currentTrack)
    }

    /// The most marker records the changes kept with a participant's recent outcomes hold: older outcomes keep
    /// their answer only (the changes went to everyone already), so 4,096 changes of 100,000 markers do not
    /// hold gigabytes.
    static let recentMarkers = 4 * maxTouched

    /// The marker records an outcome's changes hold.
    static func markerRecords(_ outcome: Outcome) -> Int {
        outcome.deltas.reduce(0) { n, d in
            n + d.change.markers.reduce(0) { $0 + $1.put.count + $1.removed.count }
                + (d.change.whole?.tracks.reduce(0) { $0 + $1.markers.count } ?? 0)
        }
    }

    /// Keeps a participant's outcome for a reconnect: the latest `recentLimit`, and the changes of only the latest
    /// outcomes within `recentMarkers` records (older ones keep their answer; their changes went to everyone).
    static func keep(_ outcome: Outcome, id: Int, in p: inout Participant) {
        p.recent.append((id, outcome))
        p.recentHeld += markerRecords(outcome)
        if p.recent.count > recentLimit {
            if p.firstHeld == 0 { p.recentHeld -= markerRecords(p.recent[0].outcome) }
            p.recent.removeFirst(1)
            p.firstHeld = max(0, p.firstHeld - 1)
        }
        while p.recentHeld > recentMarkers && p.firstHeld < p.recent.count - 1 {
            p.recentHeld -= markerRecords(p.recent[p.firstHeld].outcome)
            p.recent[p.firstHeld].outcome.deltas = []
            p.firstHeld += 1
        }
    }

    /// Outcomes of the participant's requests with ids after `id` (what a reconnecting participant missed).
    public func outcomes(of key: String, after id: Int) -> [(id: Int, outcome: Outcome)] {
        participants[key]?.recent.filter { $0.id > id } ?? []
    }

    /// Runs one line of the command language for a participant. `id` (when the participant numbers its
    /// requests) must grow; a request already run is not run again, and its kept outcome is returned.
    ///
    /// `keep`, when given, is asked about a request that changed the document before anything is answered (the
    /// host writes the changes to its journal there): when it returns a line, the changes are taken back — the
    /// document, the change numbers, the participant's cursor, undo and redo are as before — and the request
    /// is refused with that line.
    public func run(_ line: String, by key: String, id: Int? = nil, keep: ((Outcome) -> String?)? = nil) -> Outcome {
        guard participants[key] != nil else { return Outcome(error: "unknown participant") }
        // The participant is changed where it is kept (a copy would make every request copy its undo list).
        return run(line, for: &participants[key]!, id: id, keep: keep)
    }

    private func run(_ line: String, for p: inout Participant, id: Int?, keep: ((Outcome) -> String?)?) -> Outcome {
        if let id {
            if id <= p.lastRequest {
                return p.recent.last { $0.id == id }?.outcome ?? Outcome(error: "request \(id) was already run")
            }
            p.lastRequest = id
        }
        // What taking the request back restores: the view, and the undo and redo lists as they were (the steps
        // the request moved between them are moved back; the redo list before is shared, not copied).
        let viewBefore = p.view, undoBefore = p.undo.count, redoBefore = p.redo
        let seqBefore = seq, headBefore = head
        authorsBefore = keep == nil ? nil : []
        defer { authorsBefore = nil }
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
        if !outcome.deltas.isEmpty, let keep, let refusal = keep(outcome) {
            // Each change was one step of the history, the last ones: undone, they leave no trace.
            _ = try? session.undo(outcome.deltas.count)
            seq = seqBefore
            head = headBefore
            for (part, author) in (authorsBefore ?? []).reversed() { authors[part] = author }
            while p.undo.count > undoBefore, let step = p.undo.popLast() { p.undoBytes -= step.bytes }
            for step in p.redo.suffix(undoBefore - p.undo.count).reversed() {
                p.undo.append(step)
                p.undoBytes += step.bytes
            }
            p.redo = redoBefore
            p.view = viewBefore
            outcome = Outcome(error: refusal)
        } else {
            // Kept: the oldest steps beyond the history's bound go.
            p.undoBytes -= History.trim(&p.undo, total: p.undoBytes, to: session.history.maxBytes)
        }
        if let id { SharedDocument.keep(outcome, id: id, in: &p) }
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
        if !localKeys.contains(p.key), let file = SharedDocument.outsideFile(command) {
            throw CommandError("\(file): a participant names files in the document's folder or the kit only "
                + "(relative, without '..', '~' or '/')")
        }
        if SharedDocument.touchesSelection(command) {
            let selected = p.view.selection.values.reduce(0) { $0 + $1.count }
            if selected > SharedDocument.maxTouched {
                throw CommandError("\(SharedDocument.verb(command)) would touch \(Limits.count(selected)) markers; a shared command touches "
                    + "at most \(Limits.count(SharedDocument.maxTouched))")
            }
        }
        if let pulse = command.as(Command.Pulse.self), pulse.count > SharedDocument.maxTouched {
            throw CommandError("pulse would add \(Limits.count(pulse.count)) markers; a shared command touches at most "
                + "\(Limits.count(SharedDocument.maxTouched))")
        }
        let before = session.view
        session.view = p.view
        defer {
            p.view = session.view
            session.view = before
        }
        let steps = session.history.recorded
        let oldView = p.view
        outcome.message = try session.run(command)
        if session.history.recorded > steps, let step = session.lastStep {
            let touched = SharedDocument.touched(by: step, in: session.document)
            if touched > SharedDocument.maxTouched {
                _ = try? session.undo(1)
                throw CommandError("\(SharedDocument.verb(command)) would touch \(Limits.count(touched)) markers; a shared command touches "
                    + "at most \(Limits.count(SharedDocument.maxTouched))")
            }
            p.undo.append(step)
            p.undoBytes += step.bytes
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
            p.undoBytes -= step.bytes
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
            let redone = session.lastStep ?? step
            p.undo.append(redone)
            p.undoBytes += redone.bytes
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
        if authorsBefore != nil {
            for part in step.parts { authorsBefore?.append((part, authors[part])) }
        }
        for part in step.parts { authors[part] = name }
        seq += 1
        return Delta(seq: seq, by: name, name: step.name, change: change)
    }

    /// The command's first word, for messages.
    static func verb(_ command: Command) -> String {
        String(command.text.split(separator: " ").first ?? "the command")
    }

    /// Commands that change every selected marker (flagged so in the command table).
    static func touchesSelection(_ command: Command) -> Bool { command.spec.flags.contains(.touchesSelection) }

    /// How many markers a step put or removed.
    static func touched(by step: History.Step, in document: Document) -> Int {
        let change = DocumentDelta(step: step, after: document, headChanged: false)
        if let whole = change.whole { return whole.tracks.reduce(0) { $0 + $1.markers.count } }
        return change.markers.reduce(0) { $0 + $1.put.count + $1.removed.count }
    }

    /// A file reference in a command that a remote participant may not give, or nil: only references inside
    /// the document's folder (relative, no `..`) or the kit's (`kit/…`), and SoundFonts by those rules or
    /// `default`. The host and every participant open what the document names, so a remote cannot make them
    /// open `/etc/shadow` or `~/.ssh/id_ed25519`.
    static func outsideFile(_ command: Command) -> String? {
        func outside(_ ref: String) -> Bool {
            if ref.isEmpty || ref == "default" || ref == "none" { return false }
            if ref.hasPrefix("/") || ref.hasPrefix("~") { return true }
            return ref.split(separator: "/").contains("..")
        }
        if let slot = command.as(Command.Slot.self) {
            let s = slot.settings
            for ref in [s.file, s.soundFont].compactMap({ $0 }) + (s.layers ?? []).map(\.file) where outside(ref) { return ref }
        }
        if let kit = command.as(Command.KitLoad.self) {
            let name = kit.name
            return name.contains("/") || name.hasPrefix("~") || name.hasPrefix(".") ? name : nil
        }
        return nil
    }

    static func sameView(_ a: Session.View, _ b: Session.View) -> Bool {
        a.cursor == b.cursor && a.currentTrack == b.currentTrack && a.selection == b.selection && a.clipMode == b.clipMode
            && a.snap == b.snap && a.chosenClip == b.chosenClip && a.subdivision == b.subdivision
    }
}

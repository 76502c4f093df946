/// An editing session: one document, the cursor, the selection and the modes, and the undo history.
/// Every edit, from a key, the `:` line, a script or a test, goes through `run(_:)`.
///
/// Each command that changes the document is one undo step holding the before/after state of only what it
/// touched. A command that cannot apply throws a one-line `CommandError` and changes nothing, not even the
/// history. Moving the cursor and changing the selection are not steps. The selection names markers by id,
/// so it follows them through edits.
///
/// - Warning: main (editor) thread only.
@dynamicMemberLookup
public final class Session {
    /// The document being edited. Changes only through `run` and `perform` (and undo/redo).
    public internal(set) var document: Document
    /// Where `save` without a path writes.
    public var path: String?
    /// The file at `path` as this session last read or wrote it (nil: there was none), to tell whether another
    /// program or editor has written it since.
    public var diskStamp: FileStamp?

    /// True when the file at `path` is no longer what this session read or last wrote: another program or
    /// another editor wrote it (or removed it, or created it).
    public var changedOnDisk: Bool {
        guard let path else { return false }
        return FileStamp.of(path) != diskStamp
    }
    /// Bumped on every change of the document (undo and redo included); listeners recompile when it moves.
    public internal(set) var revision: Int = 0
    /// The participant's own state (cursor, track, selection, modes, clipboard, random draws): its one home.
    /// Its fields read and write as the session's own (`session.cursor`, `session.selection[0]`), in place,
    /// through `subscript(dynamicMember:)`; a shared document swaps it per participant (`view`).
    var own: View
    /// `session.cursor` is `own.cursor`, and so for every field of `View`.
    public subscript<T>(dynamicMember field: WritableKeyPath<View, T>) -> T {
        get { own[keyPath: field] }
        _modify { yield &own[keyPath: field] }
    }
    /// Where `kit list` and `kit load` look (nil: those commands say kits are not available).
    public var kits: KitSource?
    /// Where `groove save` and `groove load` keep grooves (nil: the user's library, `GrooveLibrary.user`).
    public var grooveFolder: String?
    /// Every undoable step, for inspection (memory figures, a history view).
    public internal(set) var history = History()
    /// Recording is armed: the next start of the transport opens a take (`beginTake`).
    public var recordArmed = false
    /// A take is open: pad hits are recorded, and everything until `endTake` is one undo step.
    public internal(set) var takeOpen = false

    /// Hears every command that ran, with the editing context it ran in, and the edges of transactions: what a
    /// listener needs to replay the session's edits elsewhere (a script recorder, shared editing, the test
    /// that holds every edit of the editor to a command with a textual form).
    public var observer: ((Event) -> Void)?

    /// Set on a participant of a shared document: every command that changes the document goes here (to the
    /// host) instead of running; the change comes back through `apply(_:)`. Commands that move only the
    /// participant's own cursor, track, selection or modes still run here.
    public var remote: ((Command) throws -> String?)?

    /// Runs the commands that reach past the document (`play`, `open`, `import`, `q`...: those flagged `.host`);
    /// nil (a script, a test) refuses them. The editor, `tempera play` and `tempera serve` set it.
    public weak var host: (any SessionHost)?

    /// What `observer` hears.
    public enum Event: Sendable {
        /// A command ran without error, in the participant state `view` held just before (the cursor, track,
        /// selection, modes, clipboard and random draws it read).
        case ran(Command, View)
        /// A transaction opened (a drag): what runs until it closes is one undo step.
        case began(String)
        case committed
        /// The transaction was cancelled: the document and the selection went back to where it began.
        case aborted
    }

    /// The history state last saved or loaded.
    private var savedSerial = 0
    private var transaction: Transaction?
    private var performing = false

    private struct Transaction {
        var name: String
        var record: EditRecord
        var selection: [Int: Set<MarkerID>]
        var changed = false
    }

    /// A session on `document`, unmodified, with an empty history; `path` is where `save` writes by default.
    public init(document: Document, path: String? = nil) {
        self.document = document
        self.path = path
        diskStamp = path.flatMap(FileStamp.of)
        own = View(random: SeededRandom(seed: document.seed ^ 0x5E1E_C7ED_5EED_0001))
    }

    /// Counts the document as changed since it was saved (its content came from elsewhere than its file: a
    /// host's journal replayed over it).
    public func markModified() { savedSerial = -1 }

    /// Changed since it was loaded or last saved.
    public var isModified: Bool {
        history.currentSerial != savedSerial || transaction?.changed == true
    }

    /// True when there is a step to undo.
    public var canUndo: Bool { !history.undoSteps.isEmpty }
    /// True when there is an undone step to redo (a new edit clears them).
    public var canRedo: Bool { !history.redoSteps.isEmpty }
    /// The name of the step `undo` would revert ("shift", "fill"...).
    public var undoName: String? { history.undoSteps.last?.name }
    /// The name of the step `redo` would apply again.
    public var redoName: String? { history.redoSteps.last?.name }
    /// True between `beginTransaction` and `commitTransaction`/`abortTransaction`.
    public var inTransaction: Bool { transaction != nil }

    // MARK: Running commands

    /// Runs one command. Document changes become one undo step; a command that cannot apply throws and
    /// changes nothing. Returns a message for the user when there is something to say.
    @discardableResult
    public func run(_ command: Command) throws -> String? {
        // The transport, files and the screen: the host's, neither the shared document's nor a step.
        if command.spec.flags.contains(.host) { return try execute(command) }
        if let remote, !command.changesOnlyTheView { return try remote(command) }
        guard let observer else { return withHistoryNotice(try execute(command)) }
        let before = view
        let message = try execute(command)
        observer(.ran(command, before))
        return withHistoryNotice(message)
    }

    /// A command's message, and the history's one line the first time it dropped its oldest steps.
    private func withHistoryNotice(_ message: String?) -> String? {
        guard let notice = history.takeNotice() else { return message }
        return message.map { "\($0); \(notice)" } ?? notice
    }

    private func execute(_ command: Command) throws -> String? {
        try command.body.run(in: self)
    }

    /// Parses one line of the command language and runs it; nil for a blank or comment line. Errors carry
    /// `lineNumber` when given.
    @discardableResult
    public func run(line: String, lineNumber: Int? = nil) throws -> String? {
        do {
            guard let command = try CommandParser.parse(line, line: lineNumber) else { return nil }
            return try run(command)
        } catch var error as CommandError {
            if error.line == nil { error.line = lineNumber }
            throw error
        }
    }

    // MARK: Steps and transactions

    /// Runs `body` as one undoable step named `name` (part of the open transaction, if any). The body makes
    /// its changes through the `Edit`; if it throws, every change it made is reverted and the error passes
    /// on. A body that changes nothing records no step. Internal: outside the core every edit is a `Command`,
    /// so each has a textual form and the observer hears it.
    ///
    /// While the body runs, read the document through `edit.document`: the session's `document` is parked
    /// (an empty placeholder) so that the edit owns the only copy and changes it in place; that is what keeps
    /// a 10-marker edit as cheap in a 100,000-marker document as in a small one. The body must not call
    /// `run` or `perform` (steps do not nest; use the `Edit`).
    func perform(_ name: String, _ body: (inout Edit) throws -> Void) throws {
        precondition(!performing, "Session.perform cannot nest: make every change through the Edit")
        performing = true
        defer { performing = false }
        var edit = Edit(taking: &document)
        do {
            try body(&edit)
            // One place for the limits, whichever command made the change (see `Limits`).
            if let problem = edit.violation { throw CommandError("\(name) \(problem)") }
            if let problem = Limits.cycleProblem(edit.document.tracks) { throw CommandError("\(name) \(problem)") }
            if edit.inserted > 0 {
                let total = edit.document.tracks.reduce(0) { $0 + $1.markers.count }
                if total > Limits.maxMarkers {
                    throw CommandError("\(name) would make \(Limits.count(total)) markers; a document holds at most "
                        + Limits.count(Limits.maxMarkers))
                }
            }
        } catch {
            edit.revert()
            swap(&document, &edit.document)
            throw error
        }
        swap(&document, &edit.document)
        guard !edit.record.isEmpty(document) else { return }
        if transaction != nil {
            transaction!.record.absorb(edit.record)
            transaction!.changed = true
            revision += 1
        } else if let step = edit.record.step(named: name, after: document) {
            history.push(step)
            revision += 1
        }
        pruneSelection(touched: edit.record.markers)
    }

    /// Opens a transaction: everything run until `commitTransaction` is one undo step (a drag). A transaction
    /// already open is committed first.
    public func beginTransaction(_ name: String) {
        if transaction != nil { commitTransaction() }
        transaction = Transaction(name: name, record: EditRecord(document: document), selection: own.selection)
        observer?(.began(name))
    }

    /// Closes the transaction, recording its net change as one step (none if it changed nothing).
    public func commitTransaction() {
        guard let t = transaction else { return }
        transaction = nil
        takeOpen = false
        if let step = t.record.step(named: t.name, after: document) { history.push(step) }
        observer?(.committed)
    }

    /// Closes the transaction, restoring the document and the selection exactly as they were at its start.
    public func abortTransaction() {
        guard let t = transaction else { return }
        transaction = nil
        takeOpen = false
        t.record.revert(&document)
        own.selection = t.selection
        if t.changed { revision += 1 }
        pruneSelection()
        observer?(.aborted)
    }

    // MARK: Undo, redo, save

    /// Undoes `k` steps (all of them when `k` exceeds the history). An open transaction is committed first.
    @discardableResult
    public func undo(_ k: Int = 1) throws -> String? { try walkHistory(.undo, k) }

    /// Redoes `k` undone steps (all of them when `k` exceeds what can be redone). An open transaction is
    /// committed first.
    @discardableResult
    public func redo(_ k: Int = 1) throws -> String? { try walkHistory(.redo, k) }

    private enum HistoryWalk { case undo, redo }

    /// Takes up to `k` steps back (undo) or forward (redo) through the history; says which step, or how many.
    private func walkHistory(_ way: HistoryWalk, _ k: Int) throws -> String? {
        let back = way == .undo
        guard k >= 1 else { throw CommandError("\(way) needs a count of at least 1") }
        // A drag still open (a held key, say) ends here, so it becomes a step like any other.
        if transaction != nil { commitTransaction() }
        guard back ? canUndo : canRedo else { throw CommandError("nothing to \(way)") }
        var names: [String] = []
        while names.count < k, let name = back ? undoName : redoName,
              back ? history.undo(&document) : history.redo(&document) {
            names.append(name)
        }
        afterDocumentMoved()
        let did = back ? "undid" : "redid"
        return names.count == 1 ? "\(did) \(names[0])" : "\(did) \(names.count) steps"
    }

    /// `save [PATH]`: saves to the session's own file, clearing the modified flag. A `path` other than that file
    /// writes a copy there (its relative sample paths rewritten for its folder) and the session stays on its own
    /// file, modified or not as before; a session with no file yet takes `path` as its file.
    @discardableResult
    public func save(to path: String? = nil) throws -> String? {
        guard let own = self.path else {
            guard let path else { throw CommandError("no file name: save PATH") }
            return try saveAs(path)
        }
        guard let path, !PathRebase.samePath(path, own) else { return try saveAs(own) }
        let (rebased, moved) = PathRebase.rebase(document, from: PathRebase.folder(of: own), to: PathRebase.folder(of: path))
        try write(rebased, to: path)
        return "wrote a copy to \(path) (still editing \(own))"
            + (moved > 0 ? " (\(moved) sample path\(moved == 1 ? "" : "s") rewritten for its folder)" : "")
    }

    private func write(_ document: Document, to target: String) throws {
        do {
            try DocumentFile.save(document, to: target)
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError("cannot save \(target): \(error)")
        }
    }

    /// `saveas PATH` (the editor's): saves to `path`, which becomes the session's file; clears the modified flag.
    @discardableResult
    public func saveAs(_ target: String) throws -> String? {
        // Saved into another folder, references relative to the old one are rewritten to name the same files.
        let oldFolder = PathRebase.folder(of: self.path), newFolder = PathRebase.folder(of: target)
        let (rebased, moved) = PathRebase.rebase(document, from: oldFolder, to: newFolder)
        try write(rebased, to: target)
        self.path = target
        diskStamp = FileStamp.of(target)
        savedSerial = history.currentSerial
        if moved > 0 {
            // Not an undo step: the references name the same files as before, only written from the new folder.
            document = rebased
            revision += 1
            return "saved \(target) (\(moved) sample path\(moved == 1 ? "" : "s") rewritten for its folder)"
        }
        return "saved \(target)"
    }

    /// After the document changed other than by a command's own edit (undo, redo, a shared document's change
    /// or a new document): the revision moves on, and the current track and selection keep to what exists.
    func afterDocumentMoved() {
        revision += 1
        if own.currentTrack >= document.tracks.count { own.currentTrack = max(0, document.tracks.count - 1) }
        pruneSelection()
    }

    // MARK: Selection

    /// Sorted positions of the selected markers in that track's MarkerList.
    public func selectedIndices(track: Int) -> [Int] {
        guard track >= 0, track < document.tracks.count, let ids = own.selection[track] else { return [] }
        let markers = document.tracks[track].markers
        return ids.compactMap { markers.index(of: $0) }.sorted()
    }

    /// The selected markers of a track, in time order.
    public func selectedMarkers(track: Int) -> [Marker] {
        guard track >= 0, track < document.tracks.count, let ids = own.selection[track] else { return [] }
        let markers = document.tracks[track].markers
        // A large selection is cheaper to read off the track in order than to look up id by id and sort.
        if ids.count > markers.count / 8 { return markers.filter { ids.contains($0.id) } }
        return ids.compactMap { markers.marker(id: $0) }.sorted { $0.precedes($1) }
    }

    /// The number of selected markers over every track.
    public var selectionCount: Int {
        own.selection.values.reduce(0) { $0 + $1.count }
    }

    /// Drops ids of markers that no longer exist and tracks that are gone.
    func pruneSelection() {
        for (track, ids) in own.selection {
            guard track >= 0, track < document.tracks.count else {
                own.selection[track] = nil
                continue
            }
            let markers = document.tracks[track].markers
            let kept = ids.filter { markers.contains(id: $0) }
            own.selection[track] = kept.isEmpty ? nil : kept
        }
    }

    /// Drops selected ids among the markers an edit touched that it removed. An edit only removes markers it
    /// touched, so this costs what the edit touched, not the size of the selection.
    private func pruneSelection(touched: [Int: [MarkerID: Marker?]]) {
        for (track, ids) in touched where own.selection[track] != nil {
            let markers = document.tracks[track].markers
            for id in ids.keys where !markers.contains(id: id) { own.selection[track]?.remove(id) }
            if own.selection[track]?.isEmpty == true { own.selection[track] = nil }
        }
    }

    /// Whether a marker is an element the tools act on in the current mode: in clip mode, a marker holding
    /// content.
    func isElement(_ m: Marker) -> Bool {
        !own.clipMode || m.content != nil
    }

    /// The markers the document holds, over every track.
    public var markerCount: Int { document.tracks.reduce(0) { $0 + $1.markers.count } }

    /// The current track's index, or an error when the document has none.
    func requireTrack() throws -> Int {
        guard !document.tracks.isEmpty else { throw CommandError("the document has no track: use 'track add'") }
        if own.currentTrack < 0 || own.currentTrack >= document.tracks.count { own.currentTrack = document.tracks.count - 1 }
        return own.currentTrack
    }

    /// The selection by track, in track order, each in time order; an error when nothing is selected.
    func requireSelection() throws -> [(track: Int, markers: [Marker])] {
        let groups = own.selection.keys.sorted().compactMap { t -> (track: Int, markers: [Marker])? in
            let ms = selectedMarkers(track: t)
            return ms.isEmpty ? nil : (t, ms)
        }
        guard !groups.isEmpty else { throw CommandError("nothing is selected") }
        return groups
    }
}

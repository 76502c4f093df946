import Foundation
import TemperaCore
import TemperaPlayback
import TemperaStudio

/// The one place input becomes editing: a key becomes an `Action` through the key map, a mouse report
/// becomes a hit through `EditorView.hitTest`, and one switch on the action's `Verb`, the mode and the chosen
/// tool turns it into `Command`s on the `Session`. The `:` line runs the same commands by their textual form.
/// Every change to the document is a command (`Session.perform` is not reachable from here), so every edit
/// can be scripted, replayed and shared.
///
/// Keys go to the input modes (`InputModes`: help, a question, the picker, the prompt, then the timeline or the
/// tab that has the keys), which look them up in the key map's contexts and come back with an action.
/// The work is split by what it is about: this file runs actions; `Dispatcher+Tools` uses
/// the chosen tool, `Dispatcher+Tabs` the keys of the Clips, Groups and designer tabs, `Dispatcher+Prompt`
/// the `:` line and the pattern and rename editors, `Dispatcher+Document` the questions saving, opening and
/// quitting ask (the file's life itself is `DocumentFileSession`'s), `Dispatcher+Mouse` the mouse, `Dispatcher+Song` the Song tab, `Dispatcher+Pads` the pads
/// and recording takes; `DragController` holds a drag's transaction.
///
/// - Warning: main (editor) thread only.
public final class Dispatcher {
    /// The document's file and its recovery files, and the session on it: the application core's, which the
    /// dispatcher drives (it keeps the questions it asks and what it says).
    public let files: DocumentFileSession
    /// The session edited; the dispatcher is its host (`SessionHost`: the transport, files, the screen).
    public internal(set) var session: Session {
        get { files.session }
        set {
            files.session = newValue
            newValue.host = self
        }
    }
    public var view: ViewState
    /// Decides when the player hears the document (the editor loop asks it after every event).
    public let playback: PlaybackController
    /// Plays the document (the audio engine, seen through its interface); nil runs the editor silently (tests).
    public var player: (any Player)? {
        get { playback.player }
        set { playback.player = newValue }
    }
    /// Writes sound files and MIDI files for `:render` and `:export`; nil: they say there is nothing to write with.
    public var offline: (any OfflineRendering)?
    /// On a shared document: play and stop go to the host, which starts and stops everyone (true: play from the
    /// start). The engine then follows what the host says.
    public var sharedPlay: ((Bool) -> Void)?
    /// The screen's size, for hit-testing and for how far the view scrolls.
    public var width: Int
    public var height: Int
    /// The folder the file picker opened last: it opens there again.
    public var pickerFolder: String?
    /// Set when the user asked to leave and nothing is left unsaved (or they chose to discard it).
    public internal(set) var quitRequested = false
    /// The user chose to quit without saving: the recovery file goes too.
    public internal(set) var discardedChanges = false
    /// Bumped when a new session replaces the old (open, new, recover): the loop reloads the engine.
    public internal(set) var sessionGeneration = 0
    /// A theme the user chose with `:theme`, for the screen to pick up.
    public var requestedTheme: Theme?
    /// Configuration directories (themes for `:theme`).
    public var paths: ConfigPaths
    /// The recovered autosave has not been saved yet: quitting asks even though the session is fresh.
    public var unsavedRecovery: Bool {
        get { files.unsavedRecovery }
        set { files.unsavedRecovery = newValue }
    }
    /// Seconds, for idle commits of held-key nudges; injected so tests control time.
    public var clock: () -> Double
    /// An unsaved-changes answer sends us here next.
    var afterDiscard: (() -> Void)?
    var drags = DragController()
    /// A `:render` in progress.
    var renderJob: RenderJob?
    /// The last press was on the timeline and no drag began: a drag then says why it moves nothing.
    var pressedOnTimeline = false
    /// Quitting waits for the file name the save asked for.
    var quitAfterSave = false
    /// MIDI in's bindings (`midi learn`), read from the configuration folder when first needed.
    var midi: MidiLearn?
    /// The `:` line's accepted lines (kept across sessions by the editor); an open prompt walks it.
    public var commandHistory = CommandHistory()

    public init(session: Session, keyMap: KeyMap = .standard, view: ViewState = ViewState(), player: (any Player)? = nil,
                offline: (any OfflineRendering)? = nil, width: Int = 100, height: Int = 30, paths: ConfigPaths = ConfigPaths(),
                clock: @escaping () -> Double = { Date().timeIntervalSinceReferenceDate }) {
        files = DocumentFileSession(session: session, autosave: Autosave(paths: paths))
        self.view = view
        self.view.keyMap = keyMap
        self.playback = PlaybackController(player: player)
        self.offline = offline
        self.width = width
        self.height = height
        self.paths = paths
        self.clock = clock
        session.host = self
    }

    /// The layout of the current screen.
    public var layout: Layout { EditorView.layout(session: session, view: view, width: width, height: height) }

    // MARK: Events

    /// Handles one input event.
    public func handle(_ event: InputEvent) {
        switch event {
        case .key(let key): handle(key)
        case .mouse(let m): handle(m)
        case .resize, .closed: break
        }
        syncTake()
    }

    /// The contexts a key is looked up in, most specific first: the open prompt's, or those of the area that
    /// has the keys (`InputModes.areas`).
    public var contexts: [KeyMap.Context] {
        view.prompt != nil ? [.prompt] : InputModes.area(self).contexts
    }

    /// Routes a key to the input modes (`InputModes.all`, most modal first) until one takes it.
    public func handle(_ key: Key) {
        for mode in InputModes.all where mode.handle(key, self) { return }
    }

    // MARK: Actions

    /// Performs one action (from a key, a mouse click on a tool, or a test).
    public func perform(_ action: Action) {
        if case .prompt(let verb) = action.verb {
            performPrompt(verb)
            return
        }
        // A drag ends when something else happens, except the steps that drive it.
        if let d = drags.current, !continuesDrag(d, action.verb) {
            if action.verb == .esc {
                abortDrag()
                return
            }
            finishDrag()
        }
        do {
            try run(action)
        } catch {
            fail(error)
        }
        syncTake()
    }

    private func continuesDrag(_ d: DragController.Drag, _ verb: Verb) -> Bool {
        switch d.kind {
        case .shift, .scale:
            // Enter (apply) is handled by the drag itself: it keeps the result.
            switch verb {
            case .cursor(.left), .cursor(.right), .cursor(.fineLeft), .cursor(.fineRight), .apply: return !d.mouse
            default: return false
            }
        case .tempo, .volume, .designerSlider: return false
        case .tempoPoint:
            switch verb {
            case .cursor(.left), .cursor(.right), .cursor(.fineLeft), .cursor(.fineRight), .apply: return !d.mouse
            default: return false
            }
        case .nudge(let family):
            // On the tempo lane the amplitude keys nudge a tempo point.
            if family == "tempo point", case .amp = verb { return view.tempoLane }
            return verb.nudgeFamily == family
        }
    }

    func run(_ action: Action) throws {
        let s = session
        if view.tempoLane, try runTempoLane(action.verb) { return }
        switch action.verb {
        case .tool(let tool): try choose(tool)
        case .clip(let content): try clip(content)
        case .designer(.euclidAsk) where DesignerTab.rowName(view.designer.focus) != nil:
            // Euclid asks for k on the line (E(7,12) in one go), the row's beats now standing there.
            let row = DesignerTab.rowName(view.designer.focus)!
            let (line, back) = DesignerTab.euclidLine(s.document.designer, row: row)
            openPrompt(line, cursorBack: back)
            // The row's old count is selected: the first digit typed replaces it (`e 7` is E(7, n)).
            let old = String(s.document.designer.row(row).beats.count).count
            view.prompt?.select(line.count - back - old..<line.count - back)
            say("euclid: type k, then Enter" + (s.document.designer.map == nil ? "" : " (the map goes back to i-th to i-th)"))
        case .designer(let a):
            if a.movesSlider { drags.nudge("slider", session: s, now: clock()) }
            let message = try DesignerTab.handle(a, session: s, state: &view.designer)
            say(message ?? "")
        case .tab(let tab):
            view.tab = tab
            view.focus = .tab
            // The status line then says where the keys went and how to get them back.
            say("")
        case .play:
            guard let player else { return say("no audio output in this session") }
            if let sharedPlay { return sharedPlay(!player.isPlaying) }
            player.toggle()
        case .rewind:
            if let sharedPlay, player?.isPlaying == true { return sharedPlay(true) }
            player?.rewind()
        case .loop:
            try command(.loop(on: !s.document.transport.loopOn))
        case .loopEdit:
            let t = s.document.transport
            openPrompt("loop \(Dispatcher.format(t.loopStart)) \(Dispatcher.format(t.loopEnd))")
        case .tempo(let d):
            let next = s.document.transport.tempo + d.sign * 0.05
            try nudge("tempo", .tempo(Dispatcher.clamp((next * 100).rounded() / 100, Transport.tempoRange)))
        case .volume(let d):
            let next = s.document.transport.volume + d.sign * 0.05
            try nudge("volume", .volume(Dispatcher.clamp((next * 100).rounded() / 100, 0...1)))
        case .apply:
            try apply()
        case .drawClip:
            try drawClip()
        case .modeClip:
            try command(.clipMode(!s.clipMode))
            say(s.clipMode ? "clip mode: tools act on clips" : "marker mode: tools act on markers")
        case .modeSnap:
            try command(.snap(!s.snap))
            say(s.snap ? "snap on: clips go onto existing markers" : "snap off: clips come with their own markers")
        case .cursor(let move):
            try moveCursor(move)
        case .cursorTime: openPrompt("cursor " + Dispatcher.format(s.cursor))
        case .spread:
            openPrompt("spread ", keep: 7)
            say("spread: clips 1-16, - a rest that cuts the sound before it, . an empty step (1x4, .2.2)")
        case .track(let verb):
            try track(verb)
        case .scroll(let left):
            let cols = Double(max(1, layout.timeline.width * 3 / 4))
            view.viewport.scroll(columns: left ? -cols : cols)
        case .zoomIn: view.viewport.zoomIn(about: s.cursor); view.viewport.reveal(s.cursor, columns: columns)
        case .zoomOut: view.viewport.zoomOut(about: s.cursor); view.viewport.reveal(s.cursor, columns: columns)
        case .zoomFit: fitView()
        case .amp(let d):
            try nudgeAmplitude(by: d.sign * 0.1)
        case .ampSet:
            let amps = Set(s.selection.keys.flatMap { s.selectedMarkers(track: $0).map(\.amp) })
            openPrompt("amp " + (amps.count == 1 ? DocumentFile.number(amps.first!) : ""), keep: 4)
        case .clickToggle:
            try command(.click(on: !s.document.transport.click, level: nil))
            say(s.document.transport.click ? "metronome on" : "metronome off")
        case .gridNext:
            let cycle: [Int?] = [nil, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16]
            let i = cycle.firstIndex(of: s.document.transport.grid) ?? 0
            let next = cycle[(i + 1) % cycle.count]
            try command(.grid(next))
            say(next.map { "grid: \($0) step\($0 == 1 ? "" : "s") a beat (arrows follow it, Shift+arrows move a column)" }
                ?? "grid off: the cursor moves freely")
        case .tempoLane:
            view.tempoLane.toggle()
            say(view.tempoLane ? "tempo lane: a adds a point at the cursor, S-up/S-down change its tempo, m + arrows move it, delete removes it"
                : "the tracks again")
        case .rulerToggle:
            view.rulerSeconds.toggle()
            say(view.rulerSeconds ? "ruler in seconds" : "ruler in bars.beats")
        case .render:
            openPrompt("render " + suggestedRenderPath(), keep: 7)
        case .select(let verb):
            switch verb {
            case .pick: try command(.select(.init(.at(s.cursor))))
            case .hold: try command(.select(.init(.at(s.cursor), add: true)))
            }
        case .patternEdit:
            openPrompt("pattern \"" + s.document.pattern + "\"", cursorBack: 1)
        case .subdivision(let d):
            s.subdivision = min(max(s.subdivision + Int(d.sign), 1), 64)
            // Subdivide n adds n markers between neighbours (n = 1 halves): "into n" would promise n parts.
            say("subdivide n=\(s.subdivision): \(s.subdivision) new marker\(s.subdivision == 1 ? "" : "s") between each pair")
        case .groupStore: try command(.groupStore(view.chosenGroup))
        case .groupStamp: try command(.drawGroup(view.chosenGroup))
        case .groupEdit: try command(.groupEdit(view.chosenGroup))
        case .groupPlace: try command(.placeGroup(view.chosenGroup))
        case .save:
            if s.path == nil { openPrompt("save " + suggestedPath(), keep: 5) } else { _ = save(nil, overwrite: false) }
        case .saveAs: openPrompt("saveas " + (s.path ?? suggestedPath()), keep: 7)
        case .open: openPrompt("open " + directoryOfDocument(), keep: 5)
        case .new: _ = try newDocument()
        case .quit: requestQuit()
        case .help: view.helpOffset = 0
        case .command: openPrompt(action.argument)
        case .run: try runLine(action.argument)
        case .focusNext:
            view.focus = view.focus == .timeline ? .tab : .timeline
            say("")
        case .tabNext, .tabPrev:
            let all = Tab.allCases
            let i = all.firstIndex(of: view.tab)!
            view.tab = all[(i + (action.verb == .tabNext ? 1 : all.count - 1)) % all.count]
        case .designerEdit: openPrompt(Dispatcher.temperLine(s.document.designer))
        case .slot(let verb):
            try slot(verb)
        case .song(let verb):
            try song(verb)
        case .songMode:
            try toggleSongMode()
        case .pad(let slot, let accent):
            try pad(slot, velocity: accent ? 1 : view.padVelocity)
        case .padVelocity(let d):
            padVelocity(d)
        case .recordToggle:
            try toggleRecord()
        case .esc:
            // Esc gives the keys back to the timeline first: the tab area's keys mean other things.
            if view.focus == .tab {
                view.focus = .timeline
                return say("keys on the timeline")
            }
            if !selectionIsEmpty {
                try command(.select(.init(.none)))
            } else if session.editingGroup != nil {
                try command(.groupDone)
            } else {
                say("")
            }
        case .prompt(let verb):
            performPrompt(verb)
        case .none:
            break
        }
    }

    private func moveCursor(_ move: Verb.CursorMove) throws {
        let s = session
        switch move {
        case .left, .right, .fineLeft, .fineRight:
            let sign: Double = move == .right || move == .fineRight ? 1 : -1
            let fine = move == .fineLeft || move == .fineRight
            // With the grid on, arrows move by a grid step and the fine keys by a column (a free move);
            // without it, a column and an eighth of one.
            let grid = s.document.transport.grid
            let column = view.viewport.secondsPerColumn
            if view.tool == .shift || view.tool == .scale, !selectionIsEmpty {
                let step = grid != nil ? (fine ? column : s.document.transport.gridStep!) : column * (fine ? 0.125 : 1)
                try keyDrag(sign: sign, step: step)
            } else if let steps = grid, !fine {
                let t = s.document.transport
                moveCursor(to: sign > 0 ? t.gridPoint(after: s.cursor, steps: steps) : t.gridPoint(before: s.cursor, steps: steps))
            } else {
                moveCursor(to: s.cursor + sign * column * (fine && grid == nil ? 0.125 : 1))
            }
        case .next:
            let markers = currentMarkers
            let i = markers.upperBound(time: s.cursor + 1e-12)
            if i < markers.endIndex { moveCursor(to: markers[i].time) }
        case .prev:
            let markers = currentMarkers
            let i = markers.lowerBound(time: s.cursor - 1e-12)
            if i > 0 { moveCursor(to: markers[i - 1].time) }
        case .home: moveCursor(to: 0)
        case .end: moveCursor(to: s.document.transport.length)
        }
    }

    private func track(_ verb: Verb.TrackVerb) throws {
        let s = session
        switch verb {
        case .up, .down:
            let n = s.document.tracks.count
            guard n > 0 else { return }
            s.currentTrack = min(max(s.currentTrack + (verb == .down ? 1 : -1), 0), n - 1)
        case .gainUp, .gainDown:
            guard s.document.tracks.indices.contains(s.currentTrack) else { return say("no track", error: true) }
            let gain = Dispatcher.stepDecibels(s.document.tracks[s.currentTrack].gain, by: verb == .gainUp ? 1 : -1,
                                               within: CommandParser.trackGainRange)
            try nudge("gain", .trackGain(track: nil, gain: gain))
        case .rename:
            guard s.document.tracks.indices.contains(s.currentTrack) else { return say("no track", error: true) }
            openRenameEditor()
        }
    }

    /// Amplitude keys: the selected markers louder or softer (one `amp +D` command a press, held presses one
    /// undo step), or with nothing selected the amplitude keys draw with.
    private func nudgeAmplitude(by delta: Double) throws {
        if selectionIsEmpty {
            view.drawAmp = Dispatcher.clamp(((view.drawAmp + delta) * 10).rounded() / 10, 0.1...1)
            say("drawing amplitude \(Int((view.drawAmp * 100).rounded()))%")
            return
        }
        // One shared amplitude is set to its rounded next value, so steps land on tenths exactly; mixed
        // amplitudes move together by the step.
        let amps = Set(session.selection.keys.flatMap { session.selectedMarkers(track: $0).map(\.amp) })
        if amps.count == 1, let a = amps.first {
            try nudge("amp", .amp(Dispatcher.clamp(((a + delta) * 100).rounded() / 100, 0...1), relative: false))
        } else {
            try nudge("amp", .amp(delta, relative: true))
        }
    }

    // MARK: Drags

    var selectionIsEmpty: Bool { session.selection.values.allSatisfy(\.isEmpty) }

    /// The track whose selection a drag handles: the current one if it has a selection, else the first that does.
    var dragTrack: Int? {
        let s = session
        if !(s.selection[s.currentTrack]?.isEmpty ?? true) { return s.currentTrack }
        return s.selection.filter { !$0.value.isEmpty }.map(\.key).min()
    }

    /// The selected marker nearest a time on the drag track, as (K from 1, its time).
    func nearestSelected(to time: Double) -> (k: Int, time: Double)? {
        guard let t = dragTrack else { return nil }
        let markers = session.document.tracks[t].markers
        let times = session.selectedIndices(track: t).map { markers[$0].time }
        guard !times.isEmpty else { return nil }
        var best = 0
        for (i, x) in times.enumerated() where abs(x - time) < abs(times[best] - time) { best = i }
        return (best + 1, times[best])
    }

    private func keyDrag(sign: Double, step: Double) throws {
        let s = session
        if !drags.isActive {
            if view.tool == .shift {
                drags.begin(.shift, mouse: false, session: s, now: clock())
            } else {
                guard let h = nearestSelected(to: s.cursor) else { return }
                drags.begin(.scale(k: h.k), mouse: false, anchor: h.time, pressTime: h.time, session: s, now: clock())
            }
        }
        if let refusal = try drags.keyStep(sign: sign, step: step, session: s, now: clock()) {
            say(refusal.description, error: true)
        }
    }

    /// A held-key nudge of one family: its presses become one undo step.
    private func nudge(_ family: String, _ c: Command) throws {
        drags.nudge(family, session: session, now: clock())
        try command(c)
    }

    /// Ends a drag: its steps become one undo step.
    public func finishDrag() {
        guard let d = drags.finish(session) else { return }
        switch d.kind {
        case .shift, .scale, .tempoPoint:
            if session.revision != d.revision, let name = session.undoName {
                say("\(name) kept" + (view.key("undo").map { " (\($0) undoes)" } ?? ""))
            }
        default: break
        }
    }

    /// Cancels a drag: the document goes back to where the drag began.
    public func abortDrag() {
        if drags.abort(session) { say("cancelled") }
    }

    /// True while a drag's transaction is open.
    public var dragging: Bool { drags.isActive }

    /// Called by the loop when idle: a nudge by held keys ends after a pause.
    public func tick() {
        pollRender()
        syncTake()
        if let d = drags.current, !d.mouse, case .nudge = d.kind, clock() - d.lastStep > 1.5 { finishDrag() }
    }

    // MARK: Render

    /// Starts writing the document to `path` off the editor thread; one render at a time.
    func startRender(_ path: String) {
        if let job = renderJob { return say("already rendering \(job.path)", error: true) }
        guard let offline else { return say("no renderer in this session", error: true) }
        let dir = (path as NSString).deletingLastPathComponent
        var isDir: ObjCBool = false
        if !dir.isEmpty, !(FileManager.default.fileExists(atPath: dir, isDirectory: &isDir) && isDir.boolValue) {
            return say("no folder \(dir) to render into", error: true)
        }
        renderJob = RenderJob(document: session.document, baseDirectory: files.baseDirectory, path: path, renderer: offline)
        view.render = ViewState.RenderProgress(path: path, fraction: 0)
    }

    /// Shows a render's progress; when it ends, says how it went. True while one runs.
    @discardableResult
    public func pollRender() -> Bool {
        guard let job = renderJob else { return false }
        let (fraction, outcome) = job.progress
        guard let outcome else {
            view.render = ViewState.RenderProgress(path: job.path, fraction: fraction)
            return true
        }
        renderJob = nil
        view.render = nil
        switch outcome {
        case .success: say("rendered \(job.path)")
        case .failure(let error): say("render failed: \(error)", error: true)
        }
        return false
    }

    /// Waits for a running render to end (tests, and quitting).
    public func waitForRender() {
        _ = renderJob?.wait()
        pollRender()
    }

    // MARK: Helpers

    /// A time snapped to the nearest grid point (unchanged with the grid off or `free`).
    func snapped(_ time: Double, free: Bool = false) -> Double {
        let t = session.document.transport
        guard !free, let steps = t.grid else { return time }
        return t.nearestGridPoint(to: time, steps: steps)
    }

    /// `song.wav` beside the document (or in the working folder for an unnamed one).
    func suggestedRenderPath() -> String {
        let name = session.path.map { (($0 as NSString).lastPathComponent as NSString).deletingPathExtension } ?? "untitled"
        return directoryOfDocument() + name + ".wav"
    }

    /// The timeline's width in columns.
    public var columns: Int { max(1, layout.timeline.width) }

    /// Shows the loop region across the timeline.
    public func fitView() {
        let t = session.document.transport
        let end = max(t.length, t.loopOn ? t.loopEnd : t.length)
        view.viewport = Viewport.fitting(0, max(end, 0.01), columns: columns)
    }

    var currentMarkers: MarkerList {
        let s = session
        guard s.document.tracks.indices.contains(s.currentTrack) else { return MarkerList() }
        return s.document.tracks[s.currentTrack].markers
    }

    func moveCursor(to time: Double) {
        session.cursor = max(0, time)
        view.viewport.reveal(session.cursor, columns: columns)
    }

    /// Runs a command from a key. A command that changes the document without a word of its own (rotate,
    /// reverse) clears the last message, so the status line names the new undo step instead of a stale one.
    func command(_ c: Command) throws {
        let revision = session.revision, cursor = session.cursor
        defer { revealIfMoved(from: cursor) }
        if let message = try session.run(c) { say(message) } else if session.revision != revision { say("") }
    }

    /// A command that moves the cursor (a stamp leaves it after what it stamped, `:cursor` puts it anywhere)
    /// scrolls the timeline to it, so what was just done is in sight.
    func revealIfMoved(from cursor: Double) {
        if session.cursor != cursor { view.viewport.reveal(session.cursor, columns: columns) }
    }

    /// Sets the status line.
    public func say(_ text: String, error: Bool = false) {
        view.message = text.isEmpty ? nil : text
        view.messageIsError = error
    }

    func fail(_ error: Error) {
        say(String(describing: error), error: true)
    }

    static func clamp(_ x: Double, _ r: ClosedRange<Double>) -> Double { min(max(x, r.lowerBound), r.upperBound) }

    /// A time for typing back: up to six decimals, no trailing zeros.
    static func format(_ t: Double) -> String {
        var s = String(format: "%.6f", t)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    /// The designer's state as the `temper` line that recreates it.
    static func temperLine(_ t: Temperament) -> String {
        func beats(_ r: Temperament.Row) -> String {
            r.beats == Array(0..<r.division) ? "all" : r.beats.map(String.init).joined(separator: ",")
        }
        var line = "temper span=\(format(t.span)) top=\(t.top.division):\(beats(t.top)) bottom=\(t.bottom.division):\(beats(t.bottom))"
        if let map = t.map { line += " map=" + map.map { "\($0.top)-\($0.bottom)" }.joined(separator: ",") }
        return line + " s=\(format(t.slider))"
    }
}

/// Made and used on one thread (the editor's): the compiler refuses to let it cross to another (a `@Sendable`
/// closure, a queue, a thread, a task), and nothing may declare it `Sendable` later.
@available(*, unavailable)
extension Dispatcher: Sendable {}

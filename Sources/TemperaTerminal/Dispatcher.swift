import Foundation
import TemperaAudio
import TemperaCore

/// The one place input becomes editing: a key becomes an action through the key map, a mouse report becomes
/// a hit through `EditorView.hitTest`, and one switch on the action, the mode and the chosen tool turns it
/// into commands on the `Session`. The `:` line runs the same commands by their textual form.
///
/// Drags (shift and scale with repeated arrows or the mouse, slider drags, held keys that nudge tempo,
/// volume, amplitude or the designer's slider) are transactions: begun on the first step, committed on
/// Enter, a mouse release or any other action, and aborted by Esc, so each is one undo step.
///
/// - Warning: main (editor) thread only.
public final class Dispatcher {
    public private(set) var session: Session
    public var view: ViewState
    public var keyMap: KeyMap { didSet { view.keyHints = keyMap.hints } }
    /// Plays the document; nil runs the editor silently (tests).
    public var engine: AudioEngine?
    /// The screen's size, for hit-testing and for how far the view scrolls.
    public var width: Int
    public var height: Int
    /// The `:` line while it is open.
    public private(set) var prompt: Prompt?
    /// A question waiting for its one-key answer.
    public private(set) var question: Question?
    /// The help overlay's first line while it is shown.
    /// The first help line shown; the editor clamps it to the last full page when it draws the overlay.
    public internal(set) var helpOffset: Int?
    /// Set when the user asked to leave and nothing is left unsaved (or they chose to discard it).
    public private(set) var quitRequested = false
    /// The user chose to quit without saving: the recovery file goes too.
    public private(set) var discardedChanges = false
    /// Bumped when a new session replaces the old (open, new, recover): the loop reloads the engine.
    public private(set) var sessionGeneration = 0
    /// A theme the user chose with `:theme`, for the screen to pick up.
    public var requestedTheme: Theme?
    /// Configuration directories (themes for `:theme`).
    public var paths: ConfigPaths
    /// The amplitude drawing gives new markers from the keyboard (mouse clicks take it from the row).
    public var drawAmp = 0.8
    /// The recovered autosave has not been saved yet: quitting asks even though the session is fresh.
    public var unsavedRecovery = false
    /// Seconds, for idle commits of held-key nudges; injected so tests control time.
    public var clock: () -> Double
    /// An unsaved-changes answer sends us here next.
    private var afterDiscard: (() -> Void)?
    private var drag: Drag?
    /// Quitting waits for the file name the save asked for.
    private var quitAfterSave = false
    private var history: [String] = []
    /// What the open prompt's line is for.
    private var promptPurpose = PromptPurpose.command

    /// What the line at the bottom edits: a command, the code of a pattern tool (fill, pattern select),
    /// which Enter stores and applies at once, or the current track's name.
    enum PromptPurpose: Equatable {
        case command
        case pattern(Tool)
        case rename
    }

    /// Questions answered with one key.
    public enum Question: Equatable, Sendable {
        /// Save before quitting? y / n / c.
        case quit
        /// Discard unsaved changes before opening another document? y / n.
        case discard
        /// An autosave newer than the file exists: recover it? y / n.
        case recover(Document)

        public var text: String {
            switch self {
            case .quit: return "save changes before quitting? (y)es (n)o (c)ancel"
            case .discard: return "discard unsaved changes? (y/n)"
            case .recover: return "an autosave newer than the file exists: recover it? (y/n)"
            }
        }
    }

    struct Drag {
        enum Kind: Equatable {
            case shift
            /// The K-th selected element (from 1) is the handle.
            case scale(k: Int)
            case tempo
            case volume
            /// Key nudges of one family (`tempo`, `volume`, `amp`, `slider`) coalesced into one step.
            case nudge(String)
        }
        var kind: Kind
        var mouse: Bool
        /// Shift: the time the last step reached. Scale: where the handle started.
        var anchor: Double
        /// Scale: the time the pointer pressed (the handle moves by the pointer's travel).
        var pressTime: Double
        var lastStep: Double
        /// The document's revision when the drag began, to tell whether it changed anything.
        var revision = 0
    }

    public init(session: Session, keyMap: KeyMap = .standard, view: ViewState = ViewState(), engine: AudioEngine? = nil,
                width: Int = 100, height: Int = 30, paths: ConfigPaths = ConfigPaths(),
                clock: @escaping () -> Double = { Date().timeIntervalSinceReferenceDate }) {
        self.session = session
        self.keyMap = keyMap
        self.view = view
        self.engine = engine
        self.width = width
        self.height = height
        self.paths = paths
        self.clock = clock
        self.view.keyHints = keyMap.hints
        self.view.fileName = Dispatcher.fileName(session.path)
    }

    static func fileName(_ path: String?) -> String? {
        path.map { ($0 as NSString).lastPathComponent }
    }

    /// The layout of the current screen.
    public var layout: Layout { EditorView.layout(session: session, view: view, width: width, height: height) }

    /// Asks the recovery question (at start, when an autosave is newer than the file).
    public func offerRecovery(_ document: Document) {
        question = .recover(document)
        // Without a file (the demo, an unnamed document) there is no file for the autosave to be newer than.
        view.message = session.path == nil ? "an autosave of unsaved work exists: recover it? (y/n)"
                                           : Question.recover(document).text
        view.messageIsError = false
    }

    // MARK: Events

    /// Handles one input event.
    public func handle(_ event: InputEvent) {
        switch event {
        case .key(let key): handle(key)
        case .mouse(let m): handle(m)
        case .resize, .closed: break
        }
    }

    /// The contexts a key is looked up in, most specific first.
    public var contexts: [KeyMap.Context] {
        if prompt != nil { return [.prompt] }
        switch view.focus {
        case .timeline: return [.timeline, .global]
        case .tab:
            switch view.tab {
            case .designer: return [.designer, .tab, .global]
            case .clips: return [.clips, .tab, .global]
            default: return [.tab, .global]
            }
        }
    }

    public func handle(_ key: Key) {
        if let offset = helpOffset {
            let page = max(1, height - 4)
            switch key.name {
            case "up": helpOffset = max(0, offset - 1)
            case "down": helpOffset = offset + 1
            case "pgup": helpOffset = max(0, offset - page)
            case "pgdn", "space": helpOffset = offset + page
            default: helpOffset = nil
            }
            return
        }
        if let q = question {
            answer(q, key)
            return
        }
        if prompt != nil {
            if let action = keyMap.action(for: key, in: .prompt) {
                perform(action)
            } else if let c = key.character {
                if view.messageIsError { say("") }
                prompt!.insert(c)
                syncPrompt()
            }
            return
        }
        guard let action = keyMap.action(for: key, in: contexts) else {
            say("\(KeyMap.label(key)) is not bound (? lists the keys)")
            return
        }
        perform(action)
    }

    private func answer(_ q: Question, _ key: Key) {
        let c = key.name.lowercased()
        switch q {
        case .quit:
            switch c {
            case "y":
                question = nil
                // Without a file name the save asks for one first; the quit follows the save.
                quitAfterSave = session.path == nil
                if save(nil) { quitRequested = true }
            case "n":
                question = nil
                discardedChanges = true
                quitRequested = true
            case "c", "esc":
                question = nil
                say("")
            default: return
            }
        case .discard:
            switch c {
            case "y":
                question = nil
                let next = afterDiscard
                afterDiscard = nil
                next?()
            case "n", "c", "esc":
                question = nil
                afterDiscard = nil
                say("")
            default: return
            }
        case .recover(let doc):
            switch c {
            case "y":
                question = nil
                replaceSession(Session(document: doc, path: session.path))
                unsavedRecovery = true
                say("recovered the autosave (not saved yet: C-s saves)")
            case "n", "esc":
                question = nil
                say(session.path == nil ? "not recovered: a clean quit deletes the autosave" : "kept the file as saved")
            default:
                // The demo must still start with one key: playing does not wait for the answer.
                if keyMap.action(for: key, in: [.timeline, .global]) == Action("play") { perform(Action("play")) }
            }
        }
    }

    // MARK: Actions

    /// Performs one action (from a key, a mouse click on a tool, or a test).
    public func perform(_ action: Action) {
        let name = action.name
        if name.hasPrefix("prompt.") {
            performPrompt(name)
            return
        }
        // A drag ends when something else happens, except the steps that drive it.
        if let d = drag, !continuesDrag(d, name) {
            if name == "esc" {
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
    }

    private func continuesDrag(_ d: Drag, _ name: String) -> Bool {
        switch d.kind {
        case .shift, .scale:
            // Enter (apply) is handled by the drag itself: it keeps the result.
            return !d.mouse && ["cursor.left", "cursor.right", "cursor.fine.left", "cursor.fine.right", "apply"].contains(name)
        case .tempo, .volume: return false
        case .nudge(let family): return Dispatcher.nudgeFamily(name) == family
        }
    }

    static func nudgeFamily(_ name: String) -> String? {
        if name.hasPrefix("tempo.") { return "tempo" }
        if name.hasPrefix("volume.") { return "volume" }
        if name.hasPrefix("amp.") { return "amp" }
        if name.hasPrefix("track.gain.") { return "gain" }
        if name.hasPrefix("designer.slider.") || (name.hasPrefix("designer.beat.") && name != "designer.beat.toggle") {
            return "slider"
        }
        return nil
    }

    private func run(_ action: Action) throws {
        let s = session
        let name = action.name
        if name.hasPrefix("tool.") {
            guard let tool = Tool(rawValue: String(name.dropFirst(5))) else { return }
            try choose(tool)
            return
        }
        if name.hasPrefix("clip."), let content = Dispatcher.content(ofClipAction: name) {
            try clip(content)
            return
        }
        if name.hasPrefix("designer."), name != "designer.edit" {
            if Dispatcher.nudgeFamily(name) != nil { beginNudge("slider") }
            let message = try DesignerTab.handle(action: name, session: s, state: &view.designer)
            say(message ?? "")
            return
        }
        if name.hasPrefix("tab."), let tab = Tab(rawValue: String(name.dropFirst(4))) {
            view.tab = tab
            view.focus = .tab
            return
        }
        switch name {
        case "play":
            guard let engine else { return say("no audio output in this session") }
            engine.toggle()
        case "rewind":
            engine?.rewind()
        case "loop":
            try command(.loop(on: !s.document.transport.loopOn))
        case "loop.edit":
            let t = s.document.transport
            openPrompt("loop \(Dispatcher.format(t.loopStart)) \(Dispatcher.format(t.loopEnd))")
        case "tempo.up", "tempo.down":
            let t = s.document.transport.tempo
            let next = name == "tempo.up" ? t + 0.05 : t - 0.05
            try nudge("tempo", .tempo(Dispatcher.clamp((next * 100).rounded() / 100, Transport.tempoRange)))
        case "volume.up", "volume.down":
            let v = s.document.transport.volume
            let next = name == "volume.up" ? v + 0.05 : v - 0.05
            try nudge("volume", .volume(Dispatcher.clamp((next * 100).rounded() / 100, 0...1)))
        case "apply":
            try apply()
        case "draw.clip":
            try drawClip()
        case "mode.clip":
            try command(.clipMode(!s.clipMode))
            say(s.clipMode ? "clip mode: tools act on clips" : "marker mode: tools act on markers")
        case "mode.snap":
            try command(.snap(!s.snap))
            say(s.snap ? "snap on: clips go onto existing markers" : "snap off: clips come with their own markers")
        case "cursor.left", "cursor.right", "cursor.fine.left", "cursor.fine.right":
            let sign: Double = name.hasSuffix("right") ? 1 : -1
            let step = view.viewport.secondsPerColumn * (name.contains("fine") ? 0.125 : 1)
            if view.tool == .shift || view.tool == .scale, !selectionIsEmpty {
                try keyDrag(sign: sign, step: step)
            } else {
                moveCursor(to: s.cursor + sign * step)
            }
        case "cursor.prev", "cursor.next":
            let markers = currentMarkers
            if name == "cursor.next" {
                let i = markers.upperBound(time: s.cursor + 1e-12)
                if i < markers.endIndex { moveCursor(to: markers[i].time) }
            } else {
                let i = markers.lowerBound(time: s.cursor - 1e-12)
                if i > 0 { moveCursor(to: markers[i - 1].time) }
            }
        case "cursor.home": moveCursor(to: 0)
        case "cursor.end": moveCursor(to: s.document.transport.length)
        case "cursor.time": openPrompt("cursor " + Dispatcher.format(s.cursor))
        case "track.up", "track.down":
            let n = s.document.tracks.count
            guard n > 0 else { return }
            s.currentTrack = min(max(s.currentTrack + (name == "track.down" ? 1 : -1), 0), n - 1)
        case "track.add":
            try command(.trackAdd(name: nil))
        case "track.mute": try command(.trackMute(track: nil, on: nil))
        case "track.solo": try command(.trackSolo(track: nil, on: nil))
        case "track.gain.up", "track.gain.down":
            guard s.document.tracks.indices.contains(s.currentTrack) else { return say("no track", error: true) }
            let gain = Dispatcher.stepDecibels(s.document.tracks[s.currentTrack].gain, by: name.hasSuffix("up") ? 1 : -1,
                                               within: CommandParser.trackGainRange)
            try nudge("gain", .trackGain(track: nil, gain: gain))
        case "track.rename":
            guard s.document.tracks.indices.contains(s.currentTrack) else { return say("no track", error: true) }
            openRenameEditor()
        case "scroll.left", "scroll.right":
            let cols = Double(max(1, layout.timeline.width * 3 / 4))
            view.viewport.scroll(columns: name == "scroll.right" ? cols : -cols)
        case "zoom.in": view.viewport.zoomIn(about: s.cursor); view.viewport.reveal(s.cursor, columns: columns)
        case "zoom.out": view.viewport.zoomOut(about: s.cursor); view.viewport.reveal(s.cursor, columns: columns)
        case "zoom.fit": fitView()
        case "amp.up", "amp.down":
            try nudgeAmplitude(by: name == "amp.up" ? 0.1 : -0.1)
        case "select.all": try command(.select(.init(.all)))
        case "select.none": try command(.select(.init(.none)))
        case "select.left": try command(.select(.init(.left)))
        case "select.right": try command(.select(.init(.right)))
        case "select.pick": try command(.select(.init(.at(s.cursor))))
        case "select.hold": try command(.select(.init(.at(s.cursor), add: true)))
        case "select.tracks": try command(.select(.init(.all, allTracks: true)))
        case "pattern.edit":
            openPrompt("pattern \"" + s.document.pattern + "\"", cursorBack: 1)
        case "subdivision.up", "subdivision.down":
            s.subdivision = min(max(s.subdivision + (name == "subdivision.up" ? 1 : -1), 1), 64)
            // Subdivide n adds n markers between neighbours (n = 1 halves): "into n" would promise n parts.
            say("subdivide n=\(s.subdivision): \(s.subdivision) new marker\(s.subdivision == 1 ? "" : "s") between each pair")
        case "group.store": try command(.groupStore(view.chosenGroup))
        case "group.stamp": try command(.drawGroup(view.chosenGroup))
        case "undo": try command(.undo(1))
        case "redo": try command(.redo(1))
        case "save":
            if s.path == nil { openPrompt("save " + suggestedPath()) } else { _ = save(nil) }
        case "save-as": openPrompt("save " + (s.path ?? suggestedPath()))
        case "open": openPrompt("open " + directoryOfDocument())
        case "new": whenDiscarded { self.replaceSession(Session(document: .newDocument())) ; self.say("a new document") }
        case "quit": requestQuit()
        case "help": helpOffset = 0
        case "command": openPrompt(action.argument)
        case "run": try runLine(action.argument)
        case "focus.next": view.focus = view.focus == .timeline ? .tab : .timeline
        case "tab.next", "tab.prev":
            let all = Tab.allCases
            let i = all.firstIndex(of: view.tab)!
            view.tab = all[(i + (name == "tab.next" ? 1 : all.count - 1)) % all.count]
        case "slot.left", "slot.right", "slot.up", "slot.down":
            let delta = ["slot.left": -1, "slot.right": 1, "slot.up": -8, "slot.down": 8][name]!
            moveSlot(delta)
        case "slot.choose":
            if view.tab == .groups { try command(.drawGroup(view.chosenGroup)) }
            else if view.tab == .clips { say("clip \(s.chosenClip.code) chosen") }
        case "designer.edit": openPrompt(Dispatcher.temperLine(s.document.designer))
        case _ where name.hasPrefix("slot."):
            try changeSlot(name)
        case "esc":
            if !selectionIsEmpty { try command(.select(.init(.none))) } else { say("") }
        default:
            say("'\(name)' does nothing here")
        }
    }

    // MARK: Tools

    /// Tools that act at once on the selection (buttons) rather than waiting for Enter or a click.
    static let instantTools: Set<Tool> = [.allLeft, .allRight, .subdivide, .rotate, .reverse, .delete]

    private func choose(_ tool: Tool) throws {
        if Dispatcher.instantTools.contains(tool) {
            try use(tool)
            return
        }
        view.tool = tool
        switch tool {
        case .typing: say("typing draw: type clips (1-9, 0 is 10, !@#$%^ are 11-16, + - ~) onto empty markers")
        case .shift: say("shift: arrows or a drag move the selection; Enter keeps, Esc cancels")
        case .scale: say("scale: arrows or a drag move the handle nearest the cursor; Enter keeps, Esc cancels")
        case .fill, .patternSelect: openPatternEditor(for: tool)
        default: say("")
        }
    }

    /// Enter: the chosen tool at the cursor.
    private func apply() throws {
        if drag != nil { finishDrag(); return }
        try use(view.tool)
    }

    private func use(_ tool: Tool) throws {
        let s = session
        // A pattern tool with no code yet asks for one rather than failing.
        if tool.usesPattern, s.document.pattern.trimmingCharacters(in: " ").isEmpty {
            view.tool = tool
            openPatternEditor(for: tool)
            return
        }
        switch tool {
        case .drawSingle: try command(.draw(amp: drawAmp))
        case .drawGroup: try command(.drawGroup(view.chosenGroup))
        case .typing: try command(.type(PatternParser.parse(s.chosenClip.code)))
        case .fill: try command(.fill(PatternParser.parse(s.document.pattern)))
        case .select: try command(.select(.init(.at(s.cursor))))
        case .hold: try command(.select(.init(.at(s.cursor), add: true)))
        case .allLeft: try command(.select(.init(.left)))
        case .allRight: try command(.select(.init(.right)))
        case .patternSelect: try command(.select(.init(.pattern(PatternParser.parse(s.document.pattern)))))
        case .shift, .scale:
            say(selectionIsEmpty ? "select markers first (s picks, < > take all left or right)"
                                 : "arrows or a drag move the selection; Enter keeps, Esc cancels")
        case .subdivide: try command(.subdivide(s.subdivision))
        case .rotate: try command(.rotate)
        case .reverse: try command(.reverse)
        case .delete: try command(.delete)
        }
    }

    /// A clip key: chooses the clip, or types it in typing draw.
    private func clip(_ content: Content) throws {
        if view.tool == .typing, view.focus == .timeline {
            try command(.type(PatternParser.parse(content.code)))
        } else {
            try command(.chooseClip(content))
            if view.focus == .tab, view.tab == .groups, case .clip(let n) = content {
                view.chosenGroup = n
                say("group \(n) chosen")
            } else {
                say("clip \(content.code) chosen" + clipName(content))
            }
        }
    }

    private func clipName(_ content: Content) -> String {
        guard case .clip(let n) = content, ClipSlot.range.contains(n) else { return "" }
        let name = session.document.slot(n).name
        return name.isEmpty ? "" : ": " + name
    }

    static func content(ofClipAction name: String) -> Content? {
        switch name {
        case "clip.hold": return .hold
        case "clip.rest": return .rest
        case "clip.random": return .random
        default: return Int(name.dropFirst(5)).flatMap { ClipSlot.range.contains($0) ? .clip($0) : nil }
        }
    }

    /// Adds a marker carrying the chosen clip at the cursor, whatever the mode: the shortest way from a key
    /// to a new sound. In clip mode with snap it puts the clip on the nearest marker instead, as drawing does.
    private func drawClip() throws {
        let s = session
        if s.clipMode {
            try command(.draw(amp: drawAmp))
            return
        }
        guard s.document.tracks.indices.contains(s.currentTrack) else { return say("no track to draw on") }
        let marker = Marker(id: 0, time: s.cursor, amp: drawAmp, content: s.chosenClip)
        let track = s.currentTrack
        try s.perform("draw") { edit in edit.insert(marker, track: track) }
        say("added clip \(s.chosenClip.code)\(clipName(s.chosenClip)) at " + String(format: "%.3f s", s.cursor))
    }

    private func moveSlot(_ delta: Int) {
        if view.tab == .groups {
            view.chosenGroup = (view.chosenGroup - 1 + delta + 16 * 4) % 16 + 1
            return
        }
        var n = 1
        if case .clip(let c) = session.chosenClip { n = c }
        session.chosenClip = .clip((n - 1 + delta + 16 * 4) % 16 + 1)
        say("clip \(session.chosenClip.code) chosen" + clipName(session.chosenClip))
    }

    /// A gain one decibel step louder or softer, on whole decibels (so steps from unity land on -1, -2... dB),
    /// within `range`; below -60 dB it is silence, and a step up from silence is -60 dB.
    static func stepDecibels(_ gain: Double, by step: Double, within range: ClosedRange<Double>) -> Double {
        let floor = -60.0
        let db: Double
        if gain > 0 {
            db = (20 * log10(gain)).rounded() + step
        } else {
            guard step > 0 else { return clamp(0, range) }
            db = floor
        }
        if db < floor { return clamp(0, range) }
        return clamp(pow(10, db / 20), range)
    }

    /// Envelope times a step reaches, in milliseconds: fine where the ear tells the difference.
    static let envelopeSteps: [Double] = [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000]

    /// The next envelope time up or down the steps from `ms` (a time between steps goes to its neighbour).
    static func stepEnvelope(_ ms: Double, up: Bool) -> Double {
        if up { return envelopeSteps.first { $0 > ms + 1e-9 } ?? envelopeSteps.last! }
        return envelopeSteps.last { $0 < ms - 1e-9 } ?? 0
    }

    /// The Clips tab's keys: settings of the chosen slot, each one undo step.
    private func changeSlot(_ name: String) throws {
        let s = session
        guard case .clip(let n) = s.chosenClip, ClipSlot.range.contains(n) else {
            return say("choose a clip slot first (1-16)", error: true)
        }
        let slot = s.document.slot(n)
        var settings = Command.SlotSettings()
        let message: String
        switch name {
        case "slot.mode":
            let mode: ClipSlot.Mode = slot.mode == .gate ? .oneShot : .gate
            settings.mode = mode
            message = mode == .gate ? "gate: sounds until the next marker" : "one-shot: plays to its end"
        case "slot.gain.up", "slot.gain.down":
            // 0...16 is the range the `slot` command takes.
            let gain = Dispatcher.stepDecibels(slot.gain, by: name.hasSuffix("up") ? 1 : -1, within: 0...16)
            settings.gain = gain
            message = "gain \(Format.fixed(gain, 3)) (\(Dispatcher.decibels(gain)))"
        case "slot.note.up", "slot.note.down", "slot.octave.up", "slot.octave.down":
            let step = (name.hasSuffix("up") ? 1 : -1) * (name.hasPrefix("slot.octave") ? 12 : 1)
            let note = min(max((slot.note ?? 60) + step, 0), 127)
            settings.note = note
            message = "note \(note)" + (slot.file == nil ? "" : " (60 plays the sample as recorded)")
        case "slot.note.clear":
            guard slot.note != nil else { return say("slot \(n) has no note") }
            var cleared = slot
            cleared.note = nil
            try s.perform("slot \(n)") { $0.setSlot(n, cleared) }
            let label = cleared.name.isEmpty ? "" : " " + cleared.name
            return say("slot \(n)\(label): no note" + (cleared.isEmpty ? " (the slot is empty now)" : ", the sample as recorded"))
        case "slot.attack.up", "slot.attack.down":
            let ms = Dispatcher.stepEnvelope(slot.attack, up: name.hasSuffix("up"))
            settings.attack = ms
            message = "attack \(Dispatcher.format(ms)) ms"
        case "slot.release.up", "slot.release.down":
            let ms = Dispatcher.stepEnvelope(slot.release, up: name.hasSuffix("up"))
            settings.release = ms
            message = "release \(Dispatcher.format(ms)) ms"
        case "slot.file":
            openPrompt("slot \(n) file=\"" + (slot.file ?? "") + "\"", cursorBack: 1)
            return
        default:
            return say("'\(name)' does nothing here")
        }
        try command(.slot(n, settings))
        let label = s.document.slot(n).name
        say("slot \(n)\(label.isEmpty ? "" : " " + label): " + message)
    }

    /// A gain for a narrow column: `-3dB`, `+1.5dB`, `-infdB`.
    static func compactDecibels(_ gain: Double) -> String {
        guard gain > 0 else { return "-infdB" }
        let tenths = (200 * log10(gain)).rounded()
        let whole = tenths.truncatingRemainder(dividingBy: 10) == 0
        return (tenths > 0 ? "+" : "") + (whole ? String(Int(tenths / 10)) : String(format: "%.1f", tenths / 10)) + "dB"
    }

    /// A linear gain as decibels to a tenth: `-1.0 dB`, `-inf dB` for silence.
    static func decibels(_ gain: Double) -> String {
        guard gain > 0 else { return "-inf dB" }
        let db = (20 * log10(gain) * 10).rounded() / 10
        return String(format: "%+.1f dB", db == 0 ? 0 : db)
    }

    private func nudgeAmplitude(by delta: Double) throws {
        let s = session
        let tracks = s.selection.filter { !$0.value.isEmpty }.map(\.key).sorted()
        if tracks.isEmpty {
            drawAmp = Dispatcher.clamp(((drawAmp + delta) * 10).rounded() / 10, 0.1...1)
            say("drawing amplitude \(Int((drawAmp * 100).rounded()))%")
            return
        }
        beginNudge("amp")
        try s.perform("amplitude") { edit in
            for t in tracks {
                for i in s.selectedIndices(track: t) {
                    var m = edit.document.tracks[t].markers[i]
                    m.amp = Dispatcher.clamp(((m.amp + delta) * 100).rounded() / 100, 0...1)
                    edit.replace(m, track: t)
                }
            }
        }
    }

    // MARK: Drags

    private var selectionIsEmpty: Bool { session.selection.values.allSatisfy(\.isEmpty) }

    /// The track whose selection a drag handles: the current one if it has a selection, else the first that does.
    private var dragTrack: Int? {
        let s = session
        if !(s.selection[s.currentTrack]?.isEmpty ?? true) { return s.currentTrack }
        return s.selection.filter { !$0.value.isEmpty }.map(\.key).min()
    }

    /// The selected marker nearest a time on the drag track, as (K from 1, its time).
    private func nearestSelected(to time: Double) -> (k: Int, time: Double)? {
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
        if drag == nil {
            if view.tool == .shift {
                s.beginTransaction("shift")
                drag = Drag(kind: .shift, mouse: false, anchor: 0, pressTime: 0, lastStep: clock(), revision: session.revision)
            } else {
                guard let h = nearestSelected(to: s.cursor) else { return }
                s.beginTransaction("scale")
                drag = Drag(kind: .scale(k: h.k), mouse: false, anchor: h.time, pressTime: h.time, lastStep: clock(), revision: session.revision)
            }
        }
        guard var d = drag else { return }
        switch d.kind {
        case .shift:
            // Clip mode with snap moves clips from marker to marker.
            let by = s.clipMode && s.snap ? sign : sign * step
            try tryStep { try self.session.run(.shift(by)) }
        case .scale(let k):
            let to = max(0, d.anchor + sign * step)
            if try tryStep({ try self.session.run(.scaleHandle(k: k, to: to)) }) { d.anchor = to }
        default: break
        }
        d.lastStep = clock()
        drag = d
    }

    /// Runs one step of a drag; a step that cannot apply is refused and the drag goes on.
    @discardableResult
    private func tryStep(_ body: () throws -> String?) throws -> Bool {
        do {
            _ = try body()
            return true
        } catch let e as CommandError {
            say(e.description, error: true)
            return false
        }
    }

    /// Held-key nudges of one family become one undo step.
    private func beginNudge(_ family: String) {
        if case .nudge(let f) = drag?.kind, f == family {
            drag!.lastStep = clock()
            return
        }
        if drag != nil { finishDrag() }
        session.beginTransaction(family)
        drag = Drag(kind: .nudge(family), mouse: false, anchor: 0, pressTime: 0, lastStep: clock(), revision: session.revision)
    }

    private func nudge(_ family: String, _ c: Command) throws {
        beginNudge(family)
        try command(c)
    }

    /// Ends a drag: its steps become one undo step.
    public func finishDrag() {
        guard let d = drag else { return }
        drag = nil
        session.commitTransaction()
        switch d.kind {
        case .shift, .scale:
            if session.revision != d.revision, let name = session.undoName {
                say("\(name) kept" + (keyMap.hints["undo"].map { " (\($0) undoes)" } ?? ""))
            }
        default: break
        }
    }

    /// Cancels a drag: the document goes back to where the drag began.
    public func abortDrag() {
        guard drag != nil else { return }
        drag = nil
        session.abortTransaction()
        say("cancelled")
    }

    /// True while a drag's transaction is open.
    public var dragging: Bool { drag != nil }

    /// Called by the loop when idle: a nudge by held keys ends after a pause.
    public func tick() {
        if let d = drag, !d.mouse, case .nudge = d.kind, clock() - d.lastStep > 1.5 { finishDrag() }
    }

    // MARK: Mouse

    public func handle(_ m: MouseEvent) {
        // Hit-testing lays the screen out again: done only when the answer matters (a timeline drag needs only
        // the column's time, and motion without a drag nothing).
        var hit: Hit {
            EditorView.hitTest(x: m.x, y: m.y, session: session, view: view, size: (width, height))
        }
        if helpOffset != nil {
            if m.kind == .press { helpOffset = nil }
            else if m.kind == .wheelUp { helpOffset = max(0, helpOffset! - 3) }
            else if m.kind == .wheelDown { helpOffset! += 3 }
            return
        }
        if question != nil || prompt != nil {
            if m.kind == .press, prompt != nil { prompt = nil; syncPrompt() }
            else { return }
        }
        do {
            switch m.kind {
            case .press: try press(hit, m)
            case .drag:
                guard let d = drag, d.mouse else { return }
                try move(d.kind == .tempo || d.kind == .volume ? hit : .none, m)
            case .release: finishDrag()
            case .wheelUp, .wheelDown: wheel(hit, m)
            }
        } catch {
            fail(error)
        }
    }

    private func press(_ hit: Hit, _ m: MouseEvent) throws {
        if drag != nil { finishDrag() }
        let s = session
        switch hit {
        case .timeline(let track, let time, let amp):
            s.currentTrack = track
            if m.button == 3 {
                try command(.select(.init(.at(time), add: true)))
                return
            }
            try click(time: time, amp: amp)
        case .ruler(let time): moveCursor(to: time)
        case .trackName(let t): s.currentTrack = t
        case .tool(let tool): try choose(tool)
        case .clipMode: try run(Action("mode.clip"))
        case .snap: try run(Action("mode.snap"))
        case .subdivision: try run(Action(m.button == 3 ? "subdivision.down" : "subdivision.up"))
        case .patternArea:
            // With a pattern tool chosen, its own editor (Enter applies); else the `:` line's `pattern`.
            if view.tool.usesPattern { openPatternEditor(for: view.tool) } else { try run(Action("pattern.edit")) }
        case .tab(let tab):
            view.tab = tab
            view.focus = .tab
        case .slot(let n):
            try command(.chooseClip(.clip(n)))
            say("clip \(n) chosen" + clipName(.clip(n)))
        case .clipContent(let c):
            try command(.chooseClip(c))
            say("clip \(c.code) chosen")
        case .group(let n):
            view.chosenGroup = n
            say("group \(n) chosen")
        case .play: try run(Action("play"))
        case .rewind: try run(Action("rewind"))
        case .loop: try run(Action("loop"))
        case .tempo(let v):
            s.beginTransaction("tempo")
            drag = Drag(kind: .tempo, mouse: true, anchor: 0, pressTime: 0, lastStep: clock(), revision: session.revision)
            try tryStep { try s.run(.tempo(Dispatcher.clamp(v, Transport.tempoRange))) }
        case .volume(let v):
            s.beginTransaction("volume")
            drag = Drag(kind: .volume, mouse: true, anchor: 0, pressTime: 0, lastStep: clock(), revision: session.revision)
            try tryStep { try s.run(.volume(Dispatcher.clamp(v, 0...1))) }
        case .designer(let x, let y):
            view.tab = .designer
            view.focus = .tab
            let r = layout.tabs
            if let message = try DesignerTab.click(x: x, y: y, width: r.width, height: r.height, session: s,
                                                   state: &view.designer) {
                say(message)
            }
        case .statusLine: openPrompt("")
        case .none: break
        }
    }

    /// A left click on the timeline, by tool.
    private func click(time: Double, amp: Double) throws {
        let s = session
        switch view.tool {
        case .drawSingle:
            s.cursor = time
            try command(.draw(amp: amp))
        case .drawGroup:
            s.cursor = time
            try command(.drawGroup(view.chosenGroup))
        case .select, .subdivide, .rotate, .reverse, .delete:
            s.cursor = time
            try command(.select(.init(.at(time))))
        case .hold:
            s.cursor = time
            try command(.select(.init(.at(time), add: true)))
        case .shift, .scale:
            if nearestSelected(to: time).map({ abs($0.time - time) > 2 * view.viewport.secondsPerColumn }) ?? true {
                try command(.select(.init(.at(time))))
            }
            guard let h = nearestSelected(to: time) else { return }
            if view.tool == .shift {
                s.beginTransaction("shift")
                drag = Drag(kind: .shift, mouse: true, anchor: time, pressTime: time, lastStep: clock(), revision: session.revision)
            } else {
                s.beginTransaction("scale")
                drag = Drag(kind: .scale(k: h.k), mouse: true, anchor: h.time, pressTime: time, lastStep: clock(), revision: session.revision)
            }
        default:
            // Typing, fill, and the selections that start from the cursor: the click places the cursor.
            moveCursor(to: time)
            if view.tool == .allLeft || view.tool == .allRight || view.tool == .patternSelect || view.tool == .fill {
                try use(view.tool)
            }
        }
    }

    private func move(_ hit: Hit, _ m: MouseEvent) throws {
        guard var d = drag, d.mouse else { return }
        let s = session
        switch (d.kind, hit) {
        case (.shift, _):
            guard let time = timeAt(x: m.x) else { return }
            if s.clipMode && s.snap {
                // Clips move marker by marker: count the markers the pointer passed.
                let markers = currentMarkers
                let a = markers.lowerBound(time: min(d.anchor, time)), b = markers.upperBound(time: max(d.anchor, time))
                let steps = max(0, b - a - 1)
                guard steps > 0 else { return }
                if try tryStep({ try s.run(.shift(Double(time > d.anchor ? steps : -steps))) }) { d.anchor = time }
            } else {
                let by = time - d.anchor
                guard by != 0 else { return }
                if try tryStep({ try s.run(.shift(by)) }) { d.anchor = time }
            }
        case (.scale(let k), _):
            guard let time = timeAt(x: m.x) else { return }
            try tryStep { try s.run(.scaleHandle(k: k, to: max(0, d.anchor + time - d.pressTime))) }
        case (.tempo, .tempo(let v)):
            try tryStep { try s.run(.tempo(Dispatcher.clamp(v, Transport.tempoRange))) }
        case (.volume, .volume(let v)):
            try tryStep { try s.run(.volume(Dispatcher.clamp(v, 0...1))) }
        default: break
        }
        d.lastStep = clock()
        drag = d
    }

    /// The time under a screen column, even outside the timeline's rows (a drag may wander off them).
    private func timeAt(x: Int) -> Double? {
        let l = layout
        guard l.fits else { return nil }
        let col = min(max(x - l.timeline.x, 0), max(l.timeline.width - 1, 0))
        return view.viewport.time(atColumn: Double(col))
    }

    private func wheel(_ hit: Hit, _ m: MouseEvent) {
        let up = m.kind == .wheelUp
        if m.shift || m.ctrl {
            view.viewport.scroll(columns: up ? -4 : 4)
            return
        }
        switch hit {
        case .timeline(_, let time, _), .ruler(let time):
            if up { view.viewport.zoomIn(about: time) } else { view.viewport.zoomOut(about: time) }
        default:
            if up { view.viewport.zoomIn(about: session.cursor) } else { view.viewport.zoomOut(about: session.cursor) }
        }
    }

    // MARK: The `:` line

    private func openPrompt(_ text: String, cursorBack: Int = 0) {
        var p = Prompt(text, history: history)
        p.move(to: p.text.count - cursorBack)
        prompt = p
        promptPurpose = .command
        syncPrompt()
    }

    /// The pattern editor of the fill and pattern-select tools: the document's code, selected so that typing
    /// replaces it and the arrows edit it. Enter stores and applies it; Esc closes it, the tool staying chosen.
    private func openPatternEditor(for tool: Tool) {
        var p = Prompt(session.document.pattern)
        p.selectAll()
        prompt = p
        promptPurpose = .pattern(tool)
        syncPrompt()
    }

    /// The current track's name, selected so that typing replaces it and the arrows edit it; Enter renames.
    private func openRenameEditor() {
        var p = Prompt(session.document.tracks[session.currentTrack].name)
        p.selectAll()
        prompt = p
        promptPurpose = .rename
        syncPrompt()
    }

    private func syncPrompt() {
        view.commandLine = prompt?.line
        view.commandCursor = prompt?.cursor ?? 0
        view.commandSelected = prompt?.selected ?? false
        switch (prompt, promptPurpose) {
        case (nil, _), (_, .command):
            view.commandLabel = ":"
            view.patternInput = nil
        case (let p?, .pattern(let tool)):
            view.commandLabel = (tool == .fill ? "fill" : "select") + " pattern: "
            view.patternInput = p.line
        case (_?, .rename):
            view.commandLabel = "rename track \(session.currentTrack + 1): "
            view.patternInput = nil
        }
    }

    /// Enter in the pattern editor: a code that reads stores it and applies it (fill from the cursor or over
    /// the selection, pattern select from the cursor) as one undo step. A bad code keeps the editor open with
    /// the error.
    private func acceptPattern(_ code: String, tool: Tool) {
        let s = session
        let parsed: PatternCode
        do {
            parsed = try PatternParser.parse(code)
        } catch {
            fail(error)
            return
        }
        prompt = nil
        syncPrompt()
        say("")
        do {
            if tool == .fill {
                // Fill stores the code in the same step as it fills.
                try command(.fill(parsed))
            } else {
                if code != s.document.pattern { try s.perform("pattern") { $0.setPattern(code) } }
                try command(.select(.init(.pattern(parsed))))
            }
        } catch {
            // The code is kept even when there is nothing to apply it to yet: Enter on the timeline retries.
            if code != s.document.pattern { try? s.perform("pattern") { $0.setPattern(code) } }
            fail(error)
        }
    }

    /// Editor commands the `:` line knows besides the document's.
    static let editorCommands = ["quit", "q", "q!", "w", "write", "wq", "x", "open", "e", "new", "theme", "help", "pattern"]

    private func performPrompt(_ name: String) {
        guard var p = prompt else { return }
        // An error shown beside the line is about the text as it was.
        if view.messageIsError, name != "prompt.accept" { say("") }
        if name == "prompt.accept", case .pattern(let tool) = promptPurpose {
            acceptPattern(p.line, tool: tool)
            return
        }
        if promptPurpose == .rename, name == "prompt.accept" || name == "prompt.cancel" {
            let newName = p.line
            prompt = nil
            syncPrompt()
            if name == "prompt.accept" {
                do { try command(.trackName(track: nil, name: newName)) } catch { fail(error) }
            }
            return
        }
        if name == "prompt.cancel", case .pattern(let tool) = promptPurpose {
            prompt = nil
            syncPrompt()
            let key = view.key(tool.action) ?? tool.action
            let code = session.document.pattern
            say("\(tool == .fill ? "fill" : "pattern select"): "
                + (code.isEmpty ? "\(key) types a code" : "Enter applies \"\(code)\", \(key) edits it"))
            return
        }
        switch name {
        case "prompt.accept":
            let line = p.line
            p.remember(line)
            history = p.history
            prompt = nil
            syncPrompt()
            do { try runLine(line) } catch { fail(error) }
            return
        case "prompt.cancel":
            prompt = nil
            // The quit question is still on the status line; it must not look as if it waited for y/n/c.
            if quitAfterSave { say("quit cancelled: nothing saved") }
            quitAfterSave = false
            syncPrompt()
            return
        case "prompt.left": p.left()
        case "prompt.right": p.right()
        case "prompt.home": p.home()
        case "prompt.end": p.end()
        case "prompt.backspace":
            if p.text.isEmpty {
                prompt = nil
                syncPrompt()
                return
            }
            p.backspace()
        case "prompt.delete": p.delete()
        case "prompt.word.backspace": p.deleteWordBackward()
        case "prompt.kill": p.killToEnd()
        case "prompt.clear": p.clear()
        case "prompt.history.prev": p.historyPrevious()
        case "prompt.history.next": p.historyNext()
        case "prompt.complete":
            // A pattern code or a name has no command names to complete.
            if promptPurpose != .command { break }
            let candidates = p.complete(from: CommandParser.names + Dispatcher.editorCommands.filter { $0.count > 2 })
            if candidates.count > 1 { say(candidates.joined(separator: " ")) }
        default: break
        }
        prompt = p
        syncPrompt()
    }

    /// The accepted history of the `:` line, oldest first (kept across sessions by the editor).
    public var commandHistory: [String] {
        get { history }
        set { history = newValue }
    }

    /// Runs one line as the `:` line does: editor commands (quit, write, open, theme...) first, then the
    /// document's command language.
    public func runLine(_ line: String) throws {
        let trimmed = line.trimmingCharacters(in: " ")
        guard !trimmed.isEmpty else { return }
        let word = String(trimmed.prefix { $0 != " " })
        let rest = String(trimmed.dropFirst(word.count)).trimmingCharacters(in: " ")
        let arg = Dispatcher.unquote(rest)
        switch word {
        case "q", "quit": requestQuit()
        case "q!", "quit!":
            discardedChanges = true
            quitRequested = true
        case "w", "write", "save": _ = save(arg.isEmpty ? nil : Dispatcher.expand(arg))
        case "wq", "x": if save(arg.isEmpty ? nil : Dispatcher.expand(arg)) { quitRequested = true }
        case "e", "open", "edit":
            guard !arg.isEmpty else { return say("open needs a file name", error: true) }
            let path = Dispatcher.expand(arg)
            whenDiscarded { self.open(path) }
        case "e!":
            guard !arg.isEmpty else { return say("open needs a file name", error: true) }
            open(Dispatcher.expand(arg))
        case "new": whenDiscarded { self.replaceSession(Session(document: .newDocument())); self.say("a new document") }
        case "theme":
            // Short enough to be read whole on the status line of an 80-column screen.
            let choices = "(\(Theme.shippedNames.joined(separator: ", ")), or your own)"
            guard !arg.isEmpty else { return say("theme needs a name \(choices)", error: true) }
            guard let theme = try Theme.named(arg, paths: paths) else {
                return say("no theme '\(arg)' \(choices)", error: true)
            }
            requestedTheme = theme
            say("theme \(arg)")
        case "help": helpOffset = 0
        case "pattern":
            _ = try PatternParser.parse(arg)
            try session.perform("pattern") { $0.setPattern(arg) }
            say("pattern \"\(arg)\"")
        default:
            let cursor = session.cursor
            defer { revealIfMoved(from: cursor) }
            if let message = try session.run(line: trimmed) { say(message) } else { say("") }
        }
    }

    // MARK: Files

    /// Saves (to `path`, or where the document came from). Returns false and says why on failure.
    @discardableResult
    public func save(_ path: String?) -> Bool {
        guard path != nil || session.path != nil else {
            openPrompt("save " + suggestedPath())
            return false
        }
        do {
            let message = try session.run(.save(path))
            if let path { session.path = path }
            unsavedRecovery = false
            view.fileName = Dispatcher.fileName(session.path)
            say(message ?? "saved \(session.path ?? "")")
            if quitAfterSave {
                quitAfterSave = false
                quitRequested = true
            }
            return true
        } catch {
            fail(error)
            return false
        }
    }

    private func open(_ path: String) {
        if !FileManager.default.fileExists(atPath: path) {
            replaceSession(Session(document: .newDocument(), path: path))
            say("new file \(path)")
            return
        }
        do {
            let doc = try DocumentFile.load(path)
            replaceSession(Session(document: doc, path: path))
            say("opened \(path)")
        } catch {
            fail(error)
        }
    }

    /// Puts a new session in place (open, new, recover).
    public func replaceSession(_ new: Session) {
        if drag != nil { finishDrag() }
        session = new
        unsavedRecovery = false
        sessionGeneration += 1
        view.fileName = Dispatcher.fileName(new.path)
        view.trackScroll = 0
        fitView()
    }

    private var hasUnsavedWork: Bool { session.isModified || unsavedRecovery }

    private func whenDiscarded(_ then: @escaping () -> Void) {
        if hasUnsavedWork {
            afterDiscard = then
            question = .discard
            say(Question.discard.text)
        } else {
            then()
        }
    }

    private func requestQuit() {
        if hasUnsavedWork {
            question = .quit
            say(Question.quit.text)
        } else {
            quitRequested = true
        }
    }

    private func suggestedPath() -> String {
        let name = session.path.map { ($0 as NSString).lastPathComponent } ?? "untitled.tempera"
        return directoryOfDocument() + name
    }

    private func directoryOfDocument() -> String {
        guard let p = session.path else { return "" }
        let dir = (p as NSString).deletingLastPathComponent
        return dir.isEmpty ? "" : dir + "/"
    }

    static func expand(_ path: String) -> String { (path as NSString).expandingTildeInPath }

    static func unquote(_ s: String) -> String {
        if s.count >= 2, s.first == "\"", s.last == "\"" { return String(s.dropFirst().dropLast()) }
        return s
    }

    // MARK: Helpers

    /// The timeline's width in columns.
    public var columns: Int { max(1, layout.timeline.width) }

    /// Shows the loop region across the timeline.
    public func fitView() {
        let t = session.document.transport
        let end = max(t.length, t.loopOn ? t.loopEnd : t.length)
        view.viewport = Viewport.fitting(0, max(end, 0.01), columns: columns)
    }

    private var currentMarkers: MarkerList {
        let s = session
        guard s.document.tracks.indices.contains(s.currentTrack) else { return MarkerList() }
        return s.document.tracks[s.currentTrack].markers
    }

    private func moveCursor(to time: Double) {
        session.cursor = max(0, time)
        view.viewport.reveal(session.cursor, columns: columns)
    }

    /// Runs a command from a key. A command that changes the document without a word of its own (rotate,
    /// reverse) clears the last message, so the status line names the new undo step instead of a stale one.
    private func command(_ c: Command) throws {
        let revision = session.revision, cursor = session.cursor
        defer { revealIfMoved(from: cursor) }
        if let message = try session.run(c) { say(message) } else if session.revision != revision { say("") }
    }

    /// A command that moves the cursor (a stamp leaves it after what it stamped, `:cursor` puts it anywhere)
    /// scrolls the timeline to it, so what was just done is in sight.
    private func revealIfMoved(from cursor: Double) {
        if session.cursor != cursor { view.viewport.reveal(session.cursor, columns: columns) }
    }

    /// Sets the status line.
    public func say(_ text: String, error: Bool = false) {
        view.message = text.isEmpty ? nil : text
        view.messageIsError = error
    }

    private func fail(_ error: Error) {
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

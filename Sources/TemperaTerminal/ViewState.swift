import TemperaCore

/// Everything the editor's screen shows that is not in the `Session`: the visible time range, the chosen
/// tool and tab, text being typed, the last message, playback state sampled from the engine.
///
/// A plain value: the editor loop owns one, changes it in response to input, and passes it to
/// `EditorView.draw` each frame.
public struct ViewState: Hashable, Sendable {
    /// Which area keys go to.
    public enum Focus: String, Hashable, Sendable {
        case timeline, tab
    }

    /// The visible stretch of the timeline.
    public var viewport: Viewport
    /// The chosen tool, highlighted in the tool panel.
    public var tool: Tool
    /// The tab shown in the lower-right area.
    public var tab: Tab
    /// Which area has the keys; its title is drawn active.
    public var focus: Focus
    /// The group slot (1...16) that `draw group` stamps and the Groups tab highlights.
    public var chosenGroup: Int
    /// The last message for the status line (a command's result or error).
    public var message: String?
    /// Draws the message in the error role.
    public var messageIsError: Bool
    /// The line at the bottom while it is open (the `:` line, the pattern editor, a name editor); nil when
    /// closed. The prompt input mode edits it here and the status line draws it from here.
    public var prompt: Prompt?
    /// The first line of the `?` overlay while it is open; nil when closed. The help input mode scrolls it and
    /// the editor clamps it to the last full page when it draws the overlay.
    public var helpOffset: Int?
    /// The file or kit chooser while it is open (it takes every key, and is drawn over the screen).
    public var picker: Picker?
    /// A question waiting for its one-key answer (its text is the status line's message).
    public var question: Dispatcher.Question?
    /// Draw with ASCII only (no UTF-8 locale): no box drawing, blocks or arrows.
    public var ascii: Bool
    /// Playback state sampled from the engine each frame.
    public var transport: TransportInfo
    /// The other participants of a shared document: drawn as guides in their own colours, with their names.
    public var others: [Collaborator] = []
    /// Who shares the document (the title of the timeline says it); nil when it is not shared.
    public var sharedWith: [String]?
    /// Markers another participant just changed, drawn highlighted for a moment.
    public var flashed: Set<MarkerID> = []
    /// The first track row shown when the tracks do not all fit (0-based). The layout moves it further
    /// when needed to keep the current track in view.
    public var trackScroll: Int
    /// The key map in force: the input modes look keys up in it, and the screen labels actions with its keys.
    public var keyMap: KeyMap { didSet { keyHints = keyMap.hints } }
    /// Key labels by action name (`tool.shift` → `s`, `mode.clip` → `c`, `play` → `Space`): derived from
    /// `keyMap` and kept with it (set only when the map changes), so the screen always shows the bindings in
    /// force without rebuilding them each frame. Tests set labels directly.
    public internal(set) var keyHints: [String: String]
    /// The ruler reads seconds instead of bars.beats.
    public var rulerSeconds = false
    /// An export running off the editor thread: what it writes and how far it got (0...1).
    public var render: RenderProgress?

    public struct RenderProgress: Hashable, Sendable {
        public var path: String
        public var fraction: Double
    }
    /// Slots whose sound could not be loaded (the Clips tab marks them until they load).
    public var brokenSlots: Set<Int> = []
    /// The Rhythm Designer tab's focus, cursors and settings (`DesignerTab.handle` changes it).
    public var designer = DesignerState()
    /// The Song tab's cursor: the section (from 0) its keys act on.
    public var songRow = 0
    /// The Song tab's grid cursor: the track (from 0) its cell keys act on.
    public var songTrack = 0
    /// Digits typed in the Song tab for a BPM (`song.bpm.start`, `song.bpm.end`).
    public var songDigits = ""
    /// The tempo lane is current: the timeline's keys act on the tempo map's points.
    public var tempoLane = false
    /// The velocity the pad keys play at (0.1...1); Shift plays at 1.
    public var padVelocity = 0.8
    /// The amplitude drawing gives new markers from the keyboard (mouse clicks take it from the row).
    public var drawAmp = 0.8
    /// Hits recorded in the take running, for the Pads tab (0 when none runs).
    public var takeHits = 0
    /// `Player.droppedMidiHits` when the take running started: what it lost is the count's growth since.
    public var takeDroppedFrom = 0
    /// The last pad played and its velocity, for the Pads tab.
    public var lastPad: LastPad?

    public struct LastPad: Hashable, Sendable {
        public var slot: Int
        public var velocity: Double
    }

    public init(viewport: Viewport = Viewport(), tool: Tool = .drawSingle, tab: Tab = .clips,
                focus: Focus = .timeline, chosenGroup: Int = 1, message: String? = nil, messageIsError: Bool = false,
                prompt: Prompt? = nil, ascii: Bool = false, transport: TransportInfo = TransportInfo(),
                trackScroll: Int = 0, keyMap: KeyMap = KeyMap()) {
        self.viewport = viewport
        self.tool = tool
        self.tab = tab
        self.focus = focus
        self.chosenGroup = chosenGroup
        self.message = message
        self.messageIsError = messageIsError
        self.prompt = prompt
        self.ascii = ascii
        self.transport = transport
        self.trackScroll = trackScroll
        self.keyMap = keyMap
        self.keyHints = keyMap.hints
    }

    /// The text of the line at the bottom while it is open (without its label); nil when closed.
    public var commandLine: String? { prompt?.line }
    /// The insertion point in `commandLine`, in characters.
    public var commandCursor: Int { prompt?.cursor ?? 0 }
    /// What the line shows before `commandLine`: `:` for commands, `fill pattern: ` for the pattern editor.
    public var commandLabel: String { prompt?.label ?? ":" }
    /// The whole of `commandLine` is selected (a pre-filled value that typing replaces).
    public var commandSelected: Bool { prompt?.selected ?? false }
    /// The characters of the line selected (typing replaces them).
    public var commandSelection: Range<Int>? { prompt?.selection }
    /// A pattern code being typed in the pattern editor, shown in the pattern area; nil when the area shows the
    /// document's pattern.
    public var patternInput: String? {
        guard let prompt, case .pattern = prompt.purpose else { return nil }
        return prompt.line
    }

    /// The key label for an action, if the key map binds one.
    public func key(_ action: String) -> String? { keyHints[action] }
}

/// Another participant's place in a shared document.
public struct Collaborator: Hashable, Sendable {
    public var name: String
    public var cursor: Double
    /// Their current track, from 0.
    public var track: Int
    /// Their colour (one of a few roles, by joining order).
    public var role: Role

    public init(name: String, cursor: Double, track: Int, role: Role) {
        self.name = name
        self.cursor = cursor
        self.track = track
        self.role = role
    }

    /// The colours participants are told apart by.
    public static let roles: [Role] = [.accent, .warning, .playing, .sliderKnob]
}

import TemperaCore

/// Up or down, louder or softer, faster or slower: one step of a setting.
public enum Direction: String, Hashable, Sendable, CaseIterable {
    case up, down
    /// +1 or -1.
    public var sign: Double { self == .up ? 1 : -1 }
}

/// What an action does, as a value: the dispatcher switches on it, the key map names it (`Verb.table`), and
/// the help overlay describes it. One table holds every verb with its name and help, so a verb cannot be
/// bound without a description or described without being bound to code. A verb is what needs the editor's
/// context (the cursor's column, the chosen tool, group or slot, a drag, a toggle with its message, a prompt):
/// a key that only runs a command names the command line instead (`global u run undo`, see `Action(named:)`).
public enum Verb: Hashable, Sendable {
    case play, rewind, loop, loopEdit
    case tempo(Direction), volume(Direction)
    case apply, drawClip, modeClip, modeSnap
    case cursor(CursorMove), cursorTime
    case track(TrackVerb)
    case scroll(left: Bool)
    case zoomIn, zoomOut, zoomFit
    case amp(Direction)
    /// The `:` line pre-filled with `amp A` (the selection's amplitude) to type an exact one.
    case ampSet
    /// The metronome on / off.
    case clickToggle
    /// The next cursor grid (off, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16 steps a beat).
    case gridNext
    /// The ruler in bars.beats or in seconds.
    case rulerToggle
    /// The tempo lane current (or the tracks again): its keys then act on the tempo map's points.
    case tempoLane
    /// The `:` line pre-filled with `render PATH`.
    case render
    case tool(Tool)
    case clip(Content)
    case select(SelectVerb)
    case patternEdit
    /// The `:` line pre-filled with `spread `: a code spread evenly over the loop on the current track.
    case spread
    case subdivision(Direction)
    case groupStore, groupStamp, groupEdit, groupPlace
    case save, saveAs, open, new, quit, help
    /// The `:` line, pre-filled with the action's argument.
    case command
    /// Runs the action's argument as a command line.
    case run
    case focusNext, tabNext, tabPrev
    case tab(Tab)
    case designer(DesignerAction)
    case designerEdit
    case slot(SlotVerb)
    /// The Song tab's keys.
    case song(SongVerb)
    /// Play the song instead of the loop, or the loop again.
    case songMode
    /// Plays pad `slot` (1...16): at the pad velocity, or at full velocity when `accent`.
    case pad(slot: Int, accent: Bool)
    /// The velocity the pad keys play at, a tenth a step.
    case padVelocity(Direction)
    /// Arms recording, or disarms it (which ends a take that is running).
    case recordToggle
    case esc
    case prompt(PromptVerb)
    /// Unbinds a key in a key map.
    case none

    public enum CursorMove: String, Hashable, Sendable, CaseIterable {
        case left, right, fineLeft = "fine.left", fineRight = "fine.right", prev, next, home, end
    }

    public enum TrackVerb: String, Hashable, Sendable, CaseIterable {
        case up, down, gainUp = "gain.up", gainDown = "gain.down", rename
    }

    public enum SelectVerb: String, Hashable, Sendable, CaseIterable {
        case pick, hold
    }

    public enum SlotVerb: String, Hashable, Sendable, CaseIterable {
        case left, right, up, down, choose, mode
        case gainUp = "gain.up", gainDown = "gain.down"
        case noteUp = "note.up", noteDown = "note.down", octaveUp = "octave.up", octaveDown = "octave.down"
        case noteClear = "note.clear"
        case attackUp = "attack.up", attackDown = "attack.down", releaseUp = "release.up", releaseDown = "release.down"
        case file, kit
    }

    public enum SongVerb: String, Hashable, Sendable, CaseIterable {
        case up, down, add, rename, jump, delete, duplicate
        case repeatsUp = "repeats.up", repeatsDown = "repeats.down", tempoUp = "tempo.up", tempoDown = "tempo.down"
        case tempoUpCoarse = "tempo.up.coarse", tempoDownCoarse = "tempo.down.coarse"
        case moveUp = "move.up", moveDown = "move.down"
        /// The grid: the track (row) under the cursor, its cell sounding or not, the group it plays.
        case trackUp = "track.up", trackDown = "track.down", cellToggle = "cell.toggle", cellGroup = "cell.group"
        /// A BPM typed as digits, then set as the section's start or its end (a ramp from its start).
        case digit0 = "digit.0", digit1 = "digit.1", digit2 = "digit.2", digit3 = "digit.3", digit4 = "digit.4"
        case digit5 = "digit.5", digit6 = "digit.6", digit7 = "digit.7", digit8 = "digit.8", digit9 = "digit.9"
        case bpmStart = "bpm.start", bpmEnd = "bpm.end"
    }

    public enum PromptVerb: String, Hashable, Sendable, CaseIterable {
        case accept, cancel, left, right, home, end, backspace, delete
        case wordBackspace = "word.backspace", kill, clear
        case historyPrev = "history.prev", historyNext = "history.next", complete
    }

    /// Every verb with its key-map name and help line, in the order the help overlay lists them.
    public static let table: [(verb: Verb, name: String, help: String)] = {
        var list: [(Verb, String, String)] = [
            (.play, "play", "play / pause the loop"),
            (.rewind, "rewind", "back to the loop start"),
            (.loop, "loop", "loop on / off"),
            (.loopEdit, "loop.edit", "type the loop region's exact start and end"),
            (.tempo(.up), "tempo.up", "tempo faster"),
            (.tempo(.down), "tempo.down", "tempo slower"),
            (.volume(.up), "volume.up", "volume up"),
            (.volume(.down), "volume.down", "volume down"),
            (.apply, "apply", "use the chosen tool at the cursor (draw, fill, pick, stamp...)"),
            (.drawClip, "draw.clip", "put the chosen clip at the cursor (on the marker there, else on a new one)"),
            (.modeClip, "mode.clip", "clip mode on / off (tools act on clips or on markers)"),
            (.modeSnap, "mode.snap", "snap on / off (clips go onto existing markers)"),
            (.cursor(.left), "cursor.left", "cursor one column left"),
            (.cursor(.right), "cursor.right", "cursor one column right"),
            (.cursor(.fineLeft), "cursor.fine.left", "cursor a tenth of a column left"),
            (.cursor(.fineRight), "cursor.fine.right", "cursor a tenth of a column right"),
            (.cursor(.prev), "cursor.prev", "cursor to the previous marker"),
            (.cursor(.next), "cursor.next", "cursor to the next marker"),
            (.cursor(.home), "cursor.home", "cursor to the start"),
            (.cursor(.end), "cursor.end", "cursor to the end"),
            (.cursorTime, "cursor.time", "type the cursor's exact time"),
            (.spread, "spread", "type a code spread evenly over the loop on this track (1x4: the beats, .2.2: 2 and 4; - cuts, . rests)"),
            (.track(.up), "track.up", "previous track"),
            (.track(.down), "track.down", "next track"),
            (.track(.gainUp), "track.gain.up", "current track 1 dB louder (held: one undo step)"),
            (.track(.gainDown), "track.gain.down", "current track 1 dB softer (held: one undo step)"),
            (.track(.rename), "track.rename", "rename the current track (its name opens selected: type the new one)"),
            (.scroll(left: true), "scroll.left", "scroll the timeline a page left"),
            (.scroll(left: false), "scroll.right", "scroll the timeline a page right"),
            (.zoomIn, "zoom.in", "zoom in"),
            (.zoomOut, "zoom.out", "zoom out"),
            (.zoomFit, "zoom.fit", "show the whole loop"),
            (.amp(.up), "amp.up", "louder: selected markers, else the drawing height"),
            (.amp(.down), "amp.down", "softer: selected markers, else the drawing height"),
            (.ampSet, "amp.set", "type the selected markers' exact amplitude (amp A, amp +D, amp -D)"),
            (.clickToggle, "click.toggle", "metronome on / off"),
            (.gridNext, "grid.next", "cursor grid: next steps a beat (off 1 2 3 4 5 6 7 8 12 16)"),
            (.rulerToggle, "ruler.toggle", "ruler in bars.beats / in seconds"),
            (.tempoLane, "tempo.lane", "the tempo lane: a adds a point at the cursor, S-up/S-down 1 BPM, delete removes, shift tool moves it"),
            (.render, "render", "render the document to a sound file (on the : line)"),
        ]
        for tool in Tool.allCases {
            list.append((.tool(tool), tool.action, "tool: \(tool.section.rawValue) \(tool.label(ascii: true))"
                         + (tool.usesPattern ? " (type its code at once; Enter applies, Esc keeps the tool)" : "")))
        }
        for n in 1...16 { list.append((.clip(.clip(n)), "clip.\(n)", "choose clip \(n) (typing draw: type it)")) }
        list += [
            (.clip(.hold), "clip.hold", "choose + hold (typing draw: type it)"),
            (.clip(.rest), "clip.rest", "choose - rest (typing draw: type it)"),
            (.clip(.random), "clip.random", "choose ? random (typing draw: type it)"),
            (.select(.pick), "select.pick", "select the marker nearest the cursor"),
            (.select(.hold), "select.hold", "add / remove the marker nearest the cursor"),
            (.patternEdit, "pattern.edit", "edit the pattern code on the : line (f and p open it too: Enter applies)"),
            (.subdivision(.up), "subdivision.up", "one more subdivision"),
            (.subdivision(.down), "subdivision.down", "one fewer subdivision"),
            (.groupStore, "group.store", "store the selection in the chosen group"),
            (.groupStamp, "group.stamp", "stamp the chosen group at the cursor"),
            (.groupEdit, "group.edit", "open the chosen group as the timeline (Esc or group done returns)"),
            (.groupPlace, "group.place", "place the chosen group at the cursor on the current track, linked"),
            (.save, "save", "save"),
            (.saveAs, "save-as", "save under a new name"),
            (.open, "open", "open a file"),
            (.new, "new", "a new document"),
            (.quit, "quit", "quit (asks when there are unsaved changes)"),
            (.help, "help", "this help"),
            (.command, "command", "the : command line (an argument pre-fills it)"),
            (.run, "run", "run the command given as the argument"),
            (.focusNext, "focus.next", "keys to the timeline / to the tab area"),
            (.tabNext, "tab.next", "next tab"),
            (.tabPrev, "tab.prev", "previous tab"),
        ]
        for tab in Tab.allCases { list.append((.tab(tab), tab.action, "show the \(tab.label) tab")) }
        for a in DesignerAction.allCases { list.append((.designer(a), a.rawValue, "designer: " + a.help)) }
        list.append((.designerEdit, "designer.edit", "designer: edit the definition on the : line"))
        let slotHelp: [(SlotVerb, String)] = [
            (.left, "previous slot"), (.right, "next slot"), (.up, "slot above"), (.down, "slot below"),
            (.choose, "choose the highlighted slot (Clips: a file for it; Groups: stamp it)"),
            (.mode, "chosen slot: one-shot / gate"),
            (.gainUp, "chosen slot 1 dB louder"), (.gainDown, "chosen slot 1 dB softer"),
            (.noteUp, "chosen slot's MIDI note a semitone up (60: a sample as recorded)"),
            (.noteDown, "chosen slot's MIDI note a semitone down"),
            (.octaveUp, "chosen slot's MIDI note an octave up"),
            (.octaveDown, "chosen slot's MIDI note an octave down"),
            (.noteClear, "chosen slot: no MIDI note (the sample as recorded)"),
            (.attackUp, "chosen slot: longer attack (0 1 2 5 10 20 50... ms)"),
            (.attackDown, "chosen slot: shorter attack"),
            (.releaseUp, "chosen slot: longer release"),
            (.releaseDown, "chosen slot: shorter release"),
            (.file, "chosen slot: load a sound file (on the : line)"),
            (.kit, "load a Hydrogen drumkit from the chosen slot on (a chooser)"),
        ]
        for (v, help) in slotHelp { list.append((.slot(v), "slot." + v.rawValue, help)) }
        let songHelp: [(SongVerb, String)] = [
            (.up, "previous section"), (.down, "next section"),
            (.add, "add the loop region as a section at the end of the song"),
            (.rename, "rename the section (its name opens selected: type the new one)"),
            (.repeatsUp, "the section plays once more"), (.repeatsDown, "the section plays once less"),
            (.tempoUp, "the section 1 BPM faster (its own tempo from then on)"),
            (.tempoDown, "the section 1 BPM slower"),
            (.tempoUpCoarse, "the section 5 BPM faster (a ramp: both ends)"),
            (.tempoDownCoarse, "the section 5 BPM slower (a ramp: both ends)"),
            (.moveUp, "move the section up the song"), (.moveDown, "move the section down the song"),
            (.delete, "delete the section"), (.duplicate, "a copy of the section right after it"),
            (.jump, "play the song from the section's first pass (the song goes on)"),
            (.trackUp, "grid: the track above"), (.trackDown, "grid: the track below"),
            (.cellToggle, "grid: the track sounds in the section, or not"),
            (.cellGroup, "grid: the track plays the next stored group through the section (then its own markers)"),
            (.bpmStart, "the section starts at the BPM typed before (digits), its own tempo"),
            (.bpmEnd, "the section ramps to the BPM typed before (digits) over all its passes"),
        ] + (0...9).map { (SongVerb(rawValue: "digit.\($0)")!, "type a digit of a BPM (then bpm.start or bpm.end)") }
        for (v, help) in songHelp { list.append((.song(v), "song." + v.rawValue, help)) }
        list.append((.songMode, "song.mode", "play the song instead of the loop, or the loop again"))
        for n in 1...16 {
            list.append((.pad(slot: n, accent: false), "pad.\(n)", "play pad \(n) (slot \(n)) at the pad velocity"))
            list.append((.pad(slot: n, accent: true), "pad.\(n).accent", "play pad \(n) at accent (full velocity)"))
        }
        list += [
            (.padVelocity(.up), "pad.velocity.up", "pads: a tenth louder"),
            (.padVelocity(.down), "pad.velocity.down", "pads: a tenth softer"),
            (.recordToggle, "record.toggle", "arm recording (the take runs while the transport plays) / disarm"),
        ]
        list.append((.esc, "esc", "cancel: abort a drag, close the help, clear the selection, close the group open as the timeline"))
        let promptHelp: [(PromptVerb, String)] = [
            (.accept, "accept the line"), (.cancel, "close the line"), (.left, "cursor left"), (.right, "cursor right"),
            (.home, "to the line's start"), (.end, "to the line's end"), (.backspace, "delete left"),
            (.delete, "delete right"), (.wordBackspace, "delete the word left"), (.kill, "delete to the end"),
            (.clear, "delete the whole line"), (.historyPrev, "older line from the history"),
            (.historyNext, "newer line from the history"), (.complete, "complete the command name"),
        ]
        for (v, help) in promptHelp { list.append((.prompt(v), "prompt." + v.rawValue, help)) }
        list.append((.none, "none", "unbinds the key"))
        return list
    }()

    private static let byName: [String: Verb] = Dictionary(table.map { ($0.name, $0.verb) }, uniquingKeysWith: { a, _ in a })
    private static let names: [Verb: String] = Dictionary(table.map { ($0.verb, $0.name) }, uniquingKeysWith: { a, _ in a })
    static let helpText: [Verb: String] = Dictionary(table.map { ($0.verb, $0.help) }, uniquingKeysWith: { a, _ in a })

    /// The verb of a key-map name; nil for a name no verb has.
    public init?(name: String) {
        guard let v = Verb.byName[name] else { return nil }
        self = v
    }

    /// The key-map name (`tool.shift`).
    public var name: String { Verb.names[self]! }

    /// Held-key nudges of one family coalesce into one undo step (`tempo`, `volume`, `amp`, `gain`, `slider`).
    var nudgeFamily: String? {
        switch self {
        case .tempo: return "tempo"
        case .volume: return "volume"
        case .amp: return "amp"
        case .track(.gainUp), .track(.gainDown): return "gain"
        case .designer(let a): return a.movesSlider ? "slider" : nil
        default: return nil
        }
    }
}

/// What a key means: an action name from `Action.catalog` and, for some actions, an argument
/// (`run delete`, `command fill "`). Key maps bind keys to actions; the dispatcher switches on the name.
public struct Action: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    /// The rest of the key-map line after the name; empty for most actions.
    public var argument: String

    public init(_ name: String, _ argument: String = "") {
        self.name = name
        self.argument = argument
    }

    public var description: String { argument.isEmpty ? name : name + " " + argument }

    /// True when the catalog knows the name.
    public var isKnown: Bool { Action.describe(name) != nil }

    /// Every action with a one-line description, in the order the help overlay lists them.
    public static let catalog: [(name: String, help: String)] = {
        var list: [(String, String)] = [
            ("play", "play / pause the loop"),
            ("rewind", "back to the loop start"),
            ("loop", "loop on / off"),
            ("loop.edit", "type the loop region's exact start and end"),
            ("tempo.up", "tempo faster"),
            ("tempo.down", "tempo slower"),
            ("volume.up", "volume up"),
            ("volume.down", "volume down"),
            ("apply", "use the chosen tool at the cursor (draw, fill, pick, stamp...)"),
            ("draw.clip", "add a marker carrying the chosen clip at the cursor"),
            ("mode.clip", "clip mode on / off (tools act on clips or on markers)"),
            ("mode.snap", "snap on / off (clips go onto existing markers)"),
            ("cursor.left", "cursor one column left"),
            ("cursor.right", "cursor one column right"),
            ("cursor.fine.left", "cursor a tenth of a column left"),
            ("cursor.fine.right", "cursor a tenth of a column right"),
            ("cursor.prev", "cursor to the previous marker"),
            ("cursor.next", "cursor to the next marker"),
            ("cursor.home", "cursor to the start"),
            ("cursor.end", "cursor to the end"),
            ("cursor.time", "type the cursor's exact time"),
            ("track.up", "previous track"),
            ("track.down", "next track"),
            ("track.add", "add a track"),
            ("track.mute", "mute / unmute the current track"),
            ("track.solo", "solo / unsolo the current track (only soloed tracks sound)"),
            ("track.gain.up", "current track 1 dB louder (held: one undo step)"),
            ("track.gain.down", "current track 1 dB softer (held: one undo step)"),
            ("track.rename", "rename the current track (its name opens selected: type the new one)"),
            ("scroll.left", "scroll the timeline a page left"),
            ("scroll.right", "scroll the timeline a page right"),
            ("zoom.in", "zoom in"),
            ("zoom.out", "zoom out"),
            ("zoom.fit", "show the whole loop"),
            ("amp.up", "louder: selected markers, else the drawing height"),
            ("amp.down", "softer: selected markers, else the drawing height"),
        ]
        for tool in Tool.allCases {
            list.append((tool.action, "tool: \(tool.section.rawValue) \(tool.label(ascii: true))"
                         + (tool.usesPattern ? " (type its code at once; Enter applies, Esc keeps the tool)" : "")))
        }
        for n in 1...16 { list.append(("clip.\(n)", "choose clip \(n) (typing draw: type it)")) }
        list += [
            ("clip.hold", "choose + hold (typing draw: type it)"),
            ("clip.rest", "choose - rest (typing draw: type it)"),
            ("clip.random", "choose ? random (typing draw: type it)"),
            ("select.all", "select the whole track"),
            ("select.none", "select nothing"),
            ("select.left", "select everything left of the cursor"),
            ("select.right", "select everything right of the cursor"),
            ("select.pick", "select the marker nearest the cursor"),
            ("select.hold", "add / remove the marker nearest the cursor"),
            ("select.tracks", "select every marker of every track"),
            ("pattern.edit", "edit the pattern code on the : line (f and p open it too: Enter applies)"),
            ("subdivision.up", "one more subdivision"),
            ("subdivision.down", "one fewer subdivision"),
            ("group.store", "store the selection in the chosen group"),
            ("group.stamp", "stamp the chosen group at the cursor"),
            ("undo", "undo"),
            ("redo", "redo"),
            ("save", "save"),
            ("save-as", "save under a new name"),
            ("open", "open a file"),
            ("new", "a new document"),
            ("quit", "quit (asks when there are unsaved changes)"),
            ("help", "this help"),
            ("command", "the : command line (an argument pre-fills it)"),
            ("run", "run the command given as the argument"),
            ("focus.next", "keys to the timeline / to the tab area"),
            ("tab.next", "next tab"),
            ("tab.prev", "previous tab"),
        ]
        for tab in Tab.allCases { list.append((tab.action, "show the \(tab.label) tab")) }
        for name in DesignerTab.actions + ["designer.edit"] {
            list.append((name, "designer: " + (designerHelp[name] ?? name)))
        }
        list += [
            ("slot.left", "previous slot"),
            ("slot.right", "next slot"),
            ("slot.up", "slot above"),
            ("slot.down", "slot below"),
            ("slot.choose", "choose the highlighted slot (Groups: stamp it)"),
            ("slot.mode", "chosen slot: one-shot / gate"),
            ("slot.gain.up", "chosen slot 1 dB louder"),
            ("slot.gain.down", "chosen slot 1 dB softer"),
            ("slot.note.up", "chosen slot's MIDI note a semitone up (60: a sample as recorded)"),
            ("slot.note.down", "chosen slot's MIDI note a semitone down"),
            ("slot.octave.up", "chosen slot's MIDI note an octave up"),
            ("slot.octave.down", "chosen slot's MIDI note an octave down"),
            ("slot.note.clear", "chosen slot: no MIDI note (the sample as recorded)"),
            ("slot.attack.up", "chosen slot: longer attack (0 1 2 5 10 20 50... ms)"),
            ("slot.attack.down", "chosen slot: shorter attack"),
            ("slot.release.up", "chosen slot: longer release"),
            ("slot.release.down", "chosen slot: shorter release"),
            ("slot.file", "chosen slot: load a sound file (on the : line)"),
            ("esc", "cancel: abort a drag, close the help, clear the selection"),
            ("prompt.accept", "accept the line"),
            ("prompt.cancel", "close the line"),
            ("prompt.left", "cursor left"),
            ("prompt.right", "cursor right"),
            ("prompt.home", "to the line's start"),
            ("prompt.end", "to the line's end"),
            ("prompt.backspace", "delete left"),
            ("prompt.delete", "delete right"),
            ("prompt.word.backspace", "delete the word left"),
            ("prompt.kill", "delete to the end"),
            ("prompt.clear", "delete the whole line"),
            ("prompt.history.prev", "older line from the history"),
            ("prompt.history.next", "newer line from the history"),
            ("prompt.complete", "complete the command name"),
            ("none", "unbinds the key"),
        ]
        return list
    }()

    /// What the rhythm designer's actions (`DesignerTab.actions`) do, for the help overlay.
    static let designerHelp: [String: String] = [
        "designer.row": "next row (top, bottom, map, slider)",
        "designer.row.next": "next row", "designer.row.prev": "previous row",
        "designer.row.top": "the top row", "designer.row.bottom": "the bottom row",
        "designer.row.map": "the map row", "designer.row.slider": "the slider",
        "designer.beat.left": "beat left (slider row: slider left)",
        "designer.beat.right": "beat right (slider row: slider right)",
        "designer.beat.toggle": "choose / drop the beat (map: pair / unpair; slider: 0.5)",
        "designer.division.up": "one more pulse (map: next partner)",
        "designer.division.down": "one pulse fewer (map: previous partner)",
        "designer.euclid": "Euclidean beats E(k, n) on the row",
        "designer.k.up": "Euclidean: one beat more", "designer.k.down": "Euclidean: one beat fewer",
        "designer.rotate": "rotate the row's beats left", "designer.rotate.right": "rotate the row's beats right",
        "designer.slider.up": "slider right by 0.05", "designer.slider.down": "slider left by 0.05",
        "designer.slider.fine.up": "slider right by 0.01", "designer.slider.fine.down": "slider left by 0.01",
        "designer.slider.up.coarse": "slider right by 0.1", "designer.slider.down.coarse": "slider left by 0.1",
        "designer.slider.zero": "slider to 0 (the top rhythm)", "designer.slider.half": "slider to 0.5",
        "designer.slider.one": "slider to 1 (the bottom rhythm)",
        "designer.amp.up": "beat louder", "designer.amp.down": "beat softer",
        "designer.map.next": "partner of the pair: next", "designer.map.prev": "partner of the pair: previous",
        "designer.map.clear": "unpair the beat", "designer.map.reset": "default map (i-th to i-th)",
        "designer.span.double": "span twice as long", "designer.span.half": "span half as long",
        "designer.stamp": "stamp the result at the cursor",
        "designer.apply": "retime the selected markers to the result",
        "designer.group": "put the result into the designer's group slot",
        "designer.group.next": "next group slot", "designer.group.prev": "previous group slot",
        "designer.morph": "morph: cycles with the slider moving",
        "designer.morph.more": "morph over one cycle more", "designer.morph.less": "morph over one cycle fewer",
        "designer.preset": "next preset (swing, tigrigna, five-seven)",
        "designer.preset.next": "next preset (swing, tigrigna, five-seven)",
        "designer.preset.prev": "previous preset",
        "designer.audition": "hear the temperament on the current track while the tab is open",
        "designer.edit": "edit the definition on the : line",
    ]

    private static let index: [String: String] = {
        var d: [String: String] = [:]
        for (name, help) in catalog { d[name] = help }
        return d
    }()

    /// The description of an action name, nil for unknown names.
    public static func describe(_ name: String) -> String? { index[name] }
}

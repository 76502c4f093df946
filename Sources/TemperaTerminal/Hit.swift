import TemperaCore

/// What lies under a screen cell: the answer of `EditorView.hitTest`, which the input dispatcher turns
/// into an action (a click on a tool chooses it, a click on the timeline places or picks).
public enum Hit: Hashable, Sendable {
    /// The timeline area of a track (0-based) at a time, with the amplitude the row height stands for
    /// (the top row of a track is 1).
    case timeline(track: Int, time: Double, amp: Double)
    /// The ruler above the tracks, at a time.
    case ruler(time: Double)
    /// The tempo lane, at a time.
    case tempoLane(time: Double)
    /// A track's name (0-based).
    case trackName(Int)
    case tool(Tool)
    /// The clip-mode toggle.
    case clipMode
    /// The snap toggle.
    case snap
    /// The subdivision count shown in the tool panel.
    case subdivision
    /// The pattern code area.
    case patternArea
    case tab(Tab)
    /// A clip slot in the Clips tab, 1...16.
    case slot(Int)
    /// `+`, `-` or `?` in the Clips tab.
    case clipContent(Content)
    /// A group slot in the Groups tab, 1...16.
    case group(Int)
    /// A section's row in the Song tab (from 0).
    case section(Int)
    /// A pad of the Pads tab (slot 1...16), with the velocity the click's height in it stands for (top = 1).
    case pad(slot: Int, velocity: Double)
    /// The transport's loop / song switch.
    case songMode
    case play
    case rewind
    case loop
    /// The tempo slider at the scale the click stands for.
    case tempo(Double)
    /// The volume slider at the volume (0...1) the click stands for.
    case volume(Double)
    /// A cell of the Rhythm Designer tab, relative to the tab's content area's top-left corner.
    case designer(x: Int, y: Int)
    /// The status / command line.
    case statusLine
    case none
}

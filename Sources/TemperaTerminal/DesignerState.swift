/// What the Rhythm Designer tab shows that is not in the document: which row has the keys, the beat under
/// each row's cursor, and the settings its stamp, group and morph keys use. The temperament itself lives in
/// the document (`Document.designer`), so it is saved and undone like any edit.
///
/// A plain value owned by the editor loop (main thread).
public struct DesignerState: Hashable, Sendable {
    /// The row the designer's keys act on.
    public enum Focus: String, CaseIterable, Hashable, Sendable {
        case top, bottom, map, slider

        /// The next row down, wrapping.
        public var next: Focus {
            let all = Focus.allCases
            return all[(all.firstIndex(of: self)! + 1) % all.count]
        }

        /// The next row up, wrapping.
        public var previous: Focus {
            let all = Focus.allCases
            return all[(all.firstIndex(of: self)! + all.count - 1) % all.count]
        }
    }

    /// The slider has the keys first: moving it is what the designer is for.
    public var focus: Focus
    /// The pulse under the cursor of the top and bottom rows (0-based).
    public var topCursor: Int
    public var bottomCursor: Int
    /// In the map row: the position among the chosen top beats whose partner the keys change.
    public var mapCursor: Int
    /// The group slot (1...16) `designer.group` fills.
    public var groupSlot: Int
    /// `designer.morph` stamps this many cycles, the slider going from `morphFrom` to the current value.
    public var morphTimes: Int
    public var morphFrom: Double
    /// While the tab is open, playback hears the current track's loop region replaced by the temperament
    /// (see `DesignerTab.playbackDocument`).
    public var audition: Bool

    public init(focus: Focus = .slider, topCursor: Int = 0, bottomCursor: Int = 0, mapCursor: Int = 0,
                groupSlot: Int = 1, morphTimes: Int = 4, morphFrom: Double = 0, audition: Bool = true) {
        self.focus = focus
        self.topCursor = topCursor
        self.bottomCursor = bottomCursor
        self.mapCursor = mapCursor
        self.groupSlot = groupSlot
        self.morphTimes = morphTimes
        self.morphFrom = morphFrom
        self.audition = audition
    }
}

/// Where each area of the editor lies for a screen size: the one place that decides geometry, so drawing
/// and hit-testing always agree.
///
/// ```
/// row 0        ┌ transport ─ file ─────────── audio status ┐
/// row 1        │ transport controls                         │
/// row 2        ├ timeline ─ cursor time ─ zoom ─────────────┤
/// row 3        │ names    │ ruler: ticks, loop, playhead     │
/// rows 4...    │ 1 kick   │ markers (rowsPerTrack rows each) │
/// tools title  ├ tools ──────────────┬ [clips] groups ... ───┤
/// tool rows    │ tool panel          │ tab content           │
/// H-2          └─────────────────────┴───────────────────────┘
/// H-1          status line / `:` command line
/// ```
public struct Layout: Hashable, Sendable {
    /// The smallest screen the editor lays out; below it `EditorView` draws a message instead.
    public static let minimumWidth = 80
    public static let minimumHeight = 24
    /// Rows of the tool panel and the tab area.
    public static let toolRows = 7
    /// Columns left of the timeline for track numbers and names.
    public static let nameWidth = 11
    /// A track's height in rows: one or more rows of bars, then a row of clip labels.
    public static let minRowsPerTrack = 2
    public static let maxRowsPerTrack = 8

    /// The screen's size in cells.
    public let width: Int
    public let height: Int
    /// False when the screen is below the minimum size.
    public let fits: Bool

    /// The transport controls' row (inside the box).
    public let transport: Rect
    /// The row of the timeline's title (cursor time, zoom, scrolled tracks).
    public let timelineTitleRow: Int
    /// The ruler above the markers, over the same columns as `timeline`.
    public let ruler: Rect
    /// The track names column, over the track rows.
    public let names: Rect
    /// The marker area of all visible tracks: column 0 of the viewport is `timeline.x`.
    public let timeline: Rect
    /// Rows each track gets: `barRows` of bars and one of labels.
    public let rowsPerTrack: Int
    /// The first visible track (0-based) and how many are shown.
    public let firstTrack: Int
    public let visibleTracks: Int
    /// Tracks in the document.
    public let trackCount: Int
    /// The row of the tools title and the tab bar.
    public let toolsTitleRow: Int
    /// The tool panel's contents.
    public let tools: Rect
    /// The x of the line between the tool panel and the tabs.
    public let dividerX: Int
    /// The shown tab's contents.
    public let tabs: Rect
    /// The row of the box's bottom edge.
    public let bottomBorderRow: Int
    /// The status / command line: the screen's last row.
    public let status: Rect
    /// The tempo lane's columns and rows (height = tempo), over the same columns as `timeline`; nil when not shown.
    public let tempoLane: Rect?
    /// Rows of the tempo lane.
    public static let tempoLaneRows = 3

    /// - Parameters:
    ///   - trackCount: tracks in the document.
    ///   - currentTrack: kept in view (0-based).
    ///   - trackScroll: the first track the user scrolled to; moved as little as needed.
    ///   - tabRows: rows of the tool panel and the tab area (the Pads tab asks for more, to give its pads height).
    public init(width: Int, height: Int, trackCount: Int, currentTrack: Int = 0, trackScroll: Int = 0,
                tempoLane: Bool = false, tabRows: Int = Layout.toolRows) {
        self.width = width
        self.height = height
        self.trackCount = trackCount
        fits = width >= Layout.minimumWidth && height >= Layout.minimumHeight
        transport = Rect(x: 2, y: 1, width: width - 4, height: 1)
        timelineTitleRow = 2
        bottomBorderRow = height - 2
        status = Rect(x: 0, y: height - 1, width: width, height: 1)
        toolsTitleRow = bottomBorderRow - tabRows - 1
        // The tempo lane (when the document has a tempo map, or the lane is current) sits between the ruler and
        // the tracks.
        let laneTop = 4
        let trackTop = tempoLane ? laneTop + Layout.tempoLaneRows : laneTop
        let area = max(0, toolsTitleRow - trackTop)
        let perTrack = trackCount > 0 ? area / trackCount : Layout.maxRowsPerTrack
        rowsPerTrack = min(max(perTrack, Layout.minRowsPerTrack), Layout.maxRowsPerTrack)
        let visible = min(trackCount, area / rowsPerTrack)
        visibleTracks = visible
        var first = min(max(trackScroll, 0), max(0, trackCount - visible))
        if currentTrack < first { first = max(0, currentTrack) }
        if visible > 0, currentTrack >= first + visible { first = min(currentTrack, trackCount - 1) - visible + 1 }
        firstTrack = first
        let timelineX = 1 + Layout.nameWidth
        names = Rect(x: 1, y: trackTop, width: Layout.nameWidth - 1, height: visible * rowsPerTrack)
        ruler = Rect(x: timelineX, y: 3, width: width - 1 - timelineX, height: 1)
        timeline = Rect(x: timelineX, y: trackTop, width: width - 1 - timelineX, height: visible * rowsPerTrack)
        self.tempoLane = tempoLane ? Rect(x: timelineX, y: laneTop, width: width - 1 - timelineX, height: Layout.tempoLaneRows)
            : nil
        let inner = width - 3
        // The panel needs 44 columns for its sections; wider screens give it room to keep them on one row.
        let toolsWidth = inner >= 100 ? min(72, inner * 3 / 5) : 44
        tools = Rect(x: 2, y: toolsTitleRow + 1, width: toolsWidth - 1, height: tabRows)
        dividerX = 1 + toolsWidth
        tabs = Rect(x: dividerX + 2, y: toolsTitleRow + 1, width: width - dividerX - 4, height: tabRows)
    }

    /// The rows of a track (0-based) on screen, nil when it is scrolled out of view.
    public func rows(ofTrack track: Int) -> Rect? {
        guard track >= firstTrack, track < firstTrack + visibleTracks else { return nil }
        return Rect(x: timeline.x, y: timeline.y + (track - firstTrack) * rowsPerTrack,
                    width: timeline.width, height: rowsPerTrack)
    }

    /// The track (0-based) and the row inside it (0 = top) for a screen row, if it shows one.
    public func track(atRow y: Int) -> (track: Int, row: Int)? {
        guard y >= timeline.y, y < timeline.maxY, rowsPerTrack > 0 else { return nil }
        let k = (y - timeline.y) / rowsPerTrack
        return (firstTrack + k, (y - timeline.y) % rowsPerTrack)
    }

    /// Rows of amplitude bars in each track (the last row carries clip labels).
    public var barRows: Int { rowsPerTrack - 1 }
}

import TemperaCore

/// The characters the panes draw with: one set for UTF-8 terminals, one plain-ASCII set for terminals
/// without a UTF-8 locale, so the editor still draws (and stays readable) everywhere.
public struct Glyphs: Sendable {
    /// Box drawing: lines, corners, and tees (teeDown: ┬, teeUp: ┴, teeRight: ├, teeLeft: ┤).
    public let horizontal: Character
    public let vertical: Character
    public let topLeft: Character
    public let topRight: Character
    public let bottomLeft: Character
    public let bottomRight: Character
    public let teeDown: Character
    public let teeUp: Character
    public let teeRight: Character
    public let teeLeft: Character
    /// Bar heights from empty (index 0) to a full cell (index 8).
    public let eighths: [Character]
    /// Transport symbols and punctuation.
    public let rewind: String
    public let play: String
    public let pause: String
    public let loop: String
    /// The song, in the transport when it plays instead of the loop.
    public let song: String
    /// Between the parts of a status text: ` · `.
    public let separator: String
    public let dash: String
    public let times: String
    /// From one tempo to another in a ramp: `90→120`.
    public let arrow: String
    public let ellipsis: Character
    /// The filled part, the rest and the knob of a slider.
    public let sliderFill: Character
    public let sliderEmpty: Character
    public let sliderKnob: Character
    /// The ruler's line, the loop region on it, and a time tick.
    public let rulerLine: Character
    public let rulerLoop: Character
    public let rulerTick: Character
    /// The playhead and cursor marks on the ruler.
    public let rulerPlayhead: Character
    public let rulerCursor: Character
    /// Vertical lines through the tracks: the playhead, the cursor on the current track, the cursor's guide
    /// on the other tracks.
    public let playheadLine: Character
    public let cursorLine: Character
    public let guideLine: Character
    /// The label of a marker without a clip.
    public let emptyMarker: Character
    /// Counts 2...9 of markers sharing one column, then `manyMarkers` for ten or more.
    public let counts: [Character]
    public let manyMarkers: Character
    /// What the timeline's label row shows for a column of several markers when counts would read as clip
    /// labels (ASCII digits); nil: the count.
    public let crowdLabel: Character?
    /// Marks: the current track, a modified document, the end of text being typed.
    public let currentTrack: Character
    public let modified: String
    public let textCursor: Character

    /// Box drawing, eighth blocks, arrows.
    public static let utf8 = Glyphs(
        horizontal: "─", vertical: "│", topLeft: "┌", topRight: "┐", bottomLeft: "└", bottomRight: "┘",
        teeDown: "┬", teeUp: "┴", teeRight: "├", teeLeft: "┤",
        eighths: [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"],
        rewind: "⏮", play: "▶", pause: "⏸", loop: "⟲", song: "♪", separator: " · ", dash: "–", times: "×", arrow: "→", ellipsis: "…",
        sliderFill: "━", sliderEmpty: "─", sliderKnob: "●",
        rulerLine: "─", rulerLoop: "━", rulerTick: "┼", rulerPlayhead: "▼", rulerCursor: "▽",
        playheadLine: "│", cursorLine: "┃", guideLine: "┊",
        emptyMarker: "·", counts: ["²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"], manyMarkers: "⁺", crowdLabel: nil,
        currentTrack: "▸", modified: "●", textCursor: "▏")

    /// Seven-bit ASCII only: `+-|` boxes, `.:|#` heights.
    public static let ascii = Glyphs(
        horizontal: "-", vertical: "|", topLeft: "+", topRight: "+", bottomLeft: "+", bottomRight: "+",
        teeDown: "+", teeUp: "+", teeRight: "+", teeLeft: "+",
        eighths: [" ", ".", ".", ":", ":", "|", "|", "#", "#"],
        rewind: "|<", play: ">", pause: "||", loop: "@", song: "S", separator: " | ", dash: "-", times: "x", arrow: ">", ellipsis: "~",
        sliderFill: "=", sliderEmpty: "-", sliderKnob: "O",
        rulerLine: "-", rulerLoop: "=", rulerTick: "+", rulerPlayhead: "V", rulerCursor: "v",
        playheadLine: "!", cursorLine: "I", guideLine: "'",
        emptyMarker: ".", counts: ["2", "3", "4", "5", "6", "7", "8", "9"], manyMarkers: "*", crowdLabel: "*",
        currentTrack: ">", modified: "*", textCursor: "_")

    /// The set for the terminal's locale.
    public static func set(ascii: Bool) -> Glyphs { ascii ? .ascii : .utf8 }

    /// The timeline label of a marker's content: its key (`Content.key`), the spelling the keys type and pattern
    /// codes read (clips 1...9 as digits, 10 as `0`, 11...16 as `! @ # $ % ^`), then `+ - ?`.
    public func label(_ content: Content?) -> Character {
        content?.key ?? emptyMarker
    }

    /// The count glyph for `n` (>= 2) markers in one column.
    public func count(_ n: Int) -> Character {
        n >= 2 && n <= 9 ? counts[n - 2] : manyMarkers
    }
}

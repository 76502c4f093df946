/// What a cell means on screen. Panes paint roles; a `Theme` turns each role into colours and attributes,
/// so panes never name a colour and every theme (including 8-colour and monochrome) styles the same roles.
public enum Role: String, CaseIterable, Hashable, Sendable {
    case normal
    case dim
    case border
    case title
    case titleActive
    case accent
    case warning
    case error
    /// Transport
    case playing
    case stopped
    case sliderFill
    case sliderEmpty
    case sliderKnob
    /// Timeline
    case trackName
    case trackNameCurrent
    case marker
    case markerEmpty
    case markerSelected
    case clipLabel
    case holdLabel
    case restLabel
    case playhead
    case cursor
    case guide
    case guideHit
    case loopRegion
    case ruler
    /// Tools and tabs
    case toolKey
    case tool
    case toolActive
    case tab
    case tabActive
    case pattern
    /// The `:` line and messages
    case prompt
    case message
}

/// The tabs of the lower-right area.
public enum Tab: String, CaseIterable, Hashable, Sendable {
    case clips, groups, designer, song, pads

    /// The tab's title as drawn in the tab bar.
    public var label: String {
        switch self {
        case .clips: return "clips"
        case .groups: return "groups"
        case .designer: return "rhythm designer"
        case .song: return "song"
        case .pads: return "pads"
        }
    }

    /// The title when the tab bar is narrow.
    public var shortLabel: String { self == .designer ? "designer" : label }

    /// The title when even the short ones do not fit (80 columns).
    public var tinyLabel: String { self == .designer ? "rhythm" : label }

    /// The key-map action that shows this tab, e.g. `tab.groups`.
    public var action: String { "tab." + rawValue }
}

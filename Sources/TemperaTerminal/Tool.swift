/// The editing tools of the tool panel. The dispatcher switches on the chosen tool;
/// the panel draws each one with the key that chooses it.
public enum Tool: String, CaseIterable, Hashable, Sendable {
    case drawSingle, drawGroup, typing
    case fill
    case select, hold, allLeft, allRight, patternSelect
    case shift, scale, subdivide, rotate, reverse, delete

    /// The tool panel's sections, in the order they are drawn.
    public enum Section: String, CaseIterable, Hashable, Sendable {
        case draw, fill, select, modify

        /// The tools of this section, in panel order.
        public var tools: [Tool] { Tool.allCases.filter { $0.section == self } }
    }

    /// The panel section the tool is drawn in.
    public var section: Section {
        switch self {
        case .drawSingle, .drawGroup, .typing: return .draw
        case .fill: return .fill
        case .select, .hold, .allLeft, .allRight, .patternSelect: return .select
        case .shift, .scale, .subdivide, .rotate, .reverse, .delete: return .modify
        }
    }

    /// The name shown in the tool panel (the section name is drawn before it, so `draw single`).
    public func label(ascii: Bool = false) -> String {
        switch self {
        case .drawSingle: return "single"
        case .drawGroup: return "group"
        case .typing: return "typing"
        case .fill: return "pattern"
        case .select: return "pick"
        case .hold: return "hold"
        case .allLeft: return ascii ? "all<" : "all◀"
        case .allRight: return ascii ? "all>" : "all▶"
        case .patternSelect: return "pattern"
        case .shift: return "shift"
        case .scale: return "scale"
        case .subdivide: return "subdivide"
        case .rotate: return "rotate"
        case .reverse: return "reverse"
        case .delete: return "delete"
        }
    }

    /// The key-map action that chooses this tool, e.g. `tool.shift`; `ViewState.keyHints` is keyed by it.
    public var action: String { "tool." + rawValue }

    /// True for tools that read a pattern code (the pattern area edits it).
    public var usesPattern: Bool { self == .fill || self == .patternSelect }
}

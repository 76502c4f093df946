/// A marker's identity inside a document. Stable across edits, so selections and undo records can name a
/// marker while its time changes; never written to files (a loaded document numbers its markers afresh).
public typealias MarkerID = UInt32

/// What a grid marker carries.
public enum Content: Hashable, Sendable {
    /// A clip slot, 1...16.
    case clip(Int)
    /// `+`: hold the previous clip of the track through this marker.
    case hold
    /// `-`: rest; cuts whatever the track is sounding.
    case rest
    /// `?`: a clip drawn at random each time the marker plays, reproducibly from the document's seed.
    case random

    /// The pattern-code spelling: `3`, `+`, `-`, `?`.
    public var code: String {
        switch self {
        case .clip(let n): return String(n)
        case .hold: return "+"
        case .rest: return "-"
        case .random: return "?"
        }
    }

    /// Parses the pattern-code spelling; nil for anything else (clips outside 1...16 included).
    public init?(code: String) {
        switch code {
        case "+": self = .hold
        case "-": self = .rest
        case "?": self = .random
        default:
            guard let n = Int(code), ClipSlot.range.contains(n) else { return nil }
            self = .clip(n)
        }
    }
}

/// A grid marker: a position in continuous time where a track may sound.
public struct Marker: Hashable, Sendable {
    public var id: MarkerID
    /// Seconds at tempo x1.
    public var time: Double
    /// Loudness 0...1, drawn as the marker's height.
    public var amp: Double
    /// nil: a free grid position waiting for a clip.
    public var content: Content?

    public init(id: MarkerID, time: Double, amp: Double = 0.8, content: Content? = nil) {
        self.id = id
        self.time = time
        self.amp = amp
        self.content = content
    }

    /// The total order markers are kept in: time, then id (so equal times have a stable order).
    @inlinable
    public func precedes(_ other: Marker) -> Bool {
        time < other.time || (time == other.time && id < other.id)
    }
}

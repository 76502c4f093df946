/// A marker's identity inside a document. Stable across edits, so selections and undo records can name a
/// marker while its time changes; never written to files (a loaded document numbers its markers afresh).
public typealias MarkerID = UInt32

/// What a grid marker carries.
public enum Content: Hashable, Sendable {
    /// A clip slot, 1...16.
    case clip(Int)
    /// `+`: hold the previous clip of the track through this marker.
    case hold
    /// `-`: rest; cuts whatever the track is sounding (a marker with no clip, `.` in a code, lets it ring).
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

    /// The one-character spelling the timeline shows and the keys type: clips 1...9 as digits, 10 as `0`, 11...16
    /// as `! @ # $ % ^` (shifted 1...6, as on the keyboard), then `+ - ?`. Pattern codes read it too.
    public var key: Character {
        switch self {
        case .clip(let n): return ClipSlot.range.contains(n) ? Content.clipKeys[n - 1] : "?"
        case .hold: return "+"
        case .rest: return "-"
        case .random: return "?"
        }
    }

    /// The keys of clips 1...16, in order.
    public static let clipKeys: [Character] = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "!", "@", "#", "$", "%", "^"]

    /// The content a one-character key spelling names (`@` is clip 12, `0` clip 10, `~` random as its key), nil
    /// for any other text.
    public init?(key: String) {
        guard key.count == 1, let c = key.first else { return nil }
        if c == "~" {
            self = .random
        } else if let i = Content.clipKeys.firstIndex(of: c), i >= 9 {
            self = .clip(i + 1)
        } else {
            return nil
        }
    }

    /// Parses the pattern-code spelling (or a clip's key spelling, `@` for 12); nil for anything else (clips
    /// outside 1...16 included).
    public init?(code: String) {
        switch code {
        case "+": self = .hold
        case "-": self = .rest
        case "?": self = .random
        default:
            if let keyed = Content(key: code) {
                self = keyed
                return
            }
            guard let n = Int(code), ClipSlot.range.contains(n) else { return nil }
            self = .clip(n)
        }
    }
}

/// A grid marker: a position in continuous time where a track may sound.
///
/// Kept to 32 bytes, since a document may hold millions: the clip is one byte (`contentCode`) and the fields few
/// markers use (probability, ratchet, slice offset) live out of line in a shared, immutable box that markers at
/// their defaults do not have. `content` and `extras` read and write them as plain values.
public struct Marker: Hashable, Sendable {
    public var id: MarkerID
    /// The content in one byte: 0 none, 1...16 a clip, then hold, rest, random (`Marker.code(_:)`).
    @usableFromInline var contentCode: UInt8
    /// Seconds at tempo x1.
    public var time: Double
    /// Loudness 0...1, drawn as the marker's height.
    public var amp: Double
    /// The extras when any differs from its default; nil for most markers.
    @usableFromInline var box: ExtrasBox?

    public init(id: MarkerID, time: Double, amp: Double = 0.8, content: Content? = nil) {
        self.id = id
        self.contentCode = Self.code(content)
        self.time = time
        self.amp = amp
        self.box = nil
    }

    /// nil: a free grid position waiting for a clip.
    @inlinable public var content: Content? {
        get { Self.content(contentCode) }
        set { contentCode = Self.code(newValue) }
    }

    /// Probability, ratchet and slice offset (`p=`, `rep=`, `from=`): the defaults for most markers.
    @inlinable public var extras: MarkerExtras {
        get { box?.extras ?? MarkerExtras() }
        set { box = newValue.isDefault ? nil : ExtrasBox(newValue) }
    }

    /// True when the marker carries extras other than the defaults, without building them.
    @inlinable public var hasExtras: Bool { box != nil }

    /// The chance it sounds on each pass (`MarkerExtras.p`).
    @inlinable public var p: Double { get { box?.extras.p ?? 1 } set { extras.p = newValue } }
    /// Ratchet hits (`MarkerExtras.rep`).
    @inlinable public var rep: Int { get { box?.extras.rep ?? 1 } set { extras.rep = newValue } }
    /// The ratchet's span (`MarkerExtras.repSpan`).
    @inlinable public var repSpan: Double? { get { box?.extras.repSpan } set { extras.repSpan = newValue } }
    /// The slice offset (`MarkerExtras.from`).
    @inlinable public var from: Double { get { box?.extras.from ?? 0 } set { extras.from = newValue } }
    /// The slice's end (`MarkerExtras.to`).
    @inlinable public var to: Double { get { box?.extras.to ?? 0 } set { extras.to = newValue } }

    /// The total order markers are kept in: time, then id (so equal times have a stable order).
    @inlinable
    public func precedes(_ other: Marker) -> Bool {
        time < other.time || (time == other.time && id < other.id)
    }

    public static func == (a: Marker, b: Marker) -> Bool {
        a.id == b.id && a.time == b.time && a.amp == b.amp && a.contentCode == b.contentCode
            && (a.box === b.box || a.extras == b.extras)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(time)
        hasher.combine(amp)
        hasher.combine(contentCode)
        if let box { hasher.combine(box.extras) }
    }

    /// The byte a content is kept in.
    @inlinable
    static func code(_ content: Content?) -> UInt8 {
        switch content {
        case nil: return 0
        case .clip(let n)?:
            // Clips outside 1...16 are never stored (every reader refuses them); clamped so the byte stays one.
            return UInt8(Swift.min(Swift.max(n, 1), 16))
        case .hold?: return 17
        case .rest?: return 18
        case .random?: return 19
        }
    }

    /// The content a byte holds.
    @inlinable
    static func content(_ code: UInt8) -> Content? {
        switch code {
        case 0: return nil
        case 1...16: return .clip(Int(code))
        case 17: return .hold
        case 18: return .rest
        default: return .random
        }
    }
}

/// A marker's extras out of line: immutable, shared by the copies of a marker, replaced whole when one changes.
public final class ExtrasBox: Sendable {
    public let extras: MarkerExtras

    @inlinable init(_ extras: MarkerExtras) { self.extras = extras }
}

/// What a marker may carry besides its time, amplitude and clip: the step-sequencer fields.
public struct MarkerExtras: Hashable, Sendable {
    /// The chance it sounds on each pass, 0...1 (`p=`); 1 always. Decided per pass by a hash of the document's
    /// seed, the pass, the track and the marker's time (`Schedule.sounds`), so every render plays the same.
    public var p: Double = 1
    /// A ratchet (`rep=N`): N equal hits, 1 (the default) a single one.
    public var rep: Int = 1
    /// The seconds the ratchet's hits share (`rep=N:SPAN`); nil: up to the track's next marker.
    public var repSpan: Double?
    /// Seconds into the clip's sound where the marker starts playing it (`from=`, a slice of a loop); 0 from
    /// the start.
    public var from: Double = 0
    /// Seconds into the clip's sound where the marker's slice ends (`to=`); 0: no end of its own. A gate closes
    /// there at the latest (at the next marker when that comes first), so a slice moved later leaves the sound
    /// before it ending where it ends in the recording, not running into the moved slice's place.
    public var to: Double = 0

    public init(p: Double = 1, rep: Int = 1, repSpan: Double? = nil, from: Double = 0, to: Double = 0) {
        self.p = p
        self.rep = rep
        self.repSpan = repSpan
        self.from = from
        self.to = to
    }

    /// The most hits a ratchet has.
    public static let repRange = 1...64

    /// Nothing but the defaults.
    @inlinable public var isDefault: Bool { p == 1 && rep == 1 && repSpan == nil && from == 0 && to == 0 }

    /// As the command line and the status line write them (`p=0.5 rep=4:0.25 from=1.5`), empty for the defaults.
    public var text: String {
        var out: [String] = []
        if p != 1 { out.append("p=\(DocumentFile.number(p))") }
        if rep != 1 || repSpan != nil {
            out.append("rep=\(rep)" + (repSpan.map { ":\(DocumentFile.number($0))" } ?? ""))
        }
        if from != 0 { out.append("from=\(DocumentFile.number(from))") }
        if to != 0 { out.append("to=\(DocumentFile.number(to))") }
        return out.joined(separator: " ")
    }

    /// As a file writes them after a marker's other fields (`, "p": 0.5, "rep": 4, "repspan": 0.25, "from": 1.5`),
    /// empty for the defaults.
    public var json: String {
        var out = ""
        if p != 1 { out += ", \"p\": \(DocumentFile.number(p))" }
        if rep != 1 { out += ", \"rep\": \(rep)" }
        if let repSpan { out += ", \"repspan\": \(DocumentFile.number(repSpan))" }
        if from != 0 { out += ", \"from\": \(DocumentFile.number(from))" }
        if to != 0 { out += ", \"to\": \(DocumentFile.number(to))" }
        return out
    }

    /// The file's keys for these fields.
    public static let keys = ["p", "rep", "repspan", "from", "to"]
}

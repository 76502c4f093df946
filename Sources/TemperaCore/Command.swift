/// Every edit and setting tempera knows, as data. The `:` line, scripts, key bindings and tests all build
/// these values and hand them to one `Session`; the textual forms are in `CommandParser`.
public enum Command: Hashable, Sendable {
    case trackAdd(name: String?)
    /// Make track N (from 1) current.
    case trackSelect(Int)
    /// `track [N] mute [on|off]`: mute track N (from 1), or the current track when nil; `on` nil toggles.
    /// Not a change of the current track.
    case trackMute(track: Int?, on: Bool?)
    /// `track [N] solo [on|off]`: likewise. Several tracks may be soloed; then only they sound.
    case trackSolo(track: Int?, on: Bool?)
    /// `track [N] gain G`: linear gain 0...4 (`CommandParser.trackGainRange`); the text also takes decibels,
    /// `track gain -6dB`, which read as their linear value.
    case trackGain(track: Int?, gain: Double)
    /// `track [N] name NAME`: rename.
    case trackName(track: Int?, name: String)
    case length(Double)
    case loopRange(Double, Double)
    case loop(on: Bool)
    case tempo(Double)
    case volume(Double)
    /// `slot N file=... note=... gain=... mode=... attack=... release=...`: only the given settings change.
    case slot(Int, SlotSettings)
    case cursor(Double)
    case markerAdd(time: Double, amp: Double?)
    case pulse(period: Double, count: Int, start: Double?, amp: Double?)
    case clipMode(Bool)
    case snap(Bool)
    /// The clip drawing places: 1...16, `+`, `-` or `?`.
    case chooseClip(Content)
    case draw(amp: Double?)
    case drawGroup(Int)
    /// Typing draw.
    case type(PatternCode)
    case fill(PatternCode)
    case select(Selection)
    case shift(Double)
    case scale(factor: Double, handle: ScaleHandle)
    /// Move the K-th selected element (from 1) to a time.
    case scaleHandle(k: Int, to: Double)
    case subdivide(Int)
    case rotate
    case reverse
    case delete
    case groupStore(Int)
    case groupStamp(Int, times: Int)
    case undo(Int)
    case redo(Int)
    case save(String?)
    case temper(TemperCommand)
    /// `record [on|off]`: arm recording (no on|off: toggle). Armed, the next start of the transport opens a take
    /// that ends when it stops. Not a change of the document.
    case recordArm(Bool?)
    /// `record take T:S:V ...`: pad hits as markers, each at time T holding slot S with amplitude V, on the track
    /// that already holds slot S (the current track first), else on the current track. One undo step (a live take
    /// runs one per hit inside the take's transaction, which makes the whole take one step).
    case recordTake([RecordedHit])

    /// The settings a `slot` command may carry; nil leaves a setting as it is.
    public struct SlotSettings: Hashable, Sendable {
        public var file: String?
        public var note: Int?
        public var gain: Double?
        public var mode: ClipSlot.Mode?
        public var attack: Double?
        public var decay: Double?
        public var release: Double?
        public var name: String?

        public init(file: String? = nil, note: Int? = nil, gain: Double? = nil, mode: ClipSlot.Mode? = nil,
                    attack: Double? = nil, decay: Double? = nil, release: Double? = nil, name: String? = nil) {
            self.file = file
            self.note = note
            self.gain = gain
            self.mode = mode
            self.attack = attack
            self.decay = decay
            self.release = release
            self.name = name
        }
    }

    public enum ScaleHandle: Hashable, Sendable {
        /// The first selected element is the handle: the last stays fixed.
        case first
        /// The last selected element is the handle: the first stays fixed (the default).
        case last
    }

    /// A selection change (not an undo step).
    public struct Selection: Hashable, Sendable {
        public enum Kind: Hashable, Sendable {
            case none
            case all
            case left
            case right
            case at(Double)
            case range(Double, Double)
            case pattern(PatternCode)
        }
        public var kind: Kind
        /// Every track instead of the current one.
        public var allTracks: Bool
        /// Hold: add to the selection, inverting what it touches.
        public var add: Bool

        public init(_ kind: Kind, allTracks: Bool = false, add: Bool = false) {
            self.kind = kind
            self.allTracks = allTracks
            self.add = add
        }
    }
}

/// The rhythm designer's commands.
public enum TemperCommand: Hashable, Sendable {
    /// `temper span=... top=A:BEATS bottom=B:BEATS [map=...] [s=X]`.
    case define(span: Double, top: Int, topBeats: BeatChoice, bottom: Int, bottomBeats: BeatChoice,
                map: [Temperament.Pair]?, slider: Double?)
    case slider(Double)
    case stamp(times: Int)
    case group(Int)
    case apply
    case morph(times: Int, from: Double, to: Double)
    case preset(String)

    /// How a row's beats are chosen.
    public enum BeatChoice: Hashable, Sendable {
        case list([Int])
        case all
        /// E(k, n) rotated by r.
        case euclid(k: Int, rotation: Int)
    }
}

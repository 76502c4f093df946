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
    /// `kit list`: the kits installed, named in one line.
    case kitList
    /// `kit load NAME|PATH [from=N]`: the kit's instruments onto slots N, N+1, ... (at most up to 16).
    case kitLoad(String, from: Int)
    case cursor(Double)
    /// `marker add TIME [amp=A] [clip=C]`: with a clip, a marker already at exactly TIME on the current track
    /// takes the clip (and the amplitude, when given) instead of a second marker being stacked on it.
    case markerAdd(time: Double, amp: Double?, content: Content? = nil)
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
    /// `spread "CODE"`: the code's symbols spread evenly over the loop on the current track, one equal step
    /// each, as a drum machine divides a bar (`1x4` on the beats, `.2.2` on 2 and 4, `1x5` quintuplets).
    case spread(PatternCode)
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
    /// `pattern "CODE"`: the pattern code the fill and pattern-select tools use, kept with the document.
    case pattern(String)
    /// `record [on|off]`: arm recording (no on|off: toggle). Armed, the next start of the transport opens a take
    /// that ends when it stops. Not a change of the document.
    case recordArm(Bool?)
    /// `record take T:S:V ...`: pad hits as markers, each at time T holding slot S with amplitude V, on the track
    /// that already holds slot S (the current track first), else on the current track. One undo step (a live take
    /// runs one per hit inside the take's transaction, which makes the whole take one step).
    case recordTake([RecordedHit])
    /// `section add [NAME] [A B] [x R] [tempo=X]`: a section at the end of the song; the region defaults to the
    /// loop region, repeats to 1, the tempo to the document's (followed when it changes).
    case sectionAdd(name: String?, start: Double?, end: Double?, repeats: Int?, tempo: Double?)
    /// `section N repeats R | tempo X | region A B | name NAME | move M | delete | duplicate`, N and M from 1.
    case section(Int, SectionChange)
    /// `song on|off`: play the song instead of the loop.
    case song(on: Bool)
    /// `song loop on|off`: start the song again at its end.
    case songLoop(on: Bool)

    /// What `section N ...` changes.
    public enum SectionChange: Hashable, Sendable {
        case repeats(Int)
        case tempo(Double)
        case region(Double, Double)
        case name(String)
        case move(Int)
        case delete
        /// A copy right after the section.
        case duplicate
    }
    /// `beat TIME`: seconds per beat at tempo x1 (times do not change).
    case beat(Double)
    /// `meter N`: beats per bar.
    case meter(Int)
    /// `bpm X`: sets the tempo to X * beat / 60 (times do not change).
    case bpm(Double)
    /// `grid N|off`: the cursor grid, N steps a beat (1...32), nil for off.
    case grid(Int?)
    /// `click on|off [level=L]` or `click level=L`: the metronome; nil leaves a setting as it is.
    case click(on: Bool?, level: Double?)
    /// `countin BARS`: bars of click before playback starts (0: none).
    case countIn(Int)
    /// `amp A` sets the selection's amplitude; `amp +D` / `amp -D` (relative) adds to it, clamped to 0...1.
    case amp(Double, relative: Bool)
    /// `copy`: the selection to the clipboard (session state, not an undo step).
    case copy
    /// `cut`: copy, then delete the selection (one step).
    case cut
    /// `paste`: the clipboard at the cursor on the current track (one step).
    case paste
    /// `duplicate`: the selection repeated right after its span.
    case duplicate
    /// `track [N] delete`.
    case trackDelete(track: Int?)
    /// `track [N] move M`: track N (or the current one) becomes track M.
    case trackMove(track: Int?, to: Int)
    /// `track [N] duplicate`: a copy of the track right below it.
    case trackDuplicate(track: Int?)
    /// `quantize N [strength=S]`: the selection moves toward the nearest 1/N of a beat by the fraction S.
    case quantize(Int, strength: Double)
    /// Probability, ratchets, humanize and grooves (`GrooveCommand`).
    case groove(GrooveCommand)

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
        /// The slot's velocity layers, replacing all it had (`[]`: none, the slot plays its file again).
        public var layers: [ClipSlot.Layer]?
        public var pan: Double?
        /// A choke group, 0 for none.
        public var choke: Int?
        /// `note=none`: the slot plays its sample as recorded again (wins over `note`).
        public var clearNote = false
        /// `sf2=PATH`: play `note` through a SoundFont; `program=` and `bank=` choose its preset.
        public var soundFont: String?
        public var program: Int?
        public var bank: Int?
        /// `midi=CH[:NOTE]`: MIDI out on channel CH (1...16), 0 for `midi=none`; the note it sends (nil: the slot's).
        public var midiChannel: Int?
        public var midiNote: Int?

        public init(file: String? = nil, note: Int? = nil, gain: Double? = nil, mode: ClipSlot.Mode? = nil,
                    attack: Double? = nil, decay: Double? = nil, release: Double? = nil, name: String? = nil,
                    soundFont: String? = nil, program: Int? = nil, bank: Int? = nil, clearNote: Bool = false,
                    layers: [ClipSlot.Layer]? = nil, pan: Double? = nil, choke: Int? = nil, midiChannel: Int? = nil,
                    midiNote: Int? = nil) {
            self.midiChannel = midiChannel
            self.midiNote = midiNote
            self.clearNote = clearNote
            self.layers = layers
            self.pan = pan
            self.choke = choke
            self.soundFont = soundFont
            self.program = program
            self.bank = bank
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
    /// `temper amp top|bottom BEAT A`: the amplitude of one pulse of a template row.
    case amp(row: Temperament.RowName, beat: Int, amp: Double)
    /// `temper fit [max=16] [span=L]`: the designer set to the temperament that best explains the selected
    /// markers of one span (`Temperament.fit`); span defaults to the designer's.
    case fit(max: Int, span: Double?)

    /// How a row's beats are chosen.
    public enum BeatChoice: Hashable, Sendable {
        case list([Int])
        case all
        /// E(k, n) rotated by r.
        case euclid(k: Int, rotation: Int)
    }
}

/// One of the 16 clip slots: a sample (or a MIDI note played on a sample) and how it sounds.
public struct ClipSlot: Hashable, Sendable {
    /// Slot numbers as the user sees them.
    public static let range = 1...16
    public static let count = 16

    public enum Mode: String, Hashable, Sendable, CaseIterable {
        /// Plays to the sample's end; a later `-` on the track cuts it.
        case oneShot = "oneshot"
        /// Sounds until the next marker of its track that is not `+`.
        case gate
    }

    /// A short name shown in the Clips tab (defaults to the file's base name).
    public var name: String
    /// An audio file path: absolute, relative to the document's folder, or `kit/NAME.wav` for the default kit.
    public var file: String?
    /// A MIDI note: the sample is played pitched to it, 60 = as recorded; with a SoundFont, the note it plays.
    public var note: Int?
    /// A SoundFont (`sf2=PATH`, or `default` for the General MIDI font the system has): the slot plays `note`
    /// of `program` in `bank` through FluidSynth instead of a sample (bank 128: General MIDI drums).
    public var soundFont: String?
    public var program: Int = 0
    public var bank: Int = 0
    /// Linear gain.
    public var gain: Double
    public var mode: Mode
    /// Envelope, milliseconds: attack from 0 to full, decay from full to 0 (nil: hold full level), release on a cut.
    public var attack: Double
    public var decay: Double?
    public var release: Double

    public init(name: String = "", file: String? = nil, note: Int? = nil, gain: Double = 1, mode: Mode = .oneShot,
                attack: Double = 1, decay: Double? = nil, release: Double = 20) {
        self.name = name
        self.file = file
        self.note = note
        self.gain = gain
        self.mode = mode
        self.attack = attack
        self.decay = decay
        self.release = release
    }

    /// General MIDI programs, and SoundFont banks (128: percussion).
    public static let programRange = 0...127
    public static let bankRange = 0...16383

    /// True when the slot has nothing to play.
    public var isEmpty: Bool { file == nil && note == nil }
}

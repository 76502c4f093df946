#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    /// Velocity layers: when there are any, the slot plays these instead of `file`, the marker's amplitude
    /// choosing one (`layer(for:)`).
    public var layers: [Layer] = []
    /// Stereo position, -1 (left) ... 1 (right); 0 is the centre (`Pan.gains`).
    public var pan: Double = 0
    /// Choke group 1...`chokeGroups`, 0 for none: an onset of this slot fades out the voices of every other
    /// slot in the same group (the closed hat stops the open hat).
    public var choke: Int = 0

    /// MIDI out (`slot N midi=CH[:NOTE]`): the channel (1...16) the slot's onsets are sent on, nil for none.
    public var midiChannel: Int?
    /// The note sent (nil: the slot's `note`, else the General MIDI drum note of its name; see `midiOutNote`).
    public var midiNote: Int?

    /// MIDI in (`midi map NOTE SLOT`): the note that plays this slot, nil for the default (see `midiInSlots`).
    public var midiInNote: Int?

    /// For each MIDI note 0...127, the slot (1...16) a note-on plays, nil for none: a slot mapped to the note
    /// (`midi map`), else a slot whose `note` it is, else a slot whose name is that General MIDI drum; the lowest
    /// slot number first in each case.
    public static func midiInSlots(_ slots: [ClipSlot]) -> [Int?] {
        var table = [Int?](repeating: nil, count: 128)
        for pass in 0..<3 {
            for (i, s) in slots.enumerated() where !s.isEmpty {
                let note: Int?
                switch pass {
                case 0: note = s.midiInNote
                case 1: note = s.note
                default: note = GeneralMIDI.drumNote(forName: s.name)
                }
                if let n = note, (0...127).contains(n), table[n] == nil { table[n] = i + 1 }
            }
        }
        return table
    }

    /// The note MIDI out sends for this slot: its MIDI note, else its `note`, else the General MIDI drum note of
    /// its name, else 60.
    public var midiOutNote: Int { midiNote ?? note ?? GeneralMIDI.drumNote(forName: name) ?? 60 }

    /// A slot that only sends MIDI: it has a channel and no file, layers or SoundFont, and is silent inside tempera.
    public var isSilentMidi: Bool { midiChannel != nil && file == nil && layers.isEmpty && soundFont == nil }

    /// The choke groups a slot may join.
    public static let chokeGroups = 1...64

    /// One velocity layer: a file and the amplitudes it answers.
    public struct Layer: Hashable, Sendable {
        /// A file reference, resolved like `ClipSlot.file`.
        public var file: String
        /// The amplitudes (0...1) this layer plays for, both ends included.
        public var min: Double
        public var max: Double
        /// Linear gain, on top of the slot's.
        public var gain: Double
        /// Semitones up (negative: down), applied when the file is loaded.
        public var pitch: Double

        public init(file: String, min: Double = 0, max: Double = 1, gain: Double = 1, pitch: Double = 0) {
            self.file = file
            self.min = min
            self.max = max
            self.gain = gain
            self.pitch = pitch
        }
    }

    public init(name: String = "", file: String? = nil, note: Int? = nil, gain: Double = 1, mode: Mode = .oneShot,
                attack: Double = 1, decay: Double? = nil, release: Double = 20, layers: [Layer] = [], pan: Double = 0,
                choke: Int = 0) {
        self.layers = layers
        self.pan = pan
        self.choke = choke
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
    public var isEmpty: Bool { file == nil && note == nil && layers.isEmpty && midiChannel == nil }

    /// The layer an amplitude plays: the first (in order) whose [min, max] holds it; in a gap between ranges, the
    /// nearest range (ties to the earlier layer). Nil when the slot has no layers. No allocation: the audio
    /// thread's draws of `?` use the same rule through `Layer.pick`.
    public func layer(for amp: Double) -> Int? {
        if layers.isEmpty && soundFont != nil {
            return Layer.pick(amp, count: Self.soundFontBands.count) { Self.soundFontBands[$0] }
        }
        guard !layers.isEmpty else { return nil }
        return layers.withUnsafeBufferPointer { buffer in
            Layer.pick(amp, count: buffer.count) { (buffer[$0].min, buffer[$0].max) }
        }
    }

    /// The amplitude bands a SoundFont slot's note is rendered in, each at the velocity of its top,
    /// `round(max·127)` (32, 64, 95, 127): a marker plays its band's rendering scaled by amp/max, so at a
    /// band's top it sounds exactly as FluidSynth plays that velocity (timbre and loudness), and in between
    /// it is scaled as any sample is.
    public static let soundFontBands: [(min: Double, max: Double)] = [(0, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1)]

    /// The MIDI velocity band `k` of a SoundFont slot is rendered at.
    public static func soundFontVelocity(band k: Int) -> Int { max(1, Int((soundFontBands[k].max * 127).rounded())) }

    /// The layers playback chooses from: the slot's own, or for a SoundFont slot without any, one per
    /// velocity band (gain 1/max, see `soundFontBands`); empty for a slot of one sound.
    public var playedLayers: [Layer] {
        guard layers.isEmpty, soundFont != nil else { return layers }
        return Self.soundFontBands.map { Layer(file: "", min: $0.min, max: $0.max, gain: 1 / $0.max) }
    }
}

extension ClipSlot.Layer {
    /// The layer rule of `ClipSlot.layer(for:)` over `count` ranges read by `range`.
    @inlinable
    public static func pick(_ amp: Double, count: Int, range: (Int) -> (Double, Double)) -> Int {
        var best = 0
        var bestDistance = Double.infinity
        for i in 0..<count {
            let (lo, hi) = range(i)
            if amp >= lo && amp <= hi { return i }
            let d = amp < lo ? lo - amp : amp - hi
            if d < bestDistance { bestDistance = d; best = i }
        }
        return best
    }
}

/// The pan law: equal power (sine/cosine), scaled so the centre is unity gain on both sides.
///
/// θ = (pan + 1) · π/4; left = √2 · cos θ, right = √2 · sin θ. left² + right² = 2 at every position, so a sound
/// keeps its power as it moves, and at the centre both gains are exactly 1 (a document without pan sounds as it
/// always did); hard left is +3 dB on the left and silence on the right.
public enum Pan {
    public static func gains(_ pan: Double) -> (left: Double, right: Double) {
        if pan == 0 { return (1, 1) }
        let p = Swift.min(Swift.max(pan, -1), 1)
        if p == -1 { return (2.0.squareRoot(), 0) }
        if p == 1 { return (0, 2.0.squareRoot()) }
        let theta = (p + 1) * Double.pi / 4
        return (2.0.squareRoot() * cos(theta), 2.0.squareRoot() * sin(theta))
    }
}

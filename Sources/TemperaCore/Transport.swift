/// Playback settings kept with the document.
public struct Transport: Hashable, Sendable {
    /// A unit-less scale on every interval: x2 plays twice as fast.
    public var tempo: Double
    /// The tempo as a function of document time; empty: `tempo` throughout.
    public var tempoMap = TempoMap()
    /// Master volume 0...1.
    public var volume: Double
    /// The loop region in seconds at tempo x1, start < end.
    public var loopStart: Double
    public var loopEnd: Double
    public var loopOn: Bool
    /// The timeline's length in seconds at tempo x1.
    public var length: Double
    /// Seconds per beat at tempo x1: musical time is a view onto the seconds (see `MusicalTime.swift`).
    public var beat: Double = 0.5
    /// Pulses per bar: the N of the meter N/D (`Meter`; `signature` reads the three as one).
    public var meter: Int = 4
    /// The note a pulse of the meter is: the D of N/D (4: the beat itself).
    public var meterUnit: Int = 4
    /// The meter's beat groups as written (`2+2+3`); nil: the usual ones (`Meter.defaultGroups`).
    public var meterGroups: [Int]? = nil
    /// Steps per beat of the cursor grid the editor follows, 1...32; nil: no grid (free).
    public var grid: Int? = nil
    /// The metronome plays (in the editor; `render` and `play` ask for it with `--click`).
    public var click: Bool = false
    /// The metronome's level, 0...1.
    public var clickLevel: Double = 0.7
    /// Bars of click played before playback or recording starts (0: none).
    public var countIn: Int = 0

    public init(tempo: Double = 1, volume: Double = 0.8, loopStart: Double = 0, loopEnd: Double = 2,
                loopOn: Bool = true, length: Double = 2) {
        self.tempo = tempo
        self.volume = volume
        self.loopStart = loopStart
        self.loopEnd = loopEnd
        self.loopOn = loopOn
        self.length = length
    }

    public static let tempoRange = 0.05...20.0
    /// The seconds a beat may last at x1.
    public static let beatRange = 0.01...60.0
    /// Beats a bar may hold.
    public static let meterRange = 1...64
    /// Grid steps a beat may be divided into.
    public static let gridRange = 1...32
    /// Bars of count-in.
    public static let countInRange = 0...16
}

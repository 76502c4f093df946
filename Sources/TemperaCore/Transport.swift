/// Playback settings kept with the document.
public struct Transport: Hashable, Sendable {
    /// A unit-less scale on every interval: x2 plays twice as fast.
    public var tempo: Double
    /// Master volume 0...1.
    public var volume: Double
    /// The loop region in seconds at tempo x1, start < end.
    public var loopStart: Double
    public var loopEnd: Double
    public var loopOn: Bool
    /// The timeline's length in seconds at tempo x1.
    public var length: Double

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
}

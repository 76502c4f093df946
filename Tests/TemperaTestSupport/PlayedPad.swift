/// What `tempera play --pads` printed about one pad (one JSON line on standard output).
public struct PlayedPad: Decodable, Sendable {
    public var slot: Int
    public var velocity: Double
    /// The seconds the input line gave.
    public var sent: Double
    /// When it was played, seconds from the heard start.
    public var at: Double
    /// The output latency when it was played, seconds.
    public var latency: Double
    /// The pass and the time on the timeline it was heard at (nil: not playing).
    public var pass: Int?
    public var time: Double?
    /// With --song: the pass of the whole song and the section (from 1) heard.
    public var loop: Int?
    public var section: Int?
}

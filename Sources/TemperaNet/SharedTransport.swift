import TemperaCore

/// The transport every participant plays by: whether the document plays, and on the host's clock where its
/// music is. `music` counts seconds of the document's time (tempo x1) from the start of pass 0, unwrapped across
/// passes, as the players' own playhead clocks do; it runs at `rate` from `at` on.
///
/// The host starts playback a little ahead (`lead`), so each player has the start before it is due and starts
/// on the same moment of the host's clock. A player that comes in later, or whose output slipped, finds where
/// the music should be from `music(atHost:)` and joins at a pass's start.
public struct SharedTransport: Sendable, Equatable {
    public var playing = false
    /// Counts the starts: a player restarts when it changes, and only follows (corrects) while it stays.
    public var start = 0
    /// The host's clock (seconds, monotonic) at which `music` is heard.
    public var at = 0.0
    public var music = 0.0
    /// Music seconds a second (the tempo); 0 where the players keep their own time after the start (a song, whose
    /// sections have tempos of their own).
    public var rate = 0.0
    /// The loop's length in music seconds (0 for a song): pass k starts at music k × span.
    public var span = 0.0

    public init() {}

    /// How long before the start a play is announced, seconds: room for the message to arrive and the outputs'
    /// buffers (tens of milliseconds) to be filled ahead of it.
    public static let lead = 0.25

    /// The music heard at the host's time `t`.
    public func music(atHost t: Double) -> Double { music + (t - at) * rate }

    /// The rate and pass length the document plays at: the loop's tempo and region; none for a song.
    public static func pace(of document: Document) -> (rate: Double, span: Double) {
        if document.song.plays { return (0, 0) }
        let (a, b) = Schedule.region(of: document.transport)
        return (document.transport.tempo, max(0, b - a))
    }
}

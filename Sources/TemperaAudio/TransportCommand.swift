/// A transport command from the editor to the audio thread.
public struct TransportCommand: Sendable, Equatable {
    public enum Kind: Int32, Sendable {
        case play, pause, rewind
        /// Stop every voice with a short fade (the engine is being stopped or the output changes).
        case silence
        /// A pad: slot `value` (0-based) starts at the beginning of the next block, at velocity `level`.
        case pad
        /// Song mode: start section `value` (from 0) from its first pass at the next block.
        case jump
        /// Play from the start (pass 0 of the loop, or of the song's first section) at output frame `frame`
        /// exactly (at once if it is past); `value` as for `.play`. With `nanos` set and an output that reports
        /// its latency, the frame is aimed again at each block until the start: the one heard at `nanos` on
        /// `MonotonicClock`. Playing together starts every player so.
        case playAt
        /// Moves the music `frame` output frames later (earlier when negative) while it plays: keeps a shared
        /// playback on the host's clock.
        case nudge
        /// The loop's pass 0 from `time` seconds on the timeline (`locate`): what lies before it does not sound.
        case locate
    }
    public var kind: Kind
    /// For `.play`: passes to play before stopping (0: endless with the loop on, one pass with it off).
    /// For `.pad`: the slot, from 0.
    public var value: Int32
    /// For `.pad`: the velocity, 0...1.
    public var level: Float
    /// For `.playAt`: the output frame to start on; for `.nudge`: frames to move the music by.
    public var frame: Int64
    /// For `.playAt`: the moment to be heard from, on `MonotonicClock` (0: the frame alone).
    public var nanos: UInt64
    /// For `.locate`: seconds on the document's timeline.
    public var time: Double
    public init(_ kind: Kind, value: Int32 = 0, level: Float = 0, frame: Int64 = 0, nanos: UInt64 = 0, time: Double = 0) {
        self.kind = kind
        self.value = value
        self.level = level
        self.frame = frame
        self.nanos = nanos
        self.time = time
    }
}

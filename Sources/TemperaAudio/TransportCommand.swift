/// A transport command from the editor to the audio thread.
public struct TransportCommand: Sendable, Equatable {
    public enum Kind: Int32, Sendable {
        case play, pause, rewind
        /// Stop every voice with a short fade (the engine is being stopped or the output changes).
        case silence
        /// Song mode: start section `value` (from 0) from its first pass at the next block.
        case jump
    }
    public var kind: Kind
    /// For `.play`: passes to play before stopping (0: endless with the loop on, one pass with it off).
    public var value: Int32
    public init(_ kind: Kind, value: Int32 = 0) {
        self.kind = kind
        self.value = value
    }
}

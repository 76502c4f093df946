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
    }
    public var kind: Kind
    /// For `.play`: passes to play before stopping (0: endless with the loop on, one pass with it off).
    /// For `.pad`: the slot, from 0.
    public var value: Int32
    /// For `.pad`: the velocity, 0...1.
    public var level: Float
    public init(_ kind: Kind, value: Int32 = 0, level: Float = 0) {
        self.kind = kind
        self.value = value
        self.level = level
    }
}

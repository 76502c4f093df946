/// One pad hit of a recorded take: where on the timeline it was heard, which slot, how hard.
public struct RecordedHit: Hashable, Sendable {
    /// Seconds on the timeline (tempo x1), as the player heard it: not quantized.
    public var time: Double
    /// The clip slot played, 1...16.
    public var slot: Int
    /// The velocity, 0...1: the recorded marker's amplitude.
    public var velocity: Double

    public init(time: Double, slot: Int, velocity: Double) {
        self.time = time
        self.slot = slot
        self.velocity = velocity
    }

    /// `TIME:SLOT:VELOCITY`, as `record take` writes a hit (times shortest-round-trip, so they read back exactly).
    public var text: String {
        "\(DocumentFile.number(time)):\(slot):\(DocumentFile.number(velocity))"
    }
}

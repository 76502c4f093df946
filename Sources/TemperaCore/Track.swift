/// A horizontal line of the timeline: grid markers and the clips placed on them.
public struct Track: Hashable, Sendable {
    public var name: String
    public var markers: MarkerList
    /// Linear gain applied to every voice of the track.
    public var gain: Double
    public var mute: Bool
    public var solo: Bool

    public init(name: String, markers: MarkerList = MarkerList(), gain: Double = 1, mute: Bool = false, solo: Bool = false) {
        self.name = name
        self.markers = markers
        self.gain = gain
        self.mute = mute
        self.solo = solo
    }
}

/// A horizontal line of the timeline: grid markers and the clips placed on them.
public struct Track: Hashable, Sendable {
    public var name: String
    public var markers: MarkerList
    /// Linear gain applied to every voice of the track.
    public var gain: Double
    public var mute: Bool
    public var solo: Bool
    /// The track's own region, repeated end to end from the start of the loop or of each section;
    /// nil: the region played.
    public var cycle: Cycle? = nil
    /// How many times as fast the track plays, as typed (an exact expression: `18/17`, `sqrt(2)`); nil: 1.
    public var ratioText: String? = nil
    /// The value of `ratioText` (1 without it).
    public var ratio: Double = 1

    /// A track's own region [start, end), seconds on the timeline.
    public struct Cycle: Hashable, Sendable {
        public var start: Double
        public var end: Double
        public init(start: Double, end: Double) {
            self.start = start
            self.end = end
        }
    }

    /// The ratios a track may play at.
    public static let ratioRange = (1.0 / 64)...64.0

    /// True when the track plays as every track did before cycles and ratios: over the region played, at 1.
    public var followsRegion: Bool { cycle == nil && ratio == 1 }

    public init(name: String, markers: MarkerList = MarkerList(), gain: Double = 1, mute: Bool = false, solo: Bool = false) {
        self.name = name
        self.markers = markers
        self.gain = gain
        self.mute = mute
        self.solo = solo
    }
}

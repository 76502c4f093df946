/// A track's settings apart from its markers: what `Edit.setTrack` records.
public struct TrackSettings: Hashable, Sendable {
    public var name: String
    public var gain: Double
    public var mute: Bool
    public var solo: Bool
    public var cycle: Track.Cycle?
    public var ratioText: String?
    public var ratio: Double

    public init(_ track: Track) {
        name = track.name
        gain = track.gain
        mute = track.mute
        solo = track.solo
        cycle = track.cycle
        ratioText = track.ratioText
        ratio = track.ratio
    }

    func apply(to track: inout Track) {
        track.name = name
        track.gain = gain
        track.mute = mute
        track.solo = solo
        track.cycle = cycle
        track.ratioText = ratioText
        track.ratio = ratio
    }
}

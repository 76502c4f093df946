/// A track's settings apart from its markers: what `Edit.setTrack` records.
public struct TrackSettings: Hashable, Sendable {
    public var name: String
    public var gain: Double
    public var mute: Bool
    public var solo: Bool

    public init(_ track: Track) {
        name = track.name
        gain = track.gain
        mute = track.mute
        solo = track.solo
    }

    func apply(to track: inout Track) {
        track.name = name
        track.gain = gain
        track.mute = mute
        track.solo = solo
    }
}

import Foundation
import TemperaPlayback

/// What the transport bar shows about playback that is not in the document: the engine's state, sampled by
/// the editor loop each frame so panes never talk to the audio engine.
public struct TransportInfo: Hashable, Sendable {
    /// True while the engine plays (the bar shows ▶ playing, else ⏸ paused).
    public var isPlaying: Bool
    /// The playhead in seconds on the document timeline (tempo x1).
    public var position: Double
    /// A problem with the audio output to show in the warning role (e.g. "no audio server"); nil when fine.
    public var audio: String?
    /// The output latency the server reports, when known.
    public var latencyMs: Double?
    /// False when the system refused the audio thread real-time priority (shown beside the latency); true or nil
    /// otherwise.
    public var realTime: Bool?
    /// Buffers the output ran dry since start; shown when above zero.
    public var underruns: Int
    /// Where the song's playhead is while the song plays; nil for the loop.
    var song: SongTab.Playing?
    /// While a count-in sounds before playing: its beats left, the one sounding included (0 while a start aimed at
    /// a moment waits); nil otherwise.
    public var countIn: Int?
    /// While the Pads tab is shown: for each slot, what is left of its sound (0...1, from the engine's voices),
    /// the bar its pad draws; empty otherwise.
    public var pads: [Double] = []
    /// The tempo heard at the playhead while playing (the tempo map's or a ramp's there, a section's own, the
    /// session's under Link); nil: the document's tempo is what plays.
    public var heardTempo: Double?
    /// The Ableton Link session followed (`--link`): its peers and tempo; nil when none is followed.
    public var link: LinkStatus?
    /// The backend, clock and JACK transport in force, when other than PulseAudio alone ("jack clock out").
    public var studio = ""
    /// Some pad's sound is still running down (the screen keeps drawing while it does).
    public var padsSounding: Bool { pads.contains { $0 > 0 } }

    public init(isPlaying: Bool = false, position: Double = 0, audio: String? = nil, latencyMs: Double? = nil,
                underruns: Int = 0) {
        self.isPlaying = isPlaying
        self.position = position
        self.audio = audio
        self.latencyMs = latencyMs
        self.underruns = underruns
    }
}

/// A followed Ableton Link session as the status line shows it: the player's own snapshot of it.
public typealias LinkStatus = LinkState

extension LinkState {
    /// "link 1 peer 120.0 bpm", "link 3 peers 92.5 bpm", "link alone 140.0 bpm": the tempo to a tenth.
    public var text: String {
        let who = peers == 0 ? "alone" : "\(peers) peer" + (peers == 1 ? "" : "s")
        return "link \(who) " + String(format: "%.1f", bpm) + " bpm"
    }
}

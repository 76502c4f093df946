/// What the player says about itself at one moment: read once a frame by the editor (the transport bar, the song
/// tab, the pads) and by the command-line players. A value, so whoever reads it never talks to the audio thread.
///
/// Adding something the transport shows (a backend's clock, a tempo heard at the playhead) is: a field here with a
/// default, one line where the player fills it (`AudioEngine.state`), and its use where it is shown. Nothing else
/// changes: no initialiser lists every field, and a player that does not know the field leaves the default.
public struct PlayerState: Equatable, Sendable {
    /// Where the sound goes, in a word the transport may show ("pulse", "null"; a backend names itself).
    public var backend = ""
    /// The output's state: off, connecting, running (with its latency) or unavailable (why, in one line).
    public var output = AudioStatus.off
    /// True while the transport runs (also while a play command is on its way to the audio thread).
    public var isPlaying = false
    /// True once a pass limit was reached and every voice has rung out.
    public var isFinished = false
    /// The playhead, in seconds at tempo x1 on the document's timeline, as heard (the output latency allowed for).
    public var position = 0.0
    /// While a count-in sounds: its beats left, the one sounding included (0 while a start aimed at a moment
    /// waits for it); nil when none runs.
    public var countInBeatsLeft: Int?
    /// True while a count-in sounds.
    public var isCountingIn: Bool { countInBeatsLeft != nil }
    /// Where the song's playhead is while the song plays; nil for the loop.
    public var song: SongPosition?
    /// Whether the thread that renders runs at real-time priority: nil until the output has asked (and for
    /// outputs that never ask), then whether the system granted it.
    public var realTime: Bool?
    /// Times the output ran dry since it started (paused or not: see `PlaybackController` for the audible ones).
    public var underruns = 0
    /// Blocks the master bus silenced because the mix was not a number.
    public var silencedBlocks = 0
    /// True while samples load in the background.
    public var isLoading = false
    /// The tempo the music plays at the playhead (a tempo map's or a ramp's there, a section's own, the session's
    /// under Link), as the transport shows it; nil before anything was rendered.
    public var heardTempo: Double?
    /// The Ableton Link session followed: its peers (not counting this player) and its tempo; nil when none is.
    public var link: LinkState?
    /// MIDI clock: "out" while sent, "in" while followed ("in 97.0 bpm" once a clock is heard); nil: none.
    public var clock: String?
    /// JACK transport: "follow" or "lead" while in force; nil: none.
    public var transport: String?

    /// What the transport bar says of the studio: the backend, then the clock and the JACK transport in force
    /// ("jack clock out transport lead"); empty for PulseAudio alone.
    public var studio: String {
        var parts: [String] = []
        if backend != "pulse" && !backend.isEmpty { parts.append(backend) }
        if let clock { parts.append("clock " + clock) }
        if let transport { parts.append("transport " + transport) }
        return parts.joined(separator: " ")
    }

    public init() {}

    /// The output's latency as the server reports it, milliseconds; nil while not running.
    public var latencyMs: Double? {
        if case .running(let ms) = output { return ms }
        return nil
    }

    /// The one line the transport shows for an output that is not running; nil while it runs.
    public var outputProblem: String? {
        switch output {
        case .off: return "audio off"
        case .connecting: return "connecting to audio"
        case .running: return nil
        // A frozen server is still there: saying "no audio server" would send the user looking for the wrong fault.
        case .unavailable(let why): return why.contains("stalled") ? "audio server stalled" : "no audio server"
        }
    }
}

/// The state of the sound output.
public enum AudioStatus: Equatable, Sendable {
    case off
    case connecting
    /// Connected; the output latency the server reports.
    case running(latencyMs: Double)
    /// No server (or it went away): said once, retried in the background.
    case unavailable(String)
}

/// Where the song's playhead is: the section (from 0), its pass, and the pass of the whole song.
public struct SongPosition: Hashable, Sendable {
    public var section: Int
    public var pass: Int
    public var songPass: Int

    public init(section: Int, pass: Int, songPass: Int) {
        self.section = section
        self.pass = pass
        self.songPass = songPass
    }
}

/// A followed Ableton Link session as the player last saw it.
public struct LinkState: Hashable, Sendable {
    /// Peers connected, not counting this player.
    public var peers: Int
    /// The session's tempo as last published, beats per minute.
    public var bpm: Double

    public init(peers: Int, bpm: Double) {
        self.peers = peers
        self.bpm = bpm
    }
}

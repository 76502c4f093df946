import TemperaCore

/// A pad hit as the engine took it: the key's arrival and the playhead clock read then.
public struct PadHit: Equatable, Sendable {
    /// The slot played, 1...16.
    public var slot: Int
    /// The velocity it played at, 0...1.
    public var velocity: Double
    /// When the key arrived, on `MonotonicClock`.
    public var arrival: UInt64
    /// The playhead clock at the key's arrival.
    public var clock: PlayheadClock
    /// The song's timing when the song played (nil: the loop played), and how many passes of the whole song
    /// play (`Int.max`: endless).
    public var song: SongTiming?
    public var songPasses: Int
    /// A hit from MIDI in: its note, and the output frame it arrived on (nil for a key or a click).
    public var midiNote: Int?
    public var arrivalFrame: Int64?

    /// The loop's timing when the loop played through a tempo map (nil: at one tempo, where the clock's music is
    /// exact): a hit heard during a ramp lands at its document time through the map's inverse.
    public var loop: LoopTiming?

    public init(slot: Int, velocity: Double, arrival: UInt64, clock: PlayheadClock, song: SongTiming? = nil,
                songPasses: Int = 1, loop: LoopTiming? = nil) {
        self.loop = loop
        self.slot = slot
        self.velocity = velocity
        self.arrival = arrival
        self.clock = clock
        self.song = song
        self.songPasses = songPasses
    }

    /// The music the player heard when the key arrived (unwrapped, seconds at tempo x1 from pass 0's start of the
    /// loop, or of the song's section heard then): the playhead then minus the output latency, through the tempo
    /// map's and the ramps' closed-form inverse where the tempo bends. Nil when the transport was not playing.
    public var heard: Double? {
        guard clock.playing else { return nil }
        return clock.heard(atNanos: arrival, loop: loop, song: song)
    }

    /// The song time the player heard when the key arrived (seconds from the song's start, unwrapped across its
    /// passes). Nil when the transport was not playing.
    public var heardSong: Double? { clock.playing ? clock.heardSong(atNanos: arrival) : nil }

    /// Where the song was heard when the key arrived: the song pass, the section sounding then, its pass, and the
    /// time inside its region. Nil for the loop, when not playing, or after the song's last pass has ended.
    public var place: SongTiming.Place? {
        guard let song, let t = heardSong, let p = song.place(at: t, looping: true), p.songPass < songPasses else {
            return nil
        }
        return p
    }

    /// Where a recording puts the hit: the pass (of the loop, or of the section sounding) and the time on the
    /// document's timeline, inside the region that was sounding. Nil when not playing.
    public var timeline: (pass: Int, time: Double)? {
        if song != nil { return place.map { ($0.pass, $0.time) } }
        if let loop, let t = heardSong { return loop.place(atPlay: t) }
        return heard.map { clock.timeline($0) }
    }

    /// The output latency reported when the key arrived (the last stamp's, less the time since it was stamped:
    /// the buffer drains between two writes), in seconds: how long the key takes to be heard.
    public var latency: Double {
        let since = arrival >= clock.nanos ? Double(arrival - clock.nanos) / 1e9 : 0
        return max(0, clock.latency - since)
    }
}

/// What one clip slot sounds: the sample length and the frames left of its voice with the most left to play.
public struct SlotSound: Equatable, Sendable {
    /// The sounding sample's length in frames (0: silent).
    public var length: Int
    /// Frames until it falls silent (its sample's end, or sooner when its envelope or a cut ends it).
    public var remaining: Int

    public init(length: Int, remaining: Int) {
        self.length = length
        self.remaining = remaining
    }

    /// What is left, 0...1: the bar a pad draws.
    public var fraction: Double { length > 0 ? min(1, Double(remaining) / Double(length)) : 0 }
    public var sounding: Bool { remaining > 0 }
}

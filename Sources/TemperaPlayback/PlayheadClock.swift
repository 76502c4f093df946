import TemperaCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the music is, in the time the listener hears it: stamped by the audio thread each time a block reaches
/// the output, read by the editor to place a recorded pad hit at the moment the player heard.
///
/// `music` counts seconds of music (tempo x1, the document's time) from the start of pass 0, unwrapped across
/// passes, up to the last frame rendered when the clock was stamped; the listener hears `latency` seconds behind
/// that. Between two stamps the music runs on at `tempo`.
public struct PlayheadClock: Equatable, Sendable {
    /// When it was stamped, on `MonotonicClock`.
    public var nanos: UInt64
    /// Music rendered by then (seconds at tempo x1 from pass 0's start, unwrapped).
    public var music: Double
    /// The output latency the server reported then, in seconds.
    public var latency: Double
    public var tempo: Double
    /// The region that loops: its start on the timeline and its length.
    public var start: Double
    public var span: Double
    /// The music at which the transport last started playing (nothing before it was heard as this playing).
    public var playStart: Double
    public var playing: Bool
    /// The output frame after the last one rendered when the clock was stamped (heard `latency` later).
    public var frame: Int64
    /// Song time rendered by then: seconds of output from the start of song pass 0 (the song time T, unwrapped
    /// across passes of the song; for the loop, the loop's own seconds). Unlike `music` it runs across sections.
    public var song: Double
    /// The song time at which the transport last started playing.
    public var songPlayStart: Double
    /// The snapshot the audio thread played when it stamped (its `seq`): whose sections `song` is counted in.
    public var snapshot: Int
    /// How far `song` was moved since playing started by edits that changed the song's timing (the musical
    /// position is kept, so its song time changes) and by jumps to a section; nudges are not counted. `song -
    /// songShift` runs on at one second a second from the start, as the output plays it.
    public var songShift: Double

    public init(nanos: UInt64, music: Double, latency: Double, tempo: Double, start: Double, span: Double,
                playStart: Double, playing: Bool, frame: Int64 = 0, song: Double = 0, songPlayStart: Double = 0,
                snapshot: Int = 0, songShift: Double = 0) {
        self.songShift = songShift
        self.frame = frame
        self.song = song
        self.songPlayStart = songPlayStart
        self.snapshot = snapshot
        self.nanos = nanos
        self.music = music
        self.latency = latency
        self.tempo = tempo
        self.start = start
        self.span = span
        self.playStart = playStart
        self.playing = playing
    }

    /// The music heard at `nanos` (on `MonotonicClock`): what was rendered, minus the latency, run on since the
    /// stamp at the stamp's tempo: exact where the tempo holds; where it bends (a tempo map, a ramp) use
    /// `heard(atNanos:loop:song:)`, which reads the clock's inverse. Just after playing started this is before `playStart` (the listener still hears what came before):
    /// nothing is clamped, so a hit there wraps to the region's end (`timeline`). Stopped, the music stands where
    /// it stopped.
    public func heard(atNanos t: UInt64) -> Double {
        guard playing else { return music }
        let since = t >= nanos ? Double(t - nanos) / 1e9 : -Double(nanos - t) / 1e9
        return music + (since - latency) * tempo
    }

    /// The music heard at `nanos` where the tempo bends: the loop's clock through its tempo map (`loop`), or the
    /// song's sections (`song`, their ramps and the map they follow), read in closed form at the song time heard
    /// (`heardSong`), never run on at the tempo of the stamp. For the song it is the music of the section heard
    /// then, from the start of its pass 0. Both nil: `heard(atNanos:)`, exact at one tempo.
    public func heard(atNanos t: UInt64, loop: LoopTiming?, song: SongTiming? = nil) -> Double {
        guard playing else { return music }
        if let loop { return loop.music(atPlay: heardSong(atNanos: t)) }
        if let song, let p = song.place(at: heardSong(atNanos: t), looping: true) {
            let s = song.sections[p.section]
            return Double(p.pass) * s.span + (p.time - s.start)
        }
        return heard(atNanos: t)
    }

    /// The song time heard at `nanos` (on `MonotonicClock`): song time runs at one second a second whatever the
    /// sections' tempos, so this needs no section; before `songPlayStart` just after playing started (not clamped:
    /// `SongTiming.place` wraps it to the song's end). Stopped, the song stands where it stopped.
    public func heardSong(atNanos t: UInt64) -> Double {
        guard playing else { return song }
        let since = t >= nanos ? Double(t - nanos) / 1e9 : -Double(nanos - t) / 1e9
        return song + since - latency
    }

    /// When the song time `s` is (or was) heard, on `MonotonicClock` (while playing; stopped, the stamp's time).
    public func nanos(whenSongHeard s: Double) -> UInt64 {
        guard playing else { return nanos }
        let t = Double(nanos) + (s - song + latency) * 1e9
        return t <= 0 ? 0 : UInt64(t)
    }

    /// When the music `m` is (or was) heard, on `MonotonicClock` (while playing; stopped, the stamp's time).
    public func nanos(whenHeard m: Double) -> UInt64 {
        guard playing, tempo > 0 else { return nanos }
        let seconds = (m - music) / tempo + latency
        let t = Double(nanos) + seconds * 1e9
        return t <= 0 ? 0 : UInt64(t)
    }

    /// The output frame heard at `nanos` (on `MonotonicClock`), at `rate` frames a second: where a frame must be
    /// rendered to be heard then.
    public func frame(heardAtNanos t: UInt64, rate: Double) -> Int64 {
        let since = t >= nanos ? Double(t - nanos) / 1e9 : -Double(nanos - t) / 1e9
        return frame + Int64(((since - latency) * rate).rounded())
    }

    /// Unwrapped music as a pass and a time on the document's timeline inside the region. Music before pass 0 (a
    /// hit heard just before the loop began) is pass -1, at the region's end: a loop recorder wraps it, so it
    /// sounds that early before the next downbeat, as played.
    public func timeline(_ m: Double) -> (pass: Int, time: Double) {
        guard span > 0 else { return (0, start) }
        let pass = Int((m / span).rounded(.down))
        var inPass = m - Double(pass) * span
        if inPass < 0 { inPass = 0 }
        if inPass >= span { return (pass + 1, start) }
        return (pass, start + inPass)
    }
}

/// The monotonic clock that the playhead clock and pad arrivals are stamped on (CLOCK_MONOTONIC).
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point. No allocation: safe on the audio thread.
    @inline(__always)
    public static func nanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

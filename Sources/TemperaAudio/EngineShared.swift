import Synchronization

/// What the editor thread and the audio thread share: atomics and a single-producer single-consumer ring of
/// transport commands. It lives in raw memory (no class, no reference counting) so the audio thread reaches it
/// through a plain pointer.
struct EngineShared: ~Copyable {
    static let ringCapacity = 64

    /// The newest published snapshot's address (0: none yet). Written by the editor, read by the audio thread.
    let latest = Atomic<Int>(0)
    /// The oldest snapshot sequence number the audio thread may still read (its current snapshot, or an older one
    /// a sounding voice's sample belongs to). Snapshots older than this may be freed.
    let oldestInUse = Atomic<Int>(0)
    /// The playhead: bit pattern of seconds on the document timeline, at the end of the last rendered block.
    let positionBits = Atomic<UInt64>(0)
    /// The playhead as heard: bit pattern of seconds on the document timeline at the last rendered block's end
    /// less the output latency, through the section's clock in closed form (a ramp's or a tempo map's inverse);
    /// NaN when what is heard then lies before the current section's or the loop's first pass.
    let heardPositionBits = Atomic<UInt64>(0)
    /// The tempo the music plays at the playhead heard (bit pattern of the tempo scale; 0 before anything was
    /// rendered).
    let tempoBits = Atomic<UInt64>(0)
    let playing = Atomic<Bool>(false)
    /// The count-in is sounding (playback starts when it ends).
    let countingIn = Atomic<Bool>(false)
    /// While counting in: the beats of the count-in left, the one sounding included (4 3 2 1 for a bar of four).
    let countInLeft = Atomic<Int>(0)
    /// The song's playhead: the section (from 0), its pass, and the pass of the whole song (all 0 for the loop).
    let section = Atomic<Int>(0)
    let sectionPass = Atomic<Int>(0)
    let songPass = Atomic<Int>(0)
    /// Set by the audio thread when a pass limit (loop off, `--loops N`) was reached and every voice is silent.
    let finished = Atomic<Bool>(false)
    /// Output frames rendered since the output opened.
    let renderedFrames = Atomic<Int>(0)
    /// Counted by the output backend's thread.
    let underruns = Atomic<Int>(0)
    /// The server has started playing the output's stream (set by the backend; cleared at each connection).
    let streamStarted = Atomic<Bool>(false)
    /// Blocks the master bus silenced because the mix held NaN or an infinity.
    let silencedBlocks = Atomic<Int>(0)
    /// Whether the thread that renders got real-time scheduling: 0 not asked yet, 1 granted, 2 refused.
    let realTime = Atomic<Int>(0)
    /// Output latency in microseconds, as the server reports it.
    let latencyMicros = Atomic<Int>(0)
    /// The buffer the output asks of its server, in microseconds (0: none asked yet); PulseAudio's grows after an
    /// underrun.
    let bufferMicros = Atomic<Int>(0)
    /// Playback is aimed at moments of the clock (playing together): the output keeps its timing fresh.
    let aimed = Atomic<Bool>(false)
    /// Where the whole output sits, in thousandths from -1000 (left only) to 1000 (right only); 0: both sides.
    let outputPan = Atomic<Int>(0)
    /// Voices sounding after the last block.
    let activeVoices = Atomic<Int>(0)

    /// What each clip slot's voices are doing, after the last block: per slot (from 0), the voice with the most
    /// left to play, packed as its sample length (high 32 bits) and frames left (low 32 bits). 0: silent.
    let slotSound: UnsafeMutablePointer<Atomic<UInt64>>

    /// The playhead clock, a sequence lock written by the audio thread after each block reaches the output (never
    /// waiting) and read by the editor (retrying while a write is under way): when it was stamped, the music
    /// rendered by then, and the output latency then.
    let clockSeq = Atomic<Int>(0)
    let clockNanos = Atomic<UInt64>(0)
    let clockMusic = Atomic<UInt64>(0)
    let clockLatencyMicros = Atomic<Int>(0)
    let clockTempo = Atomic<UInt64>(0)
    let clockStart = Atomic<UInt64>(0)
    let clockSpan = Atomic<UInt64>(0)
    let clockPlayStart = Atomic<UInt64>(0)
    let clockPlaying = Atomic<Bool>(false)
    let clockFrame = Atomic<Int64>(0)
    let clockSong = Atomic<UInt64>(0)
    let clockSongPlayStart = Atomic<UInt64>(0)
    let clockSnapshot = Atomic<Int>(0)
    let clockSongShift = Atomic<Int64>(0)

    /// The Ableton Link instance the transport follows (its `CLink` address; 0: none). Set by the editor thread;
    /// the instance outlives every block that reads it.
    let linkHandle = Atomic<Int>(0)
    /// The last difference between the session's beat and the music, in microseconds of output.
    let linkErrorMicros = Atomic<Int>(0)

    /// MIDI clock in: frames per clock as its line last said (bit pattern of a Double; 0: none yet).
    let clockInFramesPerClock = Atomic<UInt64>(0)

    let head = Atomic<Int>(0)
    let tail = Atomic<Int>(0)
    let ring: UnsafeMutablePointer<TransportCommand>

    init() {
        ring = .allocate(capacity: Self.ringCapacity)
        ring.initialize(repeating: TransportCommand(.pause), count: Self.ringCapacity)
        slotSound = .allocate(capacity: Self.slotCount)
        for s in 0..<Self.slotCount { (slotSound + s).initialize(to: Atomic<UInt64>(0)) }
    }

    deinit {
        ring.deallocate()
        slotSound.deinitialize(count: Self.slotCount)
        slotSound.deallocate()
    }

    static let slotCount = 16

    /// Audio thread: stamps the playhead clock (see `PlayheadClock`).
    func stampClock(_ c: PlayheadClock) {
        let s = clockSeq.load(ordering: .relaxed)
        clockSeq.store(s + 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        clockNanos.store(c.nanos, ordering: .relaxed)
        clockMusic.store(c.music.bitPattern, ordering: .relaxed)
        clockLatencyMicros.store(Int((c.latency * 1_000_000).rounded()), ordering: .relaxed)
        clockTempo.store(c.tempo.bitPattern, ordering: .relaxed)
        clockStart.store(c.start.bitPattern, ordering: .relaxed)
        clockSpan.store(c.span.bitPattern, ordering: .relaxed)
        clockPlayStart.store(c.playStart.bitPattern, ordering: .relaxed)
        clockPlaying.store(c.playing, ordering: .relaxed)
        clockFrame.store(c.frame, ordering: .relaxed)
        clockSong.store(c.song.bitPattern, ordering: .relaxed)
        clockSongPlayStart.store(c.songPlayStart.bitPattern, ordering: .relaxed)
        clockSnapshot.store(c.snapshot, ordering: .relaxed)
        clockSongShift.store(Int64((c.songShift * 1_000_000_000).rounded()), ordering: .relaxed)
        clockSeq.store(s + 2, ordering: .releasing)
    }

    /// Editor thread: the last stamped clock, read whole (a write under way is waited out by retrying; the
    /// writer never waits).
    func readClock() -> PlayheadClock {
        while true {
            let s1 = clockSeq.load(ordering: .acquiring)
            if s1 & 1 != 0 { continue }
            let c = PlayheadClock(
                nanos: clockNanos.load(ordering: .relaxed),
                music: Double(bitPattern: clockMusic.load(ordering: .relaxed)),
                latency: Double(clockLatencyMicros.load(ordering: .relaxed)) / 1_000_000,
                tempo: Double(bitPattern: clockTempo.load(ordering: .relaxed)),
                start: Double(bitPattern: clockStart.load(ordering: .relaxed)),
                span: Double(bitPattern: clockSpan.load(ordering: .relaxed)),
                playStart: Double(bitPattern: clockPlayStart.load(ordering: .relaxed)),
                playing: clockPlaying.load(ordering: .relaxed),
                frame: clockFrame.load(ordering: .relaxed),
                song: Double(bitPattern: clockSong.load(ordering: .relaxed)),
                songPlayStart: Double(bitPattern: clockSongPlayStart.load(ordering: .relaxed)),
                snapshot: clockSnapshot.load(ordering: .relaxed),
                songShift: Double(clockSongShift.load(ordering: .relaxed)) / 1_000_000_000)
            atomicMemoryFence(ordering: .acquiring)
            if clockSeq.load(ordering: .relaxed) == s1 { return c }
        }
    }

    /// Editor thread: queues a command; false when the ring is full (the audio thread is not running).
    @discardableResult
    func send(_ command: TransportCommand) -> Bool {
        let h = head.load(ordering: .relaxed)
        let t = tail.load(ordering: .acquiring)
        if h - t >= Self.ringCapacity { return false }
        ring[h % Self.ringCapacity] = command
        head.store(h + 1, ordering: .releasing)
        return true
    }

    /// Audio thread: the next command, if any. Never blocks.
    func receive() -> TransportCommand? {
        let t = tail.load(ordering: .relaxed)
        let h = head.load(ordering: .acquiring)
        if t == h { return nil }
        let c = ring[t % Self.ringCapacity]
        tail.store(t + 1, ordering: .releasing)
        return c
    }
}

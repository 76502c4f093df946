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
    let playing = Atomic<Bool>(false)
    /// The count-in is sounding (playback starts when it ends).
    let countingIn = Atomic<Bool>(false)
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
    /// Output latency in microseconds, as the server reports it.
    let latencyMicros = Atomic<Int>(0)
    /// Voices sounding after the last block.
    let activeVoices = Atomic<Int>(0)

    let head = Atomic<Int>(0)
    let tail = Atomic<Int>(0)
    let ring: UnsafeMutablePointer<TransportCommand>

    init() {
        ring = .allocate(capacity: Self.ringCapacity)
        ring.initialize(repeating: TransportCommand(.pause), count: Self.ringCapacity)
    }

    deinit { ring.deallocate() }

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

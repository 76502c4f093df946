import TemperaCore

/// One event the sequencer found due in a block: what happens, on which frame. The sampler/mixer and the MIDI
/// output both play from these, so what is heard and what is sent cannot disagree.
struct DueEvent {
    enum Kind: UInt8 {
        /// A marker's onset (it may be silent inside tempera: a MIDI slot without a file).
        case onset
        /// A `-`: the track's voices fade out.
        case cut
        /// A metronome click (or a count-in's); `accent` says which of its three sounds.
        case click
        /// A pad played (a key, a click, a MIDI note-on): the slot from its first frame, through no track.
        case pad
    }

    var kind: Kind
    /// Frames from the start of the block being rendered.
    var offset: Int
    /// The output frame (`RenderState.frame` counting).
    var frame: Int64
    /// The track (`RenderState.clickTrack`/`padTrack` for those).
    var track: Int32
    /// The slot sounding, 1...16 (a `?` already drawn); 0 for a cut or a click.
    var slot: Int32
    /// The marker's amplitude, or a pad's velocity (0...1).
    var amp: Double
    /// The velocity layer to play (an index into the slot's layers).
    var layer: Int32 = 0
    var accent = Meter.Accent.beat
    /// A gate slot's end: the frame it releases at (`Int64.max`: a one-shot), and where in the music the gate ends
    /// (kept with the voice, so an edit of the timing can move the release).
    var releaseAt = Int64.max
    var gatePass = 0
    var gateTime = 0.0
    var gateSection = 0
    var gateSongPass = 0
    /// Where the marker's gate would end (the next marker of its track that is not `+`), as a frame: a MIDI note
    /// of a slot whose sound's length is unknown ends there.
    var gateEndFrame = Int64.max
    /// Seconds into the sound where the voice starts (a slice of a file, `Marker.from`).
    var from = 0.0
    /// Where the slice ends in the sound (`Marker.to`; 0: the marker is no slice).
    var to = 0.0
    /// The snapshot the event was found in (a voice keeps it alive).
    var seq = 0

    static let none = DueEvent(kind: .cut, offset: 0, frame: 0, track: 0, slot: 0, amp: 0)
}

/// A fixed-capacity list of due events, allocated once: appending never allocates (a full list says so, and the
/// sequencer stops there until the list has been played).
struct DueEvents {
    let items: UnsafeMutablePointer<DueEvent>
    let capacity: Int
    private(set) var count = 0

    static func make(capacity: Int) -> DueEvents {
        let p = UnsafeMutablePointer<DueEvent>.allocate(capacity: capacity)
        p.initialize(repeating: .none, count: capacity)
        return DueEvents(items: p, capacity: capacity)
    }

    func deallocate() { items.deallocate() }

    var isFull: Bool { count >= capacity }

    @inline(__always)
    subscript(i: Int) -> DueEvent { items[i] }

    mutating func append(_ e: DueEvent) {
        guard count < capacity else { return }
        items[count] = e
        count += 1
    }

    mutating func clear() { count = 0 }

    /// Moves every event `frames` earlier (never before the block's start): what was listed for a later block.
    mutating func shift(by frames: Int) {
        for i in 0..<count { items[i].offset = max(0, items[i].offset - frames) }
    }

    /// Drops the first `n` (the ones played), keeping the rest in order.
    mutating func removeFirst(_ n: Int) {
        guard n > 0 else { return }
        let k = min(n, count)
        for i in k..<count { items[i - k] = items[i] }
        count -= k
    }
}

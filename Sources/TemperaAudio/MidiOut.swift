/// One MIDI message of a block: 1 to 3 bytes on a frame of it.
struct MidiMessage {
    /// Frames from the start of the block.
    var offset: Int
    var size: UInt8
    var b0: UInt8
    var b1: UInt8
    var b2: UInt8

    static let none = MidiMessage(offset: 0, size: 0, b0: 0, b1: 0, b2: 0)
}

/// The MIDI output, the sequencer's second consumer: from the same due events the sampler plays, the note-ons of
/// MIDI slots (`slot N midi=CH[:NOTE]`) on the frame their sound starts, velocity max(1, round(amp·127)), and
/// their note-offs where the sound ends (a one-shot after its sound's length, or at a `-` of its
/// track; a gate at its gate's end; a note struck again first ends the one before). What a block sends is
/// collected in `messages` (sorted by frame at the block's end) for the output to write, a JACK MIDI port, or a
/// test to read. Fixed-capacity lists, allocated once: nothing here allocates, locks or waits.
struct MidiOut {
    struct PendingOff {
        var frame: Int64
        var channel: UInt8
        var note: UInt8
        var track: Int32
    }

    static let messageCapacity = 1024
    static let pendingCapacity = 256
    /// How long the note of a MIDI slot lasts when nothing says (a pad of a slot with no sound): 100 ms.
    static let defaultNoteSeconds = 0.1

    let messages: UnsafeMutablePointer<MidiMessage>
    private(set) var count = 0
    let pending: UnsafeMutablePointer<PendingOff>
    private(set) var pendingCount = 0
    /// The block being rendered: its first output frame and its length.
    private(set) var blockStart: Int64 = 0
    private(set) var blockCount = 0
    /// Every sounding note is to end at the next block's start (the transport stopped).
    var endAll = false
    /// Messages that did not fit in a block (counted, never blocking).
    private(set) var dropped = 0

    static func make() -> MidiOut {
        let m = UnsafeMutablePointer<MidiMessage>.allocate(capacity: messageCapacity)
        m.initialize(repeating: .none, count: messageCapacity)
        let p = UnsafeMutablePointer<PendingOff>.allocate(capacity: pendingCapacity)
        p.initialize(repeating: PendingOff(frame: 0, channel: 0, note: 0, track: 0), count: pendingCapacity)
        return MidiOut(messages: m, pending: p)
    }

    func deallocate() {
        messages.deallocate()
        pending.deallocate()
    }

    /// Starts a block of `count` frames from output frame `frame`: the last block's messages are gone.
    mutating func beginBlock(frame: Int64, count: Int) {
        self.count = 0
        blockStart = frame
        blockCount = count
        if endAll {
            endAll = false
            for i in 0..<pendingCount {
                emit(0, 0x80 | pending[i].channel, pending[i].note, 64)
            }
            pendingCount = 0
        }
    }

    /// Appends a message `offset` frames into the block (1 to 3 bytes).
    @inline(__always)
    mutating func emit(_ offset: Int, _ b0: UInt8, _ b1: UInt8 = 0, _ b2: UInt8 = 0, size: UInt8 = 3) {
        guard count < Self.messageCapacity else { dropped += 1; return }
        messages[count] = MidiMessage(offset: offset, size: size, b0: b0, b1: b1, b2: b2)
        count += 1
    }

    /// Sends what the listed events mean in MIDI: note-ons of MIDI slots, their note-offs, cuts.
    mutating func play(_ due: DueEvents, snapshot: UnsafeMutablePointer<MixSnapshot>?, rate: Double) {
        guard let snapshot else { return }
        let sn = snapshot.pointee
        for i in 0..<due.count {
            let e = due[i]
            switch e.kind {
            case .onset, .pad:
                guard (1...16).contains(e.slot) else { continue }
                let slot = sn.slots[Int(e.slot) - 1]
                guard slot.midiChannel >= 0 else { continue }
                endNotes(upTo: e.frame)
                let channel = UInt8(slot.midiChannel), note = slot.midiNote
                // The same key struck again on its channel ends the note before, on this frame.
                var k = 0
                while k < pendingCount {
                    if pending[k].channel == channel && pending[k].note == note {
                        emit(e.offset, 0x80 | channel, note, 64)
                        removePending(k)
                    } else {
                        k += 1
                    }
                }
                let velocity = UInt8(max(1, min(127, (min(max(e.amp, 0), 1) * 127).rounded())))
                emit(e.offset, 0x90 | channel, note, velocity)
                let off = max(e.frame + 1, noteEnd(e, slot: slot, layers: sn.layers, rate: rate))
                if pendingCount < Self.pendingCapacity {
                    pending[pendingCount] = PendingOff(frame: off, channel: channel, note: note, track: e.track)
                    pendingCount += 1
                } else {
                    dropped += 1
                }
            case .cut:
                // A `-` ends its track's notes there.
                endNotes(upTo: e.frame)
                var k = 0
                while k < pendingCount {
                    if pending[k].track == e.track {
                        emit(e.offset, 0x80 | pending[k].channel, pending[k].note, 64)
                        removePending(k)
                    } else {
                        k += 1
                    }
                }
            case .click:
                continue
            }
        }
    }

    /// Where an onset's note ends: a gate's release; a one-shot's sound's end (its layer's length, shortened by a
    /// decay); for a slot with no sound, where its gate would end (a pad's after `defaultNoteSeconds`).
    private func noteEnd(_ e: DueEvent, slot: MixSlot, layers: UnsafeMutablePointer<MixLayer>, rate: Double) -> Int64 {
        if e.kind == .onset && slot.gate { return e.releaseAt }
        if slot.layerCount > 0 {
            let layer = layers[slot.firstLayer + min(max(Int(e.layer), 0), slot.layerCount - 1)]
            if layer.data != nil && layer.frames > 0 {
                var frames = layer.frames - (e.from > 0 ? min(layer.frames, Int((e.from * rate).rounded())) : 0)
                if slot.decayFrames > 0 { frames = min(frames, slot.attackFrames + slot.decayFrames) }
                return e.frame + Int64(frames)
            }
        }
        if e.kind == .onset && e.gateEndFrame != Int64.max { return e.gateEndFrame }
        return e.frame + Int64(Self.defaultNoteSeconds * rate)
    }

    /// Sends the note-offs due before `frame` (and at it), in the order of their frames.
    private mutating func endNotes(upTo frame: Int64) {
        while true {
            var first = -1
            for k in 0..<pendingCount where pending[k].frame <= frame && (first < 0 || pending[k].frame < pending[first].frame) {
                first = k
            }
            guard first >= 0 else { return }
            let p = pending[first]
            emit(Int(max(0, p.frame - blockStart)), 0x80 | p.channel, p.note, 64)
            removePending(first)
        }
    }

    private mutating func removePending(_ k: Int) {
        pending[k] = pending[pendingCount - 1]
        pendingCount -= 1
    }

    /// Ends the block: the note-offs falling in it are sent, and the messages are put in the order of their
    /// frames (messages of one frame keep the order they were made in).
    mutating func endBlock() {
        endNotes(upTo: blockStart + Int64(blockCount) - 1)
        // Insertion sort, stable: a block holds few messages, mostly in order already.
        if count > 1 {
            for i in 1..<count {
                let m = messages[i]
                var j = i - 1
                while j >= 0 && messages[j].offset > m.offset {
                    messages[j + 1] = messages[j]
                    j -= 1
                }
                messages[j + 1] = m
            }
        }
    }
}

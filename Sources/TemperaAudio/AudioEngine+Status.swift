import Foundation
import TemperaCore

/// What the engine says of itself, read on the editor thread from what the audio thread last published: where the
/// playhead is, the tempo heard, the count-in, the followed Link session, the output's state and counters.
extension AudioEngine {
    /// Where the song's playhead is: the section (from 0), its pass and the pass of the whole song, as of the
    /// last rendered block; nil when the document plays its loop.
    public var songPosition: (section: Int, pass: Int, songPass: Int)? {
        guard let doc = document, doc.song.plays else { return nil }
        return (shared.pointee.section.load(ordering: .relaxed), shared.pointee.sectionPass.load(ordering: .relaxed),
                shared.pointee.songPass.load(ordering: .relaxed))
    }

    /// True while a count-in sounds (the document's `countin` bars of click, with the click on); playback
    /// starts when it ends.
    public var isCountingIn: Bool { shared.pointee.countingIn.load(ordering: .relaxed) }

    /// While a count-in sounds, its beats left, the one sounding included (4, 3, 2, 1 for a bar of four; 0 while a
    /// start aimed at a moment waits for it); nil when none runs. As of the last rendered block.
    public var countInBeatsLeft: Int? {
        shared.pointee.countingIn.load(ordering: .relaxed) ? shared.pointee.countInLeft.load(ordering: .relaxed) : nil
    }

    /// True once a pass limit was reached and every voice has rung out.
    public var isFinished: Bool {
        shared.pointee.finished.load(ordering: .acquiring) && shared.pointee.activeVoices.load(ordering: .relaxed) == 0
    }

    /// The tempo the music plays at where the last block rendered ended (a ramp's or the tempo map's there, a
    /// section's own, the session's under Link): the tempo heard, as the transport shows it. Nil before the first
    /// block was rendered with a document.
    public var heardTempo: Double? {
        maintain()
        let x = Double(bitPattern: shared.pointee.tempoBits.load(ordering: .relaxed))
        return x > 0 ? x : nil
    }

    /// The playhead, in seconds at tempo x1 on the document's timeline: what is heard now, the output latency
    /// taken into account. The audio thread reads it through the section's clock (a ramp's, a tempo map's
    /// closed-form inverse); just after playing started, while what is heard lies before the first pass, and
    /// under Link (whose session sets the tempo), it is the rendered playhead run back at the tempo heard.
    public var position: Double {
        maintain()
        let rendered = Double(bitPattern: shared.pointee.positionBits.load(ordering: .relaxed))
        guard shared.pointee.playing.load(ordering: .relaxed), let doc = document else { return rendered }
        // Following Link, every section plays at the session's tempo.
        let following = linkTempo
        let heard = Double(bitPattern: shared.pointee.heardPositionBits.load(ordering: .relaxed))
        if following == nil, !heard.isNaN { return heard }
        let latency = Double(shared.pointee.latencyMicros.load(ordering: .relaxed)) / 1_000_000
        let t = doc.transport
        let tempo = following.map { Transport.tempoInRange(forBPM: $0, beat: t.beat) } ?? heardTempo ?? t.tempo
        if doc.song.plays {
            // What is heard lags the section just rendered; near a section's start it is not worth crossing back.
            let j = min(shared.pointee.section.load(ordering: .relaxed), doc.song.sections.count - 1)
            let s = doc.song.sections[j]
            return max(s.start, rendered - latency * tempo)
        }
        let (a, b) = Schedule.region(of: t)
        var p = rendered - latency * tempo
        if p < a, b > a { p = t.loopOn ? b - (a - p).truncatingRemainder(dividingBy: b - a) : a }
        return p
    }

    /// Peers in the followed session, not counting this one; nil when none is followed.
    public var linkPeers: Int? {
        guard let session = linkSession, shared.pointee.linkHandle.load(ordering: .relaxed) != 0 else { return nil }
        return session.peers
    }

    /// The followed session's tempo as last published (BPM), nil when none is followed.
    public var linkTempo: Double? { shared.pointee.linkHandle.load(ordering: .relaxed) != 0 ? linkBPM : nil }

    /// The last difference between the followed session's beat and the music, in seconds of output (positive:
    /// the music was behind and was moved on).
    public var linkError: Double { Double(shared.pointee.linkErrorMicros.load(ordering: .relaxed)) / 1_000_000 }

    /// The controllers and note-ons JACK's `midi_in` received since the last call (none for other outputs),
    /// oldest first, for their bindings: a controller's value / 127, a note's velocity / 127.
    public func takeMidiControls() -> [MidiControl] {
        guard let jack = output as? JackOutput else { return [] }
        return jack.takeControls().map { status, a, b in
            let channel = Int(status & 0x0F) + 1
            let source: MidiBindings.Source = status & 0xF0 == 0xB0 ? .cc(channel: channel, number: Int(a))
                : .note(channel: channel, number: Int(a))
            return MidiControl(source: source, value: Double(b) / 127)
        }
    }

    /// The playback latency the output reports, in frames (JACK's for `out_1`; 0 where none is reported so).
    public var outputLatencyFrames: Int { (output as? JackOutput)?.playbackLatencyFrames ?? 0 }

    /// The note-ons MIDI in played since the last call (JACK's `midi_in`; none for other outputs), oldest first: each
    /// already sounded on its arrival frame, and its clock places it at the music heard then, its arrival frame
    /// less the playback latency JACK reports (`heard`, `timeline`, `place` as for a pad).
    public func takeMidiHits() -> [PadHit] {
        guard let jack = output as? JackOutput else { return [] }
        return jack.takeHits().map { h in
            let played = live.last(where: { $0.seq == h.clock.snapshot }) ?? live.last
            let songPasses = passLimit > 0 ? passLimit : (played?.pointer.pointee.looping == true ? Int.max : 1)
            var hit = PadHit(slot: h.slot, velocity: h.velocity, arrival: h.clock.nanos, clock: h.clock,
                             song: played?.songTiming, songPasses: songPasses, loop: played?.loopTiming)
            hit.midiNote = Int(h.note)
            hit.arrivalFrame = h.arrivalFrame
            return hit
        }
    }

    /// MIDI in's note-ons that sounded but could not be kept for `takeMidiHits` (they came faster than they were
    /// read), since the output connected: a take that lost some says how many.
    public var droppedMidiHits: Int { (output as? JackOutput)?.droppedHits ?? 0 }

    /// The name the JACK server gave tempera's client (nil: not JACK, or not connected).
    public var jackClientName: String? { (output as? JackOutput)?.clientName ?? firstJack?.clientName }

    /// The playhead clock as last stamped by the output: what is heard when (see `PlayheadClock`).
    public var playheadClock: PlayheadClock { shared.pointee.readClock() }

    /// What slot `slot` (1...16) sounds after the last rendered block: of its voices (pads and the schedule's
    /// alike), the one with the most left to play.
    public func slotSound(_ slot: Int) -> SlotSound {
        guard (1...EngineShared.slotCount).contains(slot) else { return SlotSound(length: 0, remaining: 0) }
        let packed = shared.pointee.slotSound[slot - 1].load(ordering: .relaxed)
        return SlotSound(length: Int(packed >> 32), remaining: Int(packed & 0xFFFF_FFFF))
    }

    /// The output's state; reading it also drives the reconnection to a missing server.
    public var status: AudioStatus {
        maintain()
        guard started, let output else { return started ? .connecting : .off }
        switch output.state {
        case .connecting: return .connecting
        case .running(let ms): return .running(latencyMs: ms)
        case .failed(let why): return .unavailable(why)
        }
    }

    /// Whether the thread that renders runs at real-time priority: nil until the output has asked (and for outputs
    /// that never ask: a file, the null output), then whether the system granted it.
    public var realTime: Bool? {
        switch shared.pointee.realTime.load(ordering: .relaxed) {
        case 1: return true
        case 2: return false
        default: return nil
        }
    }

    /// The buffer the output asks of its server, in seconds (nil before it asked): PulseAudio's starts at the
    /// output latency asked for and doubles after each underrun, up to 160 ms.
    public var outputBuffer: Double? {
        let micros = shared.pointee.bufferMicros.load(ordering: .relaxed)
        return micros > 0 ? Double(micros) / 1e6 : nil
    }

    /// Underruns counted since `start()`.
    public var underruns: Int { shared.pointee.underruns.load(ordering: .relaxed) }

    /// Blocks the master bus silenced since the engine was made because the mix was not a number.
    public var silencedBlocks: Int { shared.pointee.silencedBlocks.load(ordering: .relaxed) }

    /// Voices sounding after the last rendered block.
    public var activeVoices: Int { shared.pointee.activeVoices.load(ordering: .relaxed) }

    /// Output frames rendered since the engine was made.
    public var renderedFrames: Int { shared.pointee.renderedFrames.load(ordering: .relaxed) }

    /// Snapshots published and not yet freed (the audio thread may still read them).
    var liveSnapshots: Int { live.count }
}

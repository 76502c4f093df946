/// A document as a Standard MIDI File (`tempera export`): type 1, 960 ticks per beat, a first track with the
/// tempo and time signature, then one track per tempera track, named after it.
///
/// An onset at playback time T (the `time` of `tempera events`) is written at `tick = round(T·960·BPM/60)`
/// with BPM = 60·tempo/beat (the document's beat and meter give the tempo and time signature). Where the tempo
/// bends (a tempo map, a section's ramp) the tempo track holds a tempo event every 1/16 beat, each
/// step's tempo the one that takes exactly tempera's play time over it, and every note sits on the tick the
/// file's own tempo map puts nearest its exact play time; a section with its own meter gets a time signature. Its note is the slot's `note`, else the General MIDI drum note of the slot's name
/// on channel 10 (`GeneralMIDI`); velocity = max(1, round(amp·127)). Its note off is where the sound ends: a
/// one-shot after the sample's length (or earlier at a `-` of its track), a gate at the next marker of its
/// track that is not `+`. A note struck again on its channel before its end is ended there.
public enum MidiExport {
    public static let ticksPerBeat = 960
    /// Tempo events per beat where the tempo bends.
    public static let stepsPerBeat = 16

    public struct Options: Sendable {
        /// Passes of the loop region.
        public var loops: Int
        /// How long each slot's sound lasts, in seconds (slot 1 first): a one-shot's note off comes after it.
        /// nil: unknown (the file could not be read), and the note ends where a gate would.
        public var soundSeconds: [Double?]
        /// For a slot with velocity layers, how long each layer sounds (slot 1 first, its layers in order; empty
        /// for a slot without layers): a note off comes after the layer the note's velocity plays.
        public var layerSeconds: [[Double?]]

        public init(loops: Int = 1, soundSeconds: [Double?] = [], layerSeconds: [[Double?]] = []) {
            self.loops = loops
            self.soundSeconds = soundSeconds
            self.layerSeconds = layerSeconds
        }

        /// How long clip `clip` (from 1) sounds when struck at `amp`: the layer that plays then, else the slot's
        /// one sound. Nil: not known.
        func seconds(clip: Int, slot: ClipSlot, amp: Double) -> Double? {
            if clip - 1 < layerSeconds.count, !layerSeconds[clip - 1].isEmpty {
                guard let k = slot.layer(for: amp), k < layerSeconds[clip - 1].count else { return nil }
                return layerSeconds[clip - 1][k]
            }
            return clip - 1 < soundSeconds.count ? soundSeconds[clip - 1] : nil
        }
    }

    /// What a slot plays as MIDI.
    public struct Voice: Equatable, Sendable {
        /// 0...15; 9 is General MIDI's drum channel 10.
        public var channel: UInt8
        public var note: UInt8
        /// A program change (and bank select when the bank is not 0) the channel needs first; nil: none.
        public var program: Int?
        public var bank: Int
    }

    /// The MIDI voice of each slot (nil for an empty slot), and a line for each slot whose name names no drum.
    /// Drum sounds (and SoundFont bank 128) go to channel 10. Pitched slots share channel 1; each SoundFont
    /// preset gets a channel of its own (2, 3, ... skipping 10) with its program change.
    public static func voices(of slots: [ClipSlot]) -> (voices: [Voice?], warnings: [String]) {
        var warnings: [String] = []
        var channels: [[Int]: UInt8] = [:]
        let free: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15]
        let voices: [Voice?] = slots.enumerated().map { i, slot in
            if slot.isEmpty { return nil }
            if slot.soundFont != nil {
                let note = UInt8(clamping: slot.note ?? 60)
                if slot.bank == 128 { return Voice(channel: GeneralMIDI.drumChannel, note: note, program: nil, bank: 0) }
                let preset = [slot.bank, slot.program]
                if channels[preset] == nil {
                    guard channels.count < free.count else {
                        warnings.append("slot \(i + 1): more SoundFont presets than MIDI channels; it shares channel 16")
                        return Voice(channel: 15, note: note, program: slot.program, bank: slot.bank)
                    }
                    channels[preset] = free[channels.count]
                }
                return Voice(channel: channels[preset]!, note: note, program: slot.program, bank: slot.bank)
            }
            if let note = slot.note { return Voice(channel: 0, note: UInt8(clamping: note), program: nil, bank: 0) }
            let name = slot.name.isEmpty ? (slot.file ?? "") : slot.name
            if let drum = GeneralMIDI.drumNote(forName: name) ?? slot.file.flatMap(GeneralMIDI.drumNote(forName:)) {
                return Voice(channel: GeneralMIDI.drumChannel, note: UInt8(drum), program: nil, bank: 0)
            }
            warnings.append("slot \(i + 1) (\(name)): no General MIDI drum has that name; written as note 60 on channel 1")
            return Voice(channel: 0, note: 60, program: nil, bank: 0)
        }
        return (voices, warnings)
    }

    /// One stretch of playback at one tempo: `repeats` passes of a region, starting at song time `offset` of
    /// song pass `songPass`, `beatsBefore` beats into the file.
    struct Play {
        var songPass: Int
        var total: Double
        var offset: Double
        var start: Double
        var span: Double
        var tempo: Double
        /// How a pass and a time become play time (a ramp's or a tempo map's; else `tempo` throughout).
        var clock: SectionClock
        var pieces: [TempoPiece]
        /// The time signature.
        var meter: Meter
        /// The tracks with their own cycle or ratio over the region.
        var cycles: [CycleTrack]
        /// The tracks as the play plays them (a section's choice of tracks and groups, `Document.playing`) and
        /// that choice.
        var tracks: [Track]
        var choice: Song.Choice? = nil
        /// Musical position the play lasts: R·span for a section, endless for the loop.
        var limit: Double
        var repeats: Int
        /// The pass a `?` draws with in pass 0 of this play.
        var drawBase: Int
        /// The file's tick where the play starts (a Double: a region need not be whole beats).
        var startTicks: Double
        /// Song time where the play starts.
        var startTime: Double { Double(songPass) * total + offset }

        /// Playback time of `time` (seconds after the region's start at x1) in pass k, as `tempera events`
        /// computes it.
        func time(pass k: Int, _ time: Double) -> Double {
            if clock.isConstant {
                return SongTiming.time(songPass: songPass, total: total, offset: offset, pass: k, time: time, span: span,
                                       tempo: tempo)
            }
            return pieces.withUnsafeBufferPointer {
                SongTiming.time(songPass: songPass, total: total, offset: offset, pass: k, time: time, clock: clock,
                                pieces: $0.baseAddress)
            }
        }

        /// Playback time at musical position x (k·span + t) from the play's start.
        func time(music x: Double) -> Double {
            let k = span > 0 ? Int((x / span).rounded(.down)) : 0
            return time(pass: k, x - Double(k) * span)
        }
    }

    /// The plays of the loop (one, `loops` passes) or of the song (each section of each song pass).
    static func plays(_ doc: Document, song: Bool, loops: Int) -> [Play] {
        let beat = doc.transport.beat
        // Mute and solo are mixing settings, not the piece: every track is written, a muted one with its own
        // cycle or ratio as much as any other, so each counts as audible here.
        let gains = [Double](repeating: 1, count: doc.tracks.count)
        guard song, !doc.song.sections.isEmpty else {
            let (start, end) = Schedule.region(of: doc.transport)
            let (clock, pieces) = Schedule.clock(of: doc.transport, start: start, end: end)
            let cycles = CycleTrack.of(doc.tracks, gains: gains, start: start, end: end)
            return [Play(songPass: 0, total: 0, offset: 0, start: start, span: end - start, tempo: clock.tempo, clock: clock,
                         pieces: pieces, meter: doc.transport.signature, cycles: cycles, tracks: doc.tracks, limit: .infinity,
                         repeats: max(loops, 0), drawBase: 0, startTicks: 0)]
        }
        let timing = SongTiming(song: doc.song, tempo: doc.transport.tempo, map: doc.transport.tempoMap)
        var cyclesOf: [SongSchedule.Region: [CycleTrack]] = [:]
        // Beats do not depend on tempo: a section of R passes over B - A seconds is R·(B - A)/beat beats.
        var plays: [Play] = []
        var beats = 0.0
        for m in 0..<max(loops, 0) {
            for (j, s) in timing.sections.enumerated() {
                let section = doc.song.sections[j]
                let played = doc.playing(section)
                let key = SongSchedule.Region(start: s.start, end: s.start + s.span, choice: section.choice)
                if cyclesOf[key] == nil {
                    cyclesOf[key] = CycleTrack.of(played.tracks, gains: gains, start: s.start, end: s.start + s.span)
                }
                plays.append(Play(songPass: m, total: timing.total, offset: s.offset, start: s.start, span: s.span,
                                  tempo: s.tempo, clock: s.clock, pieces: s.clock.isConstant ? [] : timing.pieces,
                                  meter: section.meter ?? doc.transport.signature, cycles: cyclesOf[key]!,
                                  tracks: played.tracks, choice: section.choice,
                                  limit: Double(s.repeats) * s.span,
                                  repeats: s.repeats, drawBase: timing.drawPass(songPass: m, section: j, pass: 0),
                                  startTicks: beats * Double(ticksPerBeat)))
                beats += Double(s.repeats) * s.span / beat
            }
        }
        return plays
    }

    /// The file, and one line for each thing it could not say exactly. With `song`, the document's song
    /// (every section of `loops` passes of it, a tempo event where a section's tempo differs); else `loops`
    /// passes of the loop region.
    public static func file(_ document: Document, options: Options = Options(), song: Bool = false) -> (file: MidiFile, warnings: [String]) {
        let doc = document.expandingInstances()
        let beat = doc.transport.beat
        let (voices, slotWarnings) = self.voices(of: doc.slots)
        var warnings = slotWarnings
        let plays = self.plays(doc, song: song, loops: options.loops)
        let bpms = plays.map { Transport.bpm(tempo: $0.tempo, beat: beat) }
        let pool = Schedule.randomPool(of: doc.slots)

        /// The tick of song time T: within a play, its start tick plus T's distance from the play's start at
        /// the play's BPM; before the first play's start that is `round(T·960·BPM/60)` exactly.
        // Where the tempo bends, the file's tempo map: a tempo event every 1/16 beat of each bending play.
        let bends = plays.contains { !$0.clock.isConstant }
        var tempos: [(tick: Int, us: Int)] = []
        for (p, play) in plays.enumerated() {
            if play.clock.isConstant {
                let us = Int((60_000_000 / bpms[p]).rounded())
                if tempos.last?.us != us { tempos.append((Int(play.startTicks.rounded()), us)) }
                continue
            }
            let length = Double(play.repeats) * play.span, step = beat / Double(stepsPerBeat)
            var i = 0
            while Double(i) * step < length {
                let x0 = Double(i) * step, x1 = min(Double(i + 1) * step, length)
                let seconds = play.time(music: x1) - play.time(music: x0)
                let us = Int((seconds / (x1 - x0) * beat * 1_000_000).rounded())
                let at = Int((play.startTicks + x0 / beat * Double(ticksPerBeat)).rounded())
                if tempos.last?.us != us {
                    if tempos.last?.tick == at { tempos.removeLast() }
                    tempos.append((at, max(1, min(us, 0xFF_FFFF))))
                }
                i += 1
            }
        }
        // The file's time at each tempo event.
        var fileTimes: [Double] = []
        for (i, e) in tempos.enumerated() {
            fileTimes.append(i == 0 ? Double(e.tick) / Double(ticksPerBeat) * Double(e.us) / 1e6
                : fileTimes[i - 1] + Double(e.tick - tempos[i - 1].tick) / Double(ticksPerBeat) * Double(tempos[i - 1].us) / 1e6)
        }

        func tick(_ T: Double, from hint: Int) -> Int {
            if bends, !tempos.isEmpty {
                // The tick the file's own tempo map puts at T.
                var lo = 0, hi = tempos.count - 1
                while lo < hi {
                    let mid = (lo + hi + 1) / 2
                    if fileTimes[mid] <= T { lo = mid } else { hi = mid - 1 }
                }
                return Int((Double(tempos[lo].tick) + (T - fileTimes[lo]) * 1e6 / Double(tempos[lo].us) * Double(ticksPerBeat))
                    .rounded())
            }
            var p = min(hint, plays.count - 1)
            while p + 1 < plays.count, plays[p + 1].startTime <= T { p += 1 }
            let ticks = plays[p].startTicks + (T - plays[p].startTime) * Double(ticksPerBeat) * bpms[p] / 60
            return Int(ticks.rounded())
        }

        var conductor: [MidiEvent] = [.trackName("tempo"), .timeSignature(meter: doc.transport.signature)]
        var tempoAt = 0, meter = doc.transport.signature
        for play in plays {
            let at = Int(play.startTicks.rounded())
            // Tempo events up to the play's start, then its time signature when its meter differs.
            while tempoAt < tempos.count && tempos[tempoAt].tick <= at {
                conductor.append(.tempo(tick: tempos[tempoAt].tick, microsecondsPerQuarter: tempos[tempoAt].us))
                tempoAt += 1
            }
            if play.meter != meter {
                conductor.append(.timeSignature(tick: at, meter: play.meter))
                meter = play.meter
            }
        }
        for e in tempos[tempoAt...] { conductor.append(.tempo(tick: e.tick, microsecondsPerQuarter: e.us)) }
        if plays.isEmpty { conductor.append(.tempo(tick: 0, microsecondsPerQuarter: Int((1_000_000 * beat / doc.transport.tempo).rounded()))) }
        var lastTick = 0
        var unknownLength = Set<Int>()
        var regionEvents: [SongSchedule.Region: [[Schedule.Event]]] = [:]

        var tracks: [[MidiEvent]] = []
        for (ti, track) in doc.tracks.enumerated() {
            // Notes as (on, off, channel, note, velocity); offs settled once the whole track is read.
            var notes: [(on: Int, off: Int, channel: UInt8, note: UInt8, velocity: UInt8)] = []
            var programs: [UInt8: (program: Int, bank: Int)] = [:]
            for (p, play) in plays.enumerated() {
                let key = SongSchedule.Region(start: play.start, end: play.start + play.span, choice: play.choice)
                if regionEvents[key] == nil {
                    regionEvents[key] = play.tracks.indices.map {
                        Schedule.events(of: play.tracks[$0], index: $0, start: play.start, end: play.start + play.span)
                    }
                }
                let regionOnly = regionEvents[key]![ti]
                let cycle = play.cycles.first { $0.track == ti }
                for k in 0..<play.repeats {
                    let events = cycle?.events(pass: k, span: play.span, limit: play.limit) ?? regionOnly
                    for e in events {
                        let T = play.time(pass: k, e.time)
                        let t = tick(T, from: p)
                        switch e.kind {
                        case .cut:
                            // A `-` stops whatever the track is sounding.
                            for n in notes.indices where notes[n].off > t { notes[n].off = max(t, notes[n].on + 1) }
                        case .onset:
                            guard Schedule.sounds(probability: e.probability, seed: doc.seed, key: e.randomKey,
                                                  pass: play.drawBase + k) else { continue }
                            let clip = e.clip != 0 ? e.clip
                                : Schedule.randomClip(seed: doc.seed, pool: pool, key: e.randomKey, pass: play.drawBase + k)
                            guard (1...voices.count).contains(clip), let voice = voices[clip - 1] else { continue }
                            let slot = doc.slots[clip - 1]
                            var off: Int
                            if slot.mode == .gate {
                                off = tick(play.time(pass: k, e.gateEnd), from: p)
                            } else if let length = options.seconds(clip: clip, slot: slot, amp: e.amp) {
                                off = tick(T + length, from: p)
                            } else {
                                unknownLength.insert(clip)
                                off = tick(play.time(pass: k, e.gateEnd), from: p)
                            }
                            off = max(off, t + 1)
                            // The same key struck again on its channel ends the note before.
                            for n in notes.indices where notes[n].channel == voice.channel && notes[n].note == voice.note
                                && notes[n].off > t {
                                notes[n].off = max(t, notes[n].on + 1)
                            }
                            let velocity = UInt8(max(1, min(127, Int((e.amp * 127).rounded()))))
                            notes.append((t, off, voice.channel, voice.note, velocity))
                            if let program = voice.program { programs[voice.channel] = (program, voice.bank) }
                        }
                    }
                }
            }
            var out: [MidiEvent] = [.trackName(track.name)]
            for (channel, p) in programs.sorted(by: { $0.key < $1.key }) {
                if p.bank != 0 {
                    // Bank select as GS (FluidSynth's default) reads it: controller 0 is the bank below 128;
                    // above, controller 0 holds the high seven bits and controller 32 the low seven.
                    let (msb, lsb) = p.bank < 128 ? (p.bank, 0) : (p.bank >> 7 & 0x7F, p.bank & 0x7F)
                    out.append(MidiEvent(tick: 0, .channel(status: 0xB0 | channel, data: [0, UInt8(msb)])))
                    out.append(MidiEvent(tick: 0, .channel(status: 0xB0 | channel, data: [32, UInt8(lsb)])))
                }
                out.append(MidiEvent(tick: 0, .programChange(channel: channel, program: UInt8(clamping: p.program))))
            }
            // At one tick, note offs before note ons, so a note struck again is not cut by its own end.
            var timed: [(tick: Int, rank: Int, order: Int, event: MidiEvent)] = []
            for (i, n) in notes.enumerated() {
                timed.append((n.on, 1, i, MidiEvent(tick: n.on, .noteOn(channel: n.channel, note: n.note, velocity: n.velocity))))
                timed.append((n.off, 0, i, MidiEvent(tick: n.off, .noteOff(channel: n.channel, note: n.note, velocity: 64))))
            }
            timed.sort { ($0.tick, $0.rank, $0.order) < ($1.tick, $1.rank, $1.order) }
            out += timed.map(\.event)
            lastTick = max(lastTick, timed.last?.tick ?? 0)
            tracks.append(out)
        }
        for clip in unknownLength.sorted() {
            warnings.append("slot \(clip): its sound's length is unknown; its notes end where a gate would")
        }
        // The tempo track lasts as long as the music, and at least the passes exported.
        let passesEnd = plays.last.map { Int(($0.startTicks + Double($0.repeats) * $0.span / beat * Double(ticksPerBeat)).rounded()) } ?? 0
        conductor.append(MidiEvent(tick: max(lastTick, passesEnd), .meta(type: 0x2F, data: [])))
        return (MidiFile(format: 1, division: ticksPerBeat, tracks: [conductor] + tracks), warnings)
    }
}

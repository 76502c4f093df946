import TemperaCore

/// One schedule event as the audio thread reads it: plain numbers only.
struct MixEvent: Equatable {
    var time: Double
    var gateEnd: Double
    /// The marker's amplitude, exact: the velocity layer is chosen on it.
    var amp: Double
    var track: Int32
    /// 1...16, or 0 for `?`.
    var clip: Int32
    /// What a `?` draw is keyed on (`Schedule.Event.randomKey`).
    var randomKey: UInt64
    var isCut: Bool
    /// The velocity layer of the slot this onset plays (an index into the slot's layers), chosen when the snapshot
    /// is built; -1 for a `?`, whose slot is drawn per pass (its layer is then picked by the same rule).
    var layer: Int32 = -1
    /// The marker the event comes from (`Schedule.Event.marker`): with the track, its identity across edits.
    var marker: MarkerID
    /// The chance it sounds in a pass (`Schedule.sounds`), 1 for most.
    var probability: Double = 1
    /// Seconds into the sound where the voice starts (a slice, `Marker.from`).
    var from: Double = 0
    /// Where its slice ends in the sound (`Marker.to`; 0: no slice).
    var to: Double = 0
    /// Which hit of a ratchet (`Schedule.Event.hit`): with the track and marker, the event's identity in a pass.
    var hit: Int32 = 0
    /// The cycle of a track with its own cycle (`Schedule.Event.cycle`).
    var cycle: Int32 = 0
}

/// One sound of a slot: its file, or one of its velocity layers.
struct MixLayer {
    /// Interleaved stereo at the output rate; nil when the file failed to load.
    var data: UnsafePointer<Float>?
    var frames: Int
    var gain: Float
    /// The amplitudes it answers (`ClipSlot.Layer`); 0...1 for a slot's single file.
    var min: Double
    var max: Double
}

/// One clip slot as the audio thread reads it.
struct MixSlot {
    /// Its sounds: `MixSnapshot.layers[firstLayer ..< firstLayer + layerCount]` (0 for an empty slot).
    var firstLayer: Int
    var layerCount: Int
    var gain: Float
    var gate: Bool
    var attackFrames: Int
    /// 0: hold full level after the attack.
    var decayFrames: Int
    var releaseFrames: Int
    /// The pan law's gains (`Pan.gains`).
    var panLeft: Float
    var panRight: Float
    /// Choke group, 0 for none.
    var choke: Int32
    /// MIDI out: the channel, 0...15, or -1 for none; the note.
    var midiChannel: Int8 = -1
    var midiNote: UInt8 = 60

    /// The layer an amplitude plays (`ClipSlot.layer(for:)`), from the snapshot's layer table.
    @inline(__always)
    func layer(for amp: Double, in layers: UnsafeMutablePointer<MixLayer>) -> Int {
        let first = firstLayer
        return ClipSlot.Layer.pick(amp, count: layerCount) { (layers[first + $0].min, layers[first + $0].max) }
    }
}

/// One section as the audio thread reads it (the loop is one section repeated without end): its region, tempo
/// and repeats, where it starts in song time, and its events' place in the snapshot's event list.
struct MixSection {
    /// A_j, seconds on the document's timeline.
    var start: Double
    /// B_j − A_j.
    var span: Double
    var tempo: Double
    /// R_j; `Int.max` for the loop.
    var repeats: Int
    /// Σ_{i<j} D_i.
    var offset: Double
    /// Σ_{i<j} R_i: for the pass a `?` draws with.
    var passesBefore: Int
    /// How a pass and a time become play time inside the section (its pieces in `MixSnapshot.pieces`).
    var clock: SectionClock
    /// The events of the section's region (shared by every section and snapshot playing that region).
    var events: UnsafeMutablePointer<MixEvent>
    var eventCount: Int
    /// The tracks with their own cycle or ratio over its region: `MixSnapshot.cycles[cycleFirst ..< cycleFirst +
    /// cycleCount]` (at most `MixCycle.capacity`).
    var cycleFirst = 0
    var cycleCount = 0
    /// The section's own pulses per bar (0: the metronome's): its click accents each bar counted from the region's
    /// first pulse.
    var meter = 0
    /// With its own meter: the seconds (x1) of its pulse and where its groups start (`Meter.groupMask`).
    var pulse = 0.0
    var groups: UInt64 = 0
    /// With its own meter: the note its pulse is (8 in 7/8).
    var unit = 0

    /// The pulse the click counts in this section: its own meter's, else the metronome's.
    @inline(__always)
    func clickPulse(_ click: MixClick) -> Double { meter > 0 && pulse > 0 ? pulse : click.beat }
}

extension MixSection: PlaceableSection {}

/// A track with its own cycle or ratio as the audio thread reads it (`CycleTrack`): one cycle's events, times
/// after the cycle's start, repeated every `length`, `ratio` times as fast, from the start of the loop's playing or
/// of the section.
struct MixCycle {
    var length: Double
    var ratio: Double
    var events: UnsafeMutablePointer<MixEvent>
    var eventCount: Int

    /// The most cycle tracks one section plays (the render state keeps a cursor for each).
    static let capacity = 64
}

/// Everything the render path needs, flattened into raw memory: the schedule's events, the sections that play
/// them, the slots with their sample pointers, track gains and transport settings. Immutable once published.
struct MixSnapshot {
    var seq: Int
    var sections: UnsafeMutablePointer<MixSection>
    var sectionCount: Int
    /// Playing the song's sections (else the loop, one section).
    var song: Bool
    /// Σ D_i (0 for the loop).
    var total: Double
    /// Σ R_i (0 for the loop).
    var totalPasses: Int
    /// The tempo pieces the sections' clocks read (nil: every section plays at one tempo).
    var pieces: UnsafeMutablePointer<TempoPiece>?
    var pieceCount: Int
    var slots: UnsafeMutablePointer<MixSlot>
    var layers: UnsafeMutablePointer<MixLayer>
    var trackGains: UnsafeMutablePointer<Float>
    var trackCount: Int
    /// Loop on (the loop), or song loop on (the song).
    var looping: Bool
    var volume: Float
    var seed: UInt64
    var randomPool: UInt16
    /// The metronome (see `MixClick`).
    var click: MixClick
    /// A sample to preview (the file picker's): a new `previewSerial` starts it once, at full level, outside
    /// every track; its buffer lives as long as this snapshot, which a sounding voice keeps alive.
    var previewData: UnsafePointer<Float>? = nil
    var previewFrames = 0
    var previewSerial = 0
    /// Seconds per beat at x1 and beats per bar: an Ableton Link session's beats and quantum (see `LinkFollow`).
    var beat = 0.5
    var meter = 4
    /// The note the document's meter pulses in (4 in 4/4, 8 in 7/8): a pulse lasts `beat * 4 / meterUnit` at x1.
    var meterUnit = 4
    /// The cycle tracks the sections point into (nil: none).
    var cycles: UnsafeMutablePointer<MixCycle>? = nil
    /// MIDI in: for each note 0...127, the slot index (0...15) a note-on plays, -1 for none
    /// (`ClipSlot.midiInSlots`).
    var midiIn: UnsafeMutablePointer<Int8>? = nil

    /// The output frame offset of `time` in pass `pass` of section `section`, song pass `songPass`: exactly
    /// `SongTiming.frame`, which for the loop (one section, offset 0, pass 0 of the song) is
    /// `Schedule.frame(pass:time:)`.
    @inline(__always)
    func frame(songPass: Int, section: Int, pass: Int, time: Double, rate: Double) -> Int64 {
        let s = sections[section]
        return Int64((SongTiming.time(songPass: songPass, total: total, offset: s.offset, pass: pass, time: time,
                                      clock: s.clock, pieces: pieces) * rate).rounded())
    }

    /// The musical position (k·span + t, seconds at x1 from the section's start) at play time `s` from the
    /// section's start: the inverse of the section's clock.
    @inline(__always)
    func music(section: Int, atPlay s: Double) -> Double {
        sections[section].clock.music(atPlay: s, pieces: pieces)
    }

    /// The tempo heard at musical position `x` of section `section`.
    @inline(__always)
    func tempo(section: Int, atMusic x: Double) -> Double {
        sections[section].clock.tempo(atMusic: x, pieces: pieces)
    }

    /// Where song time `t` is (seconds of output from song pass 0's start): the song pass, the section (from 0),
    /// its pass and the time in its region: `SongTiming.place`'s rules over this snapshot's sections, read in place
    /// (nothing allocated): an instant on a boundary belongs to what starts there; nil when the song has no length,
    /// `t` is not a number, or `t` is at or past the end of a song that does not loop.
    @inline(__always)
    func place(songTime t: Double) -> SongTiming.Place? {
        SongTiming.place(at: t, in: UnsafeBufferPointer(start: sections, count: sectionCount), total: total,
                         looping: looping, pieces: pieces)
    }

    /// Where pass `pass` of section `section` ends: the next pass's start, or the next section's (the next song
    /// pass's after the last section), so a section change falls exactly where the next one starts.
    @inline(__always)
    func passEnd(songPass: Int, section: Int, pass: Int, rate: Double) -> Int64 {
        guard song, pass + 1 >= sections[section].repeats else {
            return frame(songPass: songPass, section: section, pass: pass + 1, time: 0, rate: rate)
        }
        if section + 1 < sectionCount { return frame(songPass: songPass, section: section + 1, pass: 0, time: 0, rate: rate) }
        return frame(songPass: songPass + 1, section: 0, pass: 0, time: 0, rate: rate)
    }

    /// True when the two play their sections on the same clock: same mode, sections, tempos and repeats.
    func sameTiming(as o: MixSnapshot) -> Bool {
        guard song == o.song, sectionCount == o.sectionCount, total == o.total else { return false }
        for j in 0..<sectionCount {
            let x = sections[j], y = o.sections[j]
            if x.start != y.start || x.span != y.span || x.tempo != y.tempo || x.repeats != y.repeats
                || x.offset != y.offset || x.clock != y.clock { return false }
        }
        guard pieceCount == o.pieceCount else { return false }
        if pieceCount > 0, let p = pieces, let q = o.pieces {
            for i in 0..<pieceCount where p[i] != q[i] { return false }
        }
        return true
    }
}

/// The metronome as the audio thread reads it: pulse k of the timeline (from time 0) sounds at
/// `k * beat - start` seconds (x1) into each pass of a section whose region starts at `start`, for the pulses
/// inside the region (`beats(start:end:beat:)`); `k % meter == 0` is the accent, a group's first pulse
/// (`groups`, see `Meter.groupMask`) the medium one.
struct MixClick {
    var on: Bool
    var level: Float
    /// The meter's pulse, seconds at x1 (the document's beat in a quarter-note meter).
    var beat: Double
    var meter: Int
    var groups: UInt64 = 0
    /// Bars of count-in before playback starts (with the click on).
    var countIn: Int
    var accent: UnsafePointer<Float>?
    var accentFrames: Int
    var normal: UnsafePointer<Float>?
    var normalFrames: Int
    var group: UnsafePointer<Float>? = nil
    var groupFrames = 0

    /// No metronome.
    static var off: MixClick { MixClick(on: false, level: 0, beat: 1, meter: 1, countIn: 0, accent: nil,
                              accentFrames: 0, normal: nil, normalFrames: 0) }

    /// Seconds (x1) after the region's start where pulse `k` of `pulse` seconds falls.
    @inline(__always)
    static func time(_ k: Int, pulse: Double, start: Double) -> Double { Double(k) * pulse - start }

    /// The beats of the timeline inside [start, end): `first..<end`, computed so that `time(k) >= 0` exactly.
    /// Plain arithmetic (the render path calls it).
    @inline(__always)
    static func beats(start: Double, end: Double, beat: Double) -> (first: Int, end: Int) {
        // A region or beat so far apart that the count would not fit is treated as having no beat.
        guard beat > 0, end / beat < 1e15 else { return (0, 0) }
        var first = Int((start / beat).rounded(.up))
        while first > 0 && Double(first - 1) * beat >= start { first -= 1 }
        while Double(first) * beat < start { first += 1 }
        var last = Int((end / beat).rounded(.up))
        while last > first && Double(last - 1) * beat >= end { last -= 1 }
        while Double(last) * beat < end { last += 1 }
        return (first, max(first, last))
    }
}

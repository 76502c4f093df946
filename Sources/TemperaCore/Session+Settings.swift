#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tracks, transport, clip slots, the cursor and the drawing modes.
extension Session {
    func runTrackAdd(_ name: String?) throws -> String? {
        let title = name ?? "track \(document.tracks.count + 1)"
        var index = 0
        try perform("track add") { index = $0.addTrack(Track(name: title)) }
        own.currentTrack = index
        return nil
    }

    func runTrackSelect(_ n: Int) throws -> String? {
        guard n >= 1, n <= document.tracks.count else {
            throw CommandError("no track \(n) (the document has \(document.tracks.count))")
        }
        own.currentTrack = n - 1
        return nil
    }

    /// The 0-based index of track `n` (from 1), or of the current track when nil.
    func trackIndex(_ n: Int?) throws -> Int {
        guard let n else { return try requireTrack() }
        guard n >= 1, n <= document.tracks.count else {
            throw CommandError("no track \(n) (the document has \(document.tracks.count))")
        }
        return n - 1
    }

    /// `track 2 (snare)`, for messages.
    func trackLabel(_ t: Int) -> String { "track \(t + 1) (\(document.tracks[t].name))" }

    func runTrackMute(_ n: Int?, _ on: Bool?) throws -> String? {
        let t = try trackIndex(n)
        let mute = on ?? !document.tracks[t].mute
        try perform("\(mute ? "mute" : "unmute") track \(t + 1)") { $0.setTrack(t, mute: mute) }
        return "\(trackLabel(t)) \(mute ? "muted" : "unmuted")"
    }

    func runTrackSolo(_ n: Int?, _ on: Bool?) throws -> String? {
        let t = try trackIndex(n)
        let solo = on ?? !document.tracks[t].solo
        try perform("\(solo ? "solo" : "unsolo") track \(t + 1)") { $0.setTrack(t, solo: solo) }
        let others = document.tracks.indices.filter { $0 != t && document.tracks[$0].solo }.count
        return "\(trackLabel(t)) \(solo ? "soloed" : "unsoloed")"
            + (others == 0 ? "" : "; \(others) other track\(others == 1 ? "" : "s") soloed")
    }

    func runTrackGain(_ n: Int?, _ gain: Double) throws -> String? {
        let range = CommandParser.trackGainRange
        guard gain.isFinite, range.contains(gain) else {
            throw CommandError("track gain: \(LineParser.show(gain)) is out of range "
                + "(\(LineParser.show(range.lowerBound))-\(LineParser.show(range.upperBound)))")
        }
        let t = try trackIndex(n)
        try perform("gain of track \(t + 1)") { $0.setTrack(t, gain: gain) }
        // A gain typed in dB is a long fraction: three decimals say enough next to the dB.
        return "\(trackLabel(t)) gain \(DocumentFile.number((gain * 1000).rounded() / 1000)) (\(Self.decibels(gain)))"
    }

    func runTrackName(_ n: Int?, _ name: String) throws -> String? {
        if let problem = LineParser.nameProblem(name) { throw CommandError("track name: \(problem)") }
        let t = try trackIndex(n)
        try perform("rename track \(t + 1)") { $0.setTrack(t, name: name) }
        return "track \(t + 1) is now \(name)"
    }

    /// A linear gain in decibels to a tenth: `-6.0 dB`, `-inf dB` for silence.
    static func decibels(_ gain: Double) -> String {
        guard gain > 0 else { return "-inf dB" }
        let db = (20 * log10(gain) * 10).rounded() / 10
        return "\(db > 0 ? "+" : "")\(db == 0 ? 0.0 : db) dB"
    }

    func runLength(_ t: Double) throws -> String? {
        guard t.isFinite, t > 0 else { throw CommandError("length must be a positive time") }
        try checkTime(t, "length")
        var transport = document.transport
        // A loop region still on its default (the whole timeline) follows the length, and the status line says
        // so (a spread or the transport then covers the new length); a loop the user set stays as it is.
        let following = transport.loopStart == 0 && transport.loopEnd == transport.length && transport.loopEnd != t
        // A loop that would be longer than the longest one, or shorter than the shortest, stays where it is.
        let follows = following && t <= Limits.maxLoopLength && t >= Limits.minSpan
        if follows { transport.loopEnd = t }
        transport.length = t
        try perform("length") { $0.setTransport(transport) }
        if following && !follows {
            let bound = t > Limits.maxLoopLength ? "at most \(Limits.seconds(Limits.maxLoopLength))"
                                                 : "at least \(Limits.seconds(Limits.minSpan))"
            return "length \(Limits.seconds(t)) s: the loop stays 0-\(Limits.seconds(transport.loopEnd)) s, as a loop is "
                + "\(bound) s long"
        }
        guard follows else { return nil }
        return "length \(Limits.seconds(t)) s: the loop was the whole timeline and follows it, now 0-\(Limits.seconds(t)) s "
            + "(loop A B sets another)"
    }

    func runLoopRange(_ a: Double, _ b: Double) throws -> String? {
        guard a.isFinite, b.isFinite, a >= 0 else { throw CommandError("loop start must be a time >= 0") }
        guard b > a else { throw CommandError("loop end must be after its start") }
        try checkTime(b, "loop end")
        try Limits.checkLoop(a, b)
        var transport = document.transport
        transport.loopStart = a
        transport.loopEnd = b
        // Setting a region means wanting to hear it loop.
        transport.loopOn = true
        try perform("loop") { $0.setTransport(transport) }
        return nil
    }

    func runLoop(on: Bool) throws -> String? {
        var transport = document.transport
        transport.loopOn = on
        try perform(on ? "loop on" : "loop off") { $0.setTransport(transport) }
        return nil
    }

    func runTempo(_ x: Double) throws -> String? {
        let range = Transport.tempoRange
        guard x.isFinite, range.contains(x) else {
            throw CommandError("tempo must be between x\(range.lowerBound) and x\(range.upperBound)")
        }
        var transport = document.transport
        transport.tempo = x
        try perform("tempo") { $0.setTransport(transport) }
        return nil
    }

    func runVolume(_ v: Double) throws -> String? {
        guard v.isFinite, (0...1).contains(v) else { throw CommandError("volume must be between 0 and 1") }
        var transport = document.transport
        transport.volume = v
        try perform("volume") { $0.setTransport(transport) }
        return nil
    }

    func runSlot(_ n: Int, _ s: Command.SlotSettings) throws -> String? {
        guard ClipSlot.range.contains(n) else { throw CommandError("no slot \(n) (slots are 1-16)") }
        var slot = document.slot(n)
        if let file = s.file {
            guard !file.isEmpty else { throw CommandError("slot file must not be empty") }
            if s.layers?.isEmpty == false { throw CommandError("a slot plays either file= or layer=, not both") }
            slot.file = file
            // A file replaces a SoundFont (and a SoundFont a file) and the layers: the slot plays one sound again.
            if s.soundFont == nil { slot.soundFont = nil }
            slot.layers = []
            if s.name == nil { slot.name = Self.baseName(file) }
        }
        if let font = s.soundFont {
            guard !font.isEmpty else { throw CommandError("sf2 must name a SoundFont file (or default)") }
            guard s.note != nil || slot.note != nil else {
                throw CommandError("a SoundFont slot needs note=MIDI (for example: slot \(n) sf2=\(font) note=60)")
            }
            slot.soundFont = font
            if s.file == nil { slot.file = nil }
            slot.layers = []
        }
        if s.program != nil || s.bank != nil, slot.soundFont == nil {
            throw CommandError("program and bank choose a SoundFont's preset: give sf2=PATH too")
        }
        if let program = s.program { slot.program = program }
        if let bank = s.bank { slot.bank = bank }
        if let layers = s.layers {
            for l in layers {
                guard !l.file.isEmpty, l.min.isFinite, l.max.isFinite, 0 <= l.min, l.min <= l.max, l.max <= 1 else {
                    throw CommandError("a layer's amplitudes must be 0 <= MIN <= MAX <= 1")
                }
                guard l.gain.isFinite, l.gain >= 0, l.pitch.isFinite, abs(l.pitch) <= 48 else {
                    throw CommandError("a layer's gain must be >= 0 and its pitch within 48 semitones")
                }
            }
            slot.layers = layers
            if !layers.isEmpty { slot.soundFont = nil }
            if let first = layers.first, s.name == nil, slot.file == nil, slot.name.isEmpty {
                slot.name = Self.baseName(first.file)
            }
        }
        if let pan = s.pan {
            guard pan.isFinite, (-1...1).contains(pan) else { throw CommandError("pan must be from -1 to 1") }
            slot.pan = pan
        }
        if let ch = s.midiChannel {
            guard (0...16).contains(ch), s.midiNote.map({ (0...127).contains($0) }) ?? true else {
                throw CommandError("midi= is a channel 1-16 and a note 0-127 (CH:NOTE), or none")
            }
            slot.midiChannel = ch == 0 ? nil : ch
            slot.midiNote = ch == 0 ? nil : s.midiNote
        }
        if let choke = s.choke {
            guard choke == 0 || ClipSlot.chokeGroups.contains(choke) else {
                throw CommandError("choke must be a group from 1 to \(ClipSlot.chokeGroups.upperBound), or none")
            }
            slot.choke = choke
        }
        if let note = s.note {
            guard (0...127).contains(note) else { throw CommandError("MIDI note must be 0-127") }
            slot.note = note
        }
        if s.clearNote { slot.note = nil }
        if let gain = s.gain {
            guard gain.isFinite, gain >= 0 else { throw CommandError("gain must be >= 0") }
            slot.gain = gain
        }
        if let mode = s.mode { slot.mode = mode }
        for (label, value) in [("attack", s.attack), ("decay", s.decay), ("release", s.release)] {
            if let value, !(value.isFinite && value >= 0) { throw CommandError("\(label) must be >= 0 ms") }
        }
        if let attack = s.attack { slot.attack = attack }
        if let decay = s.decay { slot.decay = decay }
        if let release = s.release { slot.release = release }
        if let name = s.name {
            slot.name = name
        } else if s.soundFont != nil || s.program != nil || s.bank != nil || (s.note != nil && slot.soundFont != nil) {
            slot.name = Self.soundFontName(slot)
        }
        try perform("slot \(n)") { $0.setSlot(n, slot) }
        return nil
    }

    /// A SoundFont slot's name: its General MIDI drum (bank 128) or its program and note: `p0 A4`.
    static func soundFontName(_ slot: ClipSlot) -> String {
        let note = slot.note ?? 60
        if slot.bank == 128 { return GeneralMIDI.drumName(note: note) ?? "drum \(note)" }
        return "p\(slot.program) \(GeneralMIDI.noteName(note))"
    }

    func runCursor(_ t: Double) throws -> String? {
        try checkTime(t, "cursor")
        own.cursor = t
        return nil
    }

    func runChooseClip(_ c: Content) throws -> String? {
        if case .clip(let n) = c, !ClipSlot.range.contains(n) { throw CommandError("no clip \(n) (clips are 1-16)") }
        own.chosenClip = c
        return nil
    }

    /// `kit/snare.wav` -> `snare`.
    static func baseName(_ path: String) -> String {
        let file = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return file }
        return String(file[..<dot])
    }

    func checkAmp(_ amp: Double?) throws {
        if let amp, !(amp.isFinite && (0...1).contains(amp)) { throw CommandError("amp must be between 0 and 1") }
    }

    func checkTime(_ t: Double, _ what: String) throws {
        guard t.isFinite, t >= 0, t <= Limits.maxTime else {
            throw CommandError("\(what) must be from 0 to \(Limits.seconds(Limits.maxTime)) s, not \(Limits.seconds(t))")
        }
    }
}

/// A Standard MIDI File as a document (`tempera import FILE.mid`): one track per (channel, note) that sounds,
/// each note on a marker at the exact second the file's tempo map gives its tick, velocity/127 as amplitude.
///
/// Channel 10 notes become one-shot drum slots named by the General MIDI table, on the default kit's sample
/// when the kit has that sound, else on the General MIDI SoundFont's drum (bank 128). Other channels' notes
/// become gate slots playing the note with the channel's program on that font, and a note off that comes
/// before the track's next note on becomes a `-` there. The document plays
/// at tempo x1 and loops over the whole file (to its last End of Track).
public enum MidiImport {
    /// The document and one line for each thing it could not carry.
    /// `soundFont` is what sounds without a kit sample play on (`default`: the system's General MIDI font);
    /// nil plays them on the sampler's note tone instead.
    public static func document(from file: MidiFile, soundFont: String? = "default") throws
        -> (document: Document, warnings: [String]) {
        if file.format == 2 {
            throw MidiFileError("a format 2 file holds independent sequences; tempera imports formats 0 and 1")
        }
        let map = MidiTempoMap(file: file)
        struct Key: Hashable, Comparable {
            var channel: UInt8
            var note: UInt8
            static func < (a: Key, b: Key) -> Bool { (a.channel, a.note) < (b.channel, b.note) }
        }
        struct Note {
            var on: Int
            var off: Int?
            var velocity: UInt8
        }
        var notes: [Key: [Note]] = [:]
        var names: [Key: String] = [:]
        var endTick = 0
        // Notes are merged across tracks in tick order; within a track, file order.
        var all: [(tick: Int, track: Int, order: Int, message: MidiEvent.Message)] = []
        for (ti, track) in file.tracks.enumerated() {
            for (i, e) in track.enumerated() {
                endTick = max(endTick, e.tick)
                all.append((e.tick, ti, i, e.message))
            }
        }
        all.sort { ($0.tick, $0.track, $0.order) < ($1.tick, $1.track, $1.order) }
        var trackNames: [Int: String] = [:]
        var channelProgram: [UInt8: Int] = [:], channelBank: [UInt8: Int] = [:]
        var programs: [Key: (program: Int, bank: Int)] = [:]
        for e in all {
            switch e.message {
            case .meta(0x03, let d) where trackNames[e.track] == nil:
                trackNames[e.track] = String(decoding: d, as: UTF8.self)
            case .programChange(let c, let p):
                channelProgram[c] = Int(p)
            case .channel(let status, let d) where status & 0xF0 == 0xB0 && d.count == 2 && d[0] == 0:
                channelBank[status & 0x0F] = Int(d[1])
            case .noteOn(let c, let n, let v) where v > 0:
                let key = Key(channel: c, note: n)
                if programs[key] == nil { programs[key] = (channelProgram[c] ?? 0, channelBank[c] ?? 0) }
                notes[key, default: []].append(Note(on: e.tick, off: nil, velocity: v))
                if names[key] == nil, let name = trackNames[e.track], !name.isEmpty { names[key] = name }
            case .noteOn(let c, let n, _), .noteOff(let c, let n, _):
                // The earliest note of this key still open ends here.
                let key = Key(channel: c, note: n)
                if let i = notes[key]?.firstIndex(where: { $0.off == nil }) { notes[key]![i].off = e.tick }
            default:
                break
            }
        }
        guard !notes.isEmpty else { throw MidiFileError("the file holds no notes") }

        var warnings: [String] = []
        var doc = Document(tracks: [], slots: Array(repeating: ClipSlot(), count: ClipSlot.count))
        let keys = notes.keys.sorted()
        var lastTime = map.seconds(atTick: endTick)
        var lastOnset = 0.0
        var unplaced = 0, tooLate = 0
        for (index, key) in keys.enumerated() {
            let isDrum = key.channel == GeneralMIDI.drumChannel
            let pitch = GeneralMIDI.noteName(Int(key.note))
            let drumName = isDrum ? GeneralMIDI.drumName(note: Int(key.note)) : nil
            let label = drumName ?? (isDrum ? "drum \(key.note)" : "\(names[key] ?? "ch\(key.channel + 1)") \(pitch)")
            let clip: Int? = index < ClipSlot.count ? index + 1 : nil
            if let clip {
                var slot: ClipSlot
                if let drumName, Document.kitNames.contains(drumName) {
                    slot = Document.defaultKit[Document.kitNames.firstIndex(of: drumName)!]
                } else {
                    // The system's General MIDI SoundFont plays what the kit has no sample for.
                    slot = ClipSlot(name: label, note: Int(key.note), mode: isDrum ? .oneShot : .gate)
                    slot.soundFont = soundFont
                    slot.bank = isDrum ? 128 : programs[key]?.bank ?? 0
                    slot.program = isDrum ? 0 : programs[key]?.program ?? 0
                }
                slot.name = label
                doc.slots[clip - 1] = slot
            }
            var markers: [Marker] = []
            let list = notes[key]!
            for (i, n) in list.enumerated() {
                let t = map.seconds(atTick: n.on)
                // A document's times stop at 10,000,000 s (about 16 weeks).
                guard t <= CommandParser.maxTime else {
                    tooLate += 1
                    continue
                }
                lastOnset = max(lastOnset, t)
                markers.append(Marker(id: 0, time: t, amp: Double(n.velocity) / 127, content: clip.map { .clip($0) }))
                if clip == nil { unplaced += 1 }
                if !isDrum, let off = n.off, i + 1 == list.count || off < list[i + 1].on {
                    let end = min(map.seconds(atTick: off), CommandParser.maxTime)
                    lastTime = max(lastTime, end)
                    markers.append(Marker(id: 0, time: end, amp: Double(n.velocity) / 127, content: .rest))
                }
            }
            doc.tracks.append(Track(name: label, markers: MarkerList(markers)))
        }
        if unplaced > 0 {
            warnings.append("\(keys.count) sounds, only 16 slots: \(unplaced) notes of \(keys.count - ClipSlot.count) "
                + "sounds are markers without a clip")
        }
        if tooLate > 0 { warnings.append("\(tooLate) notes after 10000000 s are left out") }
        doc = Document(tracks: doc.tracks, slots: doc.slots)  // numbers the markers
        // The loop runs to the end of the file, and past the last onset when the file ends on it.
        var length = lastTime
        if length <= lastOnset {
            length = lastOnset + Double(map.changes.last!.microsecondsPerQuarter) / 1_000_000
        }
        length = min(length, CommandParser.maxTime)
        // A loop is at most an hour: a longer file keeps its first hour as the loop.
        let loopEnd = min(max(length, Limits.minSpan), Limits.maxLoopLength)
        doc.transport = Transport(tempo: 1, volume: 0.8, loopStart: 0, loopEnd: loopEnd, loopOn: true, length: length)
        // The beat is the first tempo's quarter note; the meter counts the first time signature in quarters.
        let firstBeat = Double(map.changes[0].microsecondsPerQuarter) / 1_000_000
        doc.transport.beat = min(max(firstBeat, Transport.beatRange.lowerBound), Transport.beatRange.upperBound)
        if let sig = file.tracks.lazy.flatMap({ $0 }).first(where: {
            if case .meta(0x58, let d) = $0.message, d.count >= 2 { return true }
            return false
        }), case .meta(_, let d) = sig.message {
            let quarters = Double(d[0]) * 4 / Double(1 << min(Int(d[1]), 8))
            let meter = quarters == quarters.rounded() && quarters >= 1 ? Int(quarters) : Int(d[0])
            doc.transport.meter = min(max(meter, Transport.meterRange.lowerBound), Transport.meterRange.upperBound)
        }
        return (doc, warnings)
    }
}

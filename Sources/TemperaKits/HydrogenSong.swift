import Foundation
import TemperaCore

/// A Hydrogen song (`.h2song`) as a tempera document.
///
/// Each Hydrogen pattern becomes a group (a linked pattern: edit it once and every place it plays follows), each
/// distinct column of Hydrogen's pattern sequence (the patterns that play together) a region of the timeline
/// holding an instance of each of its patterns, the regions laid out one after another in order of first use; the
/// sequence becomes the song, one section per run of equal columns (A A B A: sections A×2, B, A over two
/// regions). Patterns past the bank's 16 groups are laid out as plain markers. Instruments that have notes become slots (the
/// song's kit's layers, gain, pan and mute group) and tracks, in the kit's order; their levels are Hydrogen's (the
/// instrument's volume and gain, its pan through the song's pan law, the song's volume as the master). A note at tick p of its pattern
/// sounds at `p · 60 / (bpm · 48)` seconds into its region (48 ticks a beat, as Hydrogen counts), moved by its
/// lead/lag (Hydrogen's ±5 ticks), with its velocity as amplitude; a note off is a `-`. The document's beat is one
/// Hydrogen beat, so its BPM is the song's. What cannot be carried is returned, one line each.
public enum HydrogenSong {
    /// Ticks a beat, as Hydrogen counts.
    public static let ticksPerBeat = 48.0
    /// How far a lead/lag of ±1 moves a note, in ticks (Hydrogen's `getLeadLagInTicks`).
    public static let leadLagTicks = 5.0

    struct Note {
        var position: Double
        var leadLag: Double
        var velocity: Double
        var instrument: Int
        var noteOff: Bool
    }

    struct Pattern {
        var name: String
        var size: Double
        var notes: [Note]
    }

    public static func document(path: String, kits: HydrogenKits = HydrogenKits()) throws -> (Document, [String]) {
        let root = try HydrogenXML.root(of: path, what: "song")
        guard root.name == "song" else {
            throw KitError("song: \(path) is not a Hydrogen song (its root is <\(root.name)>, not <song>)")
        }
        var warnings: [String] = []
        let bpm = root.number("bpm") ?? 120
        // The beat a document may have (Transport.beatRange) bounds the tempo: 1 to 6000 BPM.
        guard bpm >= 60 / Transport.beatRange.upperBound, bpm <= 60 / Transport.beatRange.lowerBound else {
            throw KitError("song: \(path): bpm \(DocumentFile.number(bpm)) is out of range (1 to 6000)")
        }
        let tick = 60 / (bpm * ticksPerBeat)
        for (key, what) in [("humanize_time", "humanize time"), ("humanize_velocity", "humanize velocity"),
                            ("swing_factor", "swing")] {
            if let v = root.number(key), v != 0 {
                warnings.append("\(what) \(v) is not carried: notes play on their ticks at their velocities")
            }
        }
        if let timeline = root.element("BPMTimeLine"), !timeline.children.isEmpty {
            warnings.append("the BPM timeline is not carried: the song plays at \(bpm) BPM throughout")
        }
        if let virtual = root.element("virtualPatternList"), !virtual.children.isEmpty {
            warnings.append("virtual patterns are not carried: only the patterns the sequence names play")
        }

        // Instruments: their sounds come from the song's kit, found where it is installed.
        let songFolder = (path as NSString).deletingLastPathComponent
        var kitFolders: [String: String] = [:]
        var missingKits = Set<String>()
        let instrumentElements = root.element("instrumentList")?.elements(named: "instrument") ?? []
        var instruments: [(id: Int, instrument: HydrogenKit.Instrument)] = []
        for e in instrumentElements {
            var folder = songFolder.isEmpty ? "." : songFolder
            if let kitName = e.text("drumkit"), !kitName.isEmpty {
                if let f = kitFolders[kitName] {
                    folder = f
                } else if let kit = try? kits.read(kitName) {
                    kitFolders[kitName] = kit.folder
                    folder = kit.folder
                } else if missingKits.insert(kitName).inserted {
                    warnings.append("kit \(kitName) is not installed: its samples are looked for beside the song")
                }
            }
            instruments.append((e.integer("id") ?? instruments.count, HydrogenKit.instrument(e, folder: folder)))
        }

        var patterns: [String: Pattern] = [:]
        var counts = (probability: 0, pitch: 0, pan: 0, length: 0)
        for p in root.element("patternList")?.elements(named: "pattern") ?? [] {
            let name = p.text("name") ?? ""
            var notes: [Note] = []
            for n in p.element("noteList")?.elements(named: "note") ?? [] {
                if let v = n.number("probability"), v < 1 { counts.probability += 1 }
                if let v = n.number("pitch"), v != 0 { counts.pitch += 1 }
                if let v = n.number("pan"), v != 0 { counts.pan += 1 }
                if let v = n.number("pan_L"), let w = n.number("pan_R"), v != w { counts.pan += 1 }
                if let v = n.number("length"), v >= 0 { counts.length += 1 }
                notes.append(Note(position: n.number("position") ?? 0, leadLag: max(-1, min(1, n.number("leadlag") ?? 0)),
                                  velocity: max(0, min(1, n.number("velocity") ?? 0.8)),
                                  instrument: n.integer("instrument") ?? -1,
                                  noteOff: n.text("note_off") == "true"))
            }
            patterns[name] = Pattern(name: name, size: max(1, p.number("size") ?? 192), notes: notes)
        }
        if counts.probability > 0 { warnings.append("\(counts.probability) notes with a probability below 1 play every time") }
        if counts.pitch > 0 { warnings.append("\(counts.pitch) notes with a pitch of their own play their instrument's pitch") }
        if counts.pan > 0 { warnings.append("\(counts.pan) notes with a pan of their own play at their instrument's pan") }
        if counts.length > 0 { warnings.append("\(counts.length) notes with a length ring to their sample's end") }

        // The sequence: each column the patterns it names (unknown names are said and skipped).
        var columns: [[String]] = []
        for g in root.element("patternSequence")?.elements(named: "group") ?? [] {
            var names: [String] = []
            for id in g.elements(named: "patternID") {
                let name = id.text
                if patterns[name] != nil { names.append(name) } else { warnings.append("the sequence names an unknown pattern '\(name)'") }
            }
            columns.append(names)
        }
        guard !columns.isEmpty else { throw KitError("song: \(path) has an empty pattern sequence: nothing to import") }

        // Regions: one per distinct column, laid out in order of first use.
        var regionOf: [[String]: (start: Double, end: Double)] = [:]
        var order: [[String]] = []
        var cursor = 0.0
        for c in columns where regionOf[c] == nil {
            // A column lasts as long as its longest pattern (an empty one, Hydrogen's default 192 ticks).
            let ticks = c.map { patterns[$0]!.size }.max() ?? 192
            let length = ticks * tick
            regionOf[c] = (cursor, cursor + length)
            order.append(c)
            cursor += length
        }
        // Whatever is imported must open again: the document's limits, checked before any work.
        guard cursor <= Limits.maxTime else {
            throw KitError("song: \(path) lasts \(Limits.seconds(cursor)) s; a document ends by \(Limits.seconds(Limits.maxTime)) s")
        }

        // Which instruments sound (in the kit's order, 16 at most: one slot each) decides the tracks.
        var sounding = Set<Int>()
        var unknownInstrument = 0
        for c in order {
            for name in c {
                for n in patterns[name]!.notes {
                    if instruments.contains(where: { $0.id == n.instrument }) { sounding.insert(n.instrument) } else { unknownInstrument += 1 }
                }
            }
        }
        if unknownInstrument > 0 { warnings.append("\(unknownInstrument) notes name no instrument of the song and are left out") }
        var used = instruments.filter { sounding.contains($0.id) }
        if used.count > ClipSlot.count {
            let left = used[ClipSlot.count...].map(\.instrument.name)
            warnings.append("\(used.count) instruments have notes; only 16 slots: \(left.joined(separator: ", ")) left out")
            used = Array(used[..<ClipSlot.count])
        }
        guard !used.isEmpty else { throw KitError("song: \(path) has no notes to import") }

        // Levels as Hydrogen mixes them: each side of an instrument is velocity × layer gain × gain × volume ×
        // the pan law's side × the song's volume. Pan and instrument level become the slot's gain and pan
        // (exactly, through tempera's own law); the song's volume is the master.
        var law = HydrogenPanLaw.standard
        if let name = root.text("pan_law_type"), !name.isEmpty {
            if let known = HydrogenPanLaw(rawValue: name) {
                law = known
            } else {
                warnings.append("pan law \(name) is unknown: pans follow Hydrogen's default (RATIO_STRAIGHT_POLYGONAL)")
            }
        }
        let kNorm = root.number("pan_law_k_norm").flatMap { $0 > 0 && $0.isFinite ? $0 : nil } ?? HydrogenPanLaw.standardK
        let songVolume = max(0, min(root.number("volume") ?? 1, 16))
        // The kit's main component volume (one component: all of it; several differing are not carried).
        let componentVolume = HydrogenKit.componentVolume(of: root)
        if componentVolume == nil { warnings.append("the kit's components have different volumes: they are not carried") }
        // tempera's master goes to 1: a song louder than that carries the rest in its slots' gains.
        let master = min(songVolume, 1)
        let carried = (songVolume > 1 ? songVolume : 1) * (componentVolume ?? 1)

        var slots = Array(repeating: ClipSlot(), count: ClipSlot.count)
        for (k, u) in used.enumerated() { slots[k] = u.instrument.slot(law: law, k: kNorm, carried: carried) }
        let trackOf = Dictionary(uniqueKeysWithValues: used.enumerated().map { ($1.id, $0) })
        let laid = layOut(order: order, regionOf: regionOf, patterns: patterns, trackOf: trackOf, tick: tick)
        if laid.clamped > 0 { warnings.append("\(laid.clamped) notes led or lagged out of their pattern are kept at its edge") }
        if laid.unlinked > 0 {
            warnings.append("\(laid.unlinked) patterns past the bank's \(GroupBank.range.count) groups are plain markers")
        }
        let tracks = used.enumerated().map { k, u in Track(name: u.instrument.name, markers: MarkerList(laid.markers[k])) }
        var doc = Document(tracks: tracks, slots: slots)
        doc.transport = Transport(tempo: 1, volume: master, loopStart: 0, loopEnd: min(cursor, Limits.maxLoopLength), loopOn: true,
                                  length: cursor)
        doc.transport.beat = 60 / bpm
        let firstSize = patterns[columns.first { !$0.isEmpty }?.first ?? ""]?.size ?? 192
        let beats = firstSize / ticksPerBeat
        doc.transport.meter = beats == beats.rounded() && beats >= 1 && beats <= Double(Transport.meterRange.upperBound)
            ? Int(beats) : 4
        // The sequence as the song: consecutive equal columns are one section repeated.
        var sections: [Song.Section] = []
        for c in columns {
            let r = regionOf[c]!
            if let last = sections.last, last.start == r.start, last.end == r.end, last.repeats < Song.maxRepeats {
                sections[sections.count - 1].repeats += 1
            } else {
                sections.append(Song.Section(name: c.isEmpty ? "(empty)" : c.joined(separator: "+"), start: r.start, end: r.end))
            }
        }
        guard sections.count <= Song.maxSections else {
            throw KitError("song: \(path) makes \(Limits.count(sections.count)) sections; a song holds at most \(Limits.count(Song.maxSections))")
        }
        doc.song = Song(sections: sections, on: true, loop: false)
        doc.groups = laid.groups
        doc.song.instances = laid.instances
        return (doc, warnings)
    }
}

import TemperaCore
import TemperaPlayback

/// The Song tab's keys and the loop / song switch. Every change to the song is one `section ...` or `song ...`
/// command (one undo step); moving the tab's cursor and jumping to a section are not edits.
extension Dispatcher {
    func song(_ verb: Verb.SongVerb) throws {
        let s = session
        let song = s.document.song
        let j = SongTab.clampedRow(view.songRow, song)
        view.songRow = j
        if let digit = verb.digit {
            view.songDigits = String((view.songDigits + String(digit)).suffix(3))
            return say("bpm \(view.songDigits): " + ([view.key("song.bpm.start"), view.key("song.bpm.end")].compactMap { $0 }
                .joined(separator: " starts / ") + " ends the section there"))
        }
        if verb != .add && verb != .up && verb != .down && song.sections.isEmpty {
            return say("the song has no section: " + (view.key("song.add").map { "\($0) adds the loop region" }
                ?? "section add"), error: true)
        }
        let n = j + 1
        switch verb {
        case .up: view.songRow = max(0, j - 1)
        case .down: view.songRow = min(max(song.sections.count - 1, 0), j + 1)
        case .add:
            try command(.sectionAdd(name: nil, start: nil, end: nil, repeats: nil, tempo: nil))
            view.songRow = s.document.song.sections.count - 1
        case .rename:
            openSectionRenameEditor(j)
        case .repeatsUp, .repeatsDown:
            let r = song.sections[j].repeats + (verb == .repeatsUp ? 1 : -1)
            guard r >= 1 else { return say("section \(n) plays once at least", error: true) }
            try command(.section(n, .repeats(min(r, Song.maxRepeats))))
            say("section \(n) (\(song.sections[j].name)): ×\(r)")
        case .tempoUp, .tempoDown, .tempoUpCoarse, .tempoDownCoarse:
            // One BPM a step on whole BPMs, or five on multiples of five; a ramp moves both its ends.
            let t = s.document.transport
            let up = verb == .tempoUp || verb == .tempoUpCoarse
            let step = verb == .tempoUp || verb == .tempoDown ? 1.0 : 5.0
            func moved(_ tempo: Double) -> Double {
                let bpm = t.bpm(atTempo: tempo)
                let next = up ? ((bpm + 1e-9) / step).rounded(.down) * step + step
                    : ((bpm - 1e-9) / step).rounded(.up) * step - step
                return Transport.tempoInRange(forBPM: next, beat: t.beat)
            }
            let from = moved(song.sections[j].tempo ?? t.tempo)
            if let end = song.sections[j].tempoEnd, song.sections[j].tempo != nil {
                let to = moved(end)
                try command(.section(n, .ramp(from: from, to: to, bpm: false, shape: song.sections[j].shape)))
                say("section \(n) (\(song.sections[j].name)): \(Session.bpmText(t.bpm(atTempo: from)))"
                    + "\(Glyphs.set(ascii: view.ascii).arrow)\(Session.bpmText(t.bpm(atTempo: to))) BPM")
            } else {
                try command(.section(n, .tempo(from)))
                say("section \(n) (\(song.sections[j].name)): \(Session.bpmText(t.bpm(atTempo: from))) BPM")
            }
        case .moveUp, .moveDown:
            let m = n + (verb == .moveDown ? 1 : -1)
            guard m >= 1, m <= song.sections.count else { return }
            try command(.section(n, .move(m)))
            view.songRow = m - 1
        case .delete:
            try command(.section(n, .delete))
            view.songRow = SongTab.clampedRow(j, s.document.song)
        case .duplicate:
            try command(.section(n, .duplicate))
            view.songRow = j + 1
        case .trackUp, .trackDown, .cellToggle, .cellGroup:
            try grid(verb, section: j)
        case .bpmStart, .bpmEnd:
            try typedBPM(verb == .bpmEnd, section: j)
        case .digit0, .digit1, .digit2, .digit3, .digit4, .digit5, .digit6, .digit7, .digit8, .digit9:
            break
        case .jump:
            // Enter plays the song from this section: the song goes on first when it was off.
            if !song.on { try command(.song(on: true)) }
            guard let player else { return say("no audio output in this session") }
            player.jump(toSection: j)
            if !player.isPlaying { player.play() }
            say("section \(n) (\(song.sections[j].name)) from its first pass")
        }
    }

    /// The loop / song switch (a key and the transport's button).
    func toggleSongMode() throws {
        let song = session.document.song
        guard !song.sections.isEmpty else {
            return say("the song has no section: add one in the Song tab (" + (view.key("tab.song") ?? "section add")
                + ")", error: true)
        }
        try command(.song(on: !song.on))
        say(song.on ? "playing the loop" : "playing the song: \(song.sections.count) section"
            + (song.sections.count == 1 ? "" : "s"))
    }

    /// The grid's keys on section j: the track under the cursor, whether it sounds there, the group it plays.
    func grid(_ verb: Verb.SongVerb, section j: Int) throws {
        let doc = session.document
        let tracks = doc.tracks.count
        let t = min(max(view.songTrack, 0), max(tracks - 1, 0))
        let n = j + 1, s = doc.song.sections[j]
        switch verb {
        case .trackUp: view.songTrack = max(0, t - 1)
        case .trackDown: view.songTrack = min(max(tracks - 1, 0), t + 1)
        case .cellToggle:
            var on = Set(s.tracks ?? Array(0..<tracks))
            if on.contains(t) { on.remove(t) } else { on.insert(t) }
            let list = on.count == tracks ? nil : on.sorted().map { $0 + 1 }
            try command(.sectionTracks(n, list))
            say("section \(n) (\(s.name)): track \(t + 1) " + (on.contains(t) ? "sounds" : "is silent"))
        case .cellGroup:
            // The next stored group after the one the track plays, then its own markers again.
            let stored = GroupBank.range.filter { !doc.groups[$0].elements.isEmpty }
            guard !stored.isEmpty else {
                return say("no group is stored: select markers and " + (view.key("group.store") ?? "group store N"), error: true)
            }
            let now = s.plays[t] ?? 0
            let next = stored.first { $0 > now } ?? 0
            try command(.sectionPlay(n, track: t + 1, group: next))
            let silent = s.tracks.map { !$0.contains(t) } ?? false
            say("section \(n) (\(s.name)): track \(t + 1) " + (next == 0 ? "plays its own markers" : "plays group \(next)")
                + (silent ? " (silent here: " + (view.key("song.cell.toggle") ?? "song.cell.toggle") + " makes it sound)" : ""))
        default: break
        }
    }

    /// The BPM typed as digits becomes section j's tempo (`start`) or the end of a ramp from its start.
    func typedBPM(_ end: Bool, section j: Int) throws {
        guard let bpm = Double(view.songDigits), bpm > 0 else {
            return say("type the BPM first (digits), then " + (view.key(end ? "song.bpm.end" : "song.bpm.start") ?? "this key"),
                       error: true)
        }
        view.songDigits = ""
        let doc = session.document, s = doc.song.sections[j], t = doc.transport
        let n = j + 1
        if end {
            let from = t.bpm(atTempo: s.tempo ?? t.tempo)
            try command(.section(n, .ramp(from: from, to: bpm, bpm: true, shape: s.shape)))
            say("section \(n) (\(s.name)): \(Session.bpmText(from))\(Glyphs.set(ascii: view.ascii).arrow)\(Session.bpmText(bpm)) BPM")
        } else if let e = s.tempoEnd, s.tempo != nil {
            try command(.section(n, .ramp(from: bpm, to: t.bpm(atTempo: e), bpm: true, shape: s.shape)))
            say("section \(n) (\(s.name)) starts at \(Session.bpmText(bpm)) BPM")
        } else {
            try command(.section(n, .bpm(bpm)))
            say("section \(n) (\(s.name)): \(Session.bpmText(bpm)) BPM")
        }
    }
}

extension Verb.SongVerb {
    /// The digit a `song.digit.N` verb types.
    var digit: Int? { rawValue.hasPrefix("digit.") ? Int(rawValue.dropFirst(6)) : nil }
}

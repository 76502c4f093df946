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
}

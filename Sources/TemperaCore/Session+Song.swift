/// The song's commands: sections added, changed, moved and deleted, the song on or off. Each is one undo step.
extension Session {
    /// The 0-based index of section `n` (from 1), or an error naming how many there are.
    func sectionIndex(_ n: Int) throws -> Int {
        let count = document.song.sections.count
        guard count > 0 else { throw CommandError("the song has no section: use 'section add'") }
        guard n >= 1, n <= count else {
            throw CommandError("no section \(n) (the song has \(count) section\(count == 1 ? "" : "s"))")
        }
        return n - 1
    }

    func checkRegion(_ a: Double, _ b: Double) throws {
        guard a.isFinite, b.isFinite, a >= 0, b <= CommandParser.maxTime else {
            throw CommandError("a section's region must lie within 0 to 10000000")
        }
        guard b > a else { throw CommandError("a section's region must end after it starts (it is empty)") }
        guard b - a >= Limits.minSpan else {
            throw CommandError("a section's region must be at least \(Limits.seconds(Limits.minSpan)) s long, not \(Limits.seconds(b - a)) s")
        }
    }

    func checkRepeats(_ r: Int) throws {
        guard (1...Song.maxRepeats).contains(r) else {
            throw CommandError("repeats must be from 1 to \(Song.maxRepeats), not \(r)")
        }
    }

    func checkSectionTempo(_ x: Double) throws {
        let range = Transport.tempoRange
        guard x.isFinite, range.contains(x) else {
            throw CommandError("tempo must be between x\(range.lowerBound) and x\(range.upperBound)")
        }
    }

    /// `section 2 (B)`, for messages.
    func sectionLabel(_ j: Int) -> String { "section \(j + 1) (\(document.song.sections[j].name))" }

    func runSectionAdd(name: String?, start: Double?, end: Double?, repeats: Int?, tempo: Double?) throws -> String? {
        var song = document.song
        guard song.sections.count < Song.maxSections else {
            throw CommandError("the song is full (\(Song.maxSections) sections)")
        }
        let transport = document.transport
        let a = start ?? transport.loopStart, b = end ?? transport.loopEnd
        try checkRegion(a, b)
        let r = repeats ?? 1
        try checkRepeats(r)
        if let tempo { try checkSectionTempo(tempo) }
        if let name, let problem = LineParser.nameProblem(name) { throw CommandError("section name: \(problem)") }
        let title = name ?? Song.defaultName(song.sections.count)
        song.sections.append(Song.Section(name: title, start: a, end: b, repeats: r, tempo: tempo))
        try perform("section add") { $0.setSong(song) }
        return "\(sectionLabel(song.sections.count - 1)): \(DocumentFile.number(a))-\(DocumentFile.number(b)) x\(r)"
    }

    func runSection(_ n: Int, _ change: Command.SectionChange) throws -> String? {
        let j = try sectionIndex(n)
        var song = document.song
        let name: String
        switch change {
        case .repeats(let r):
            try checkRepeats(r)
            song.sections[j].repeats = r
            name = "section repeats"
        case .tempo(let x):
            try checkSectionTempo(x)
            song.sections[j].tempo = x
            song.sections[j].tempoEnd = nil
            name = "section tempo"
        case .bpm(let b):
            song.sections[j].tempo = try tempoValue(b, bpm: true)
            song.sections[j].tempoEnd = nil
            name = "section tempo"
        case .ramp(let x, let y, let bpm, let shape):
            let from = try tempoValue(x, bpm: bpm), to = try tempoValue(y, bpm: bpm)
            song.sections[j].tempo = from
            song.sections[j].tempoEnd = from == to ? nil : to
            song.sections[j].shape = shape
            name = "section ramp"
        case .meter(let m):
            if let m { try m.check() }
            song.sections[j].meter = m
            name = "section meter"
        case .region(let a, let b):
            try checkRegion(a, b)
            song.sections[j].start = a
            song.sections[j].end = b
            name = "section region"
        case .name(let title):
            if let problem = LineParser.nameProblem(title) { throw CommandError("section name: \(problem)") }
            song.sections[j].name = title
            name = "rename section"
        case .move(let m):
            guard m >= 1, m <= song.sections.count else {
                throw CommandError("cannot move section \(n) to \(m) (the song has \(song.sections.count) sections)")
            }
            let s = song.sections.remove(at: j)
            song.sections.insert(s, at: m - 1)
            name = "move section"
        case .delete:
            song.sections.remove(at: j)
            name = "delete section"
        case .duplicate:
            guard song.sections.count < Song.maxSections else {
                throw CommandError("the song is full (\(Song.maxSections) sections)")
            }
            song.sections.insert(song.sections[j], at: j + 1)
            name = "duplicate section"
        }
        try perform(name) { $0.setSong(song) }
        return nil
    }

    func runSong(on: Bool) throws -> String? {
        if on && document.song.sections.isEmpty { throw CommandError("the song has no section: use 'section add'") }
        var song = document.song
        song.on = on
        try perform(on ? "song on" : "song off") { $0.setSong(song) }
        return nil
    }

    func runSongLoop(on: Bool) throws -> String? {
        var song = document.song
        song.loop = on
        try perform(on ? "song loop on" : "song loop off") { $0.setSong(song) }
        return nil
    }
}

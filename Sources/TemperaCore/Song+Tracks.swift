/// The song follows the track list: instances and sections' choices name tracks by index, so a change to the
/// list (a track deleted, moved, duplicated or inserted) moves them with their tracks.
extension Song {
    /// The song after the track list changed: `map` takes an old track index to its new one (nil: the track was
    /// deleted). An instance on a deleted track goes with it, and a deleted track leaves the sections' choices.
    /// `copies` maps a new track to the old track it copies: it sounds in the sections where that track sounds.
    public func remappingTracks(_ map: (Int) -> Int?, copies: [Int: Int] = [:]) -> Song {
        var song = self
        song.instances = instances.compactMap { inst in
            guard let t = map(inst.track) else { return nil }
            var inst = inst
            inst.track = t
            return inst
        }
        song.instances.sort { ($0.start, $0.track, $0.group) < ($1.start, $1.track, $1.group) }
        for j in song.sections.indices {
            let s = sections[j]
            if let list = s.tracks {
                var moved = Set(list.compactMap(map))
                for (copy, of) in copies where list.contains(of) { moved.insert(copy) }
                song.sections[j].tracks = moved.sorted()
            }
            var plays: [Int: Int] = [:]
            for (k, g) in s.plays { if let to = map(k) { plays[to] = g } }
            song.sections[j].plays = plays
        }
        return song
    }
}

extension DocumentFile.Decoder {
    /// The song's linked instances: `[[group, start, track, times], ...]`, the track counted from 1.
    static func instances(_ v: JSONValue) throws -> [GroupInstance] {
        let items = try array(v, "instances")
        if items.count > Song.maxInstances { throw v.error("a song holds at most \(Song.maxInstances) linked instances") }
        return try items.map { item in
            let fields = try array(item, "an instance")
            guard fields.count == 4 else { throw item.error("an instance is [group, start, track, times]") }
            let group = try int(fields[0], "an instance's group", GroupBank.range)
            let start = try double(fields[1], "an instance's start", { (0...Limits.maxTime).contains($0) },
                                   "must be from 0 to 10000000")
            let track = try int(fields[2], "an instance's track", 1...Limits.maxTracks)
            let times = try int(fields[3], "an instance's times", 1...GroupInstance.maxTimes)
            return GroupInstance(group: group, start: start, track: track - 1, times: times)
        }
    }

    /// A section's choice: `"tracks": [1, 2]` (from 1) and `"play": [[track, group], ...]`.
    static func choice(_ so: Object, into section: inout Song.Section) throws {
        if let x = so.optional("tracks") {
            let items = try array(x, "a section's tracks")
            if items.count > Limits.maxTracks { throw x.error("a section names at most \(Limits.maxTracks) tracks") }
            section.tracks = Array(Set(try items.map { try int($0, "a section's track", 1...Limits.maxTracks) - 1 })).sorted()
        }
        if let x = so.optional("play") {
            let items = try array(x, "a section's play")
            if items.count > Limits.maxTracks { throw x.error("a section plays at most \(Limits.maxTracks) groups") }
            for item in items {
                let fields = try array(item, "a section's play")
                guard fields.count == 2 else { throw item.error("a section's play is [[track, group], ...]") }
                let k = try int(fields[0], "a played track", 1...Limits.maxTracks)
                section.plays[k - 1] = try int(fields[1], "a played group", GroupBank.range)
            }
        }
    }
}

extension DocumentFile {
    /// A section's choice as written: `, "tracks": [1, 2], "play": [[3, 1]]`, each only when set.
    static func choice(_ s: Song.Section) -> String {
        var out = ""
        if let t = s.tracks { out += ", \"tracks\": [" + t.map { String($0 + 1) }.joined(separator: ", ") + "]" }
        if !s.plays.isEmpty {
            out += ", \"play\": [" + s.plays.sorted { $0.key < $1.key }.map { "[\($0.key + 1), \($0.value)]" }
                .joined(separator: ", ") + "]"
        }
        return out
    }
}

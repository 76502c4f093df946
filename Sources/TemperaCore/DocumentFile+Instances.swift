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
}

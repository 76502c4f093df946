extension DocumentFile {
    /// Turns a parsed JSON tree into a `Document`, checking every type and range; each error names the line
    /// and column of the offending value.
    enum Decoder {
        /// An object's fields, checked against the names its part of the format allows.
        struct Object {
            let value: JSONValue
            let members: [(key: String, value: JSONValue)]

            init(_ v: JSONValue, _ what: String, allowed: [String]) throws {
                guard case .object(let m) = v.kind else { throw v.error("\(what) must be an object, found \(v.typeName)") }
                for (i, member) in m.enumerated() {
                    guard allowed.contains(member.key) else {
                        throw member.value.error("unknown field '\(member.key)' in \(what) (known: "
                            + allowed.joined(separator: ", ") + ")")
                    }
                    for j in 0..<i where m[j].key == member.key {
                        throw member.value.error("'\(member.key)' is given twice in \(what)")
                    }
                }
                value = v
                members = m
            }

            subscript(key: String) -> JSONValue? {
                for member in members where member.key == key { return member.value }
                return nil
            }

            /// A field that may be absent or null.
            func optional(_ key: String) -> JSONValue? {
                guard let v = self[key] else { return nil }
                if case .null = v.kind { return nil }
                return v
            }

            func required(_ key: String, in what: String) throws -> JSONValue {
                guard let v = self[key] else { throw value.error("\(what) has no '\(key)'") }
                return v
            }
        }

        static func array(_ v: JSONValue, _ name: String) throws -> [JSONValue] {
            guard case .array(let items) = v.kind else { throw v.error("\(name) must be a list, found \(v.typeName)") }
            return items
        }

        static func double(_ v: JSONValue, _ name: String) throws -> Double {
            guard case .number(let d, _) = v.kind else { throw v.error("\(name) must be a number, found \(v.typeName)") }
            guard d.isFinite else { throw v.error("\(name) is out of range") }
            return d
        }

        static func double(_ v: JSONValue, _ name: String, _ valid: (Double) -> Bool, _ requirement: String) throws -> Double {
            let d = try double(v, name)
            guard valid(d) else { throw v.error("\(name) \(requirement), not \(number(d))") }
            return d
        }

        static func int(_ v: JSONValue, _ name: String, _ range: ClosedRange<Int>) throws -> Int {
            let d = try double(v, name)
            // Double(Int.max) rounds up to 2^63, which Int cannot hold: compare below it.
            let fits = range.upperBound == Int.max ? d < 0x1p63 : d <= Double(range.upperBound)
            guard d == d.rounded(), d >= Double(range.lowerBound), fits else {
                let bounds = range.upperBound == Int.max ? "a whole number from \(range.lowerBound)"
                    : "a whole number from \(range.lowerBound) to \(range.upperBound)"
                throw v.error("\(name) must be \(bounds), not \(number(d))")
            }
            return Int(d)
        }

        static func bool(_ v: JSONValue, _ name: String) throws -> Bool {
            guard case .bool(let b) = v.kind else { throw v.error("\(name) must be true or false, found \(v.typeName)") }
            return b
        }

        static func string(_ v: JSONValue, _ name: String) throws -> String {
            guard case .string(let s) = v.kind else { throw v.error("\(name) must be a string, found \(v.typeName)") }
            return s
        }

        static func amp(_ v: JSONValue?) throws -> Double? {
            try v.map { try double($0, "amp", { (0...1).contains($0) }, "must be from 0 to 1") }
        }

        static func content(_ v: JSONValue?) throws -> Content? {
            guard let v else { return nil }
            switch v.kind {
            case .null: return nil
            case .number(let d, _):
                if d == d.rounded(), d >= 1, d <= 16 { return .clip(Int(d)) }
                throw v.error("clip must be 1-16, \"+\", \"-\" or \"?\", not \(number(d))")
            case .string(let s):
                if let c = Content(code: s), s == "+" || s == "-" || s == "?" { return c }
                throw v.error("clip must be 1-16, \"+\", \"-\" or \"?\", not \"\(s)\"")
            default:
                throw v.error("clip must be 1-16, \"+\", \"-\" or \"?\", found \(v.typeName)")
            }
        }

        static let gainRange = 0.0...16.0
        static let maxTime = Limits.maxTime
        static let msRange = 0.0...60_000.0

        static func document(_ root: JSONValue) throws -> Document {
            guard case .object(let members) = root.kind else {
                throw root.error("a tempera document is a JSON object, found \(root.typeName)")
            }
            // The version first: a newer file is refused as newer, not for the fields this version lacks.
            guard let version = members.first(where: { $0.key == versionKey || $0.key == "version" })?.value else {
                throw root.error("not a tempera document (no \"\(versionKey)\" version field)")
            }
            let v = try int(version, "the format version", 0...Int.max)
            if v > Document.formatVersion {
                throw version.error("this file was written by a newer tempera (format \(v); this one reads up to "
                    + "\(Document.formatVersion))")
            }
            if v < 1 { throw version.error("unknown format version \(v)") }

            let o = try Object(root, "the document", allowed: [versionKey, "version", "seed", "pattern", "transport",
                                                                "time", "song", "designer", "slots", "groups", "tracks"])
            var doc = Document(tracks: [])
            if let s = o.optional("seed") {
                guard case .number(let d, let text) = s.kind,
                      let seed = text.flatMap({ UInt64($0) }) ?? (d >= 0 && d == d.rounded() && d < 0x1p64 ? UInt64(d) : nil)
                else {
                    throw s.error("seed must be a whole number from 0 to \(UInt64.max)")
                }
                doc.seed = seed
            }
            if let p = o.optional("pattern") { doc.pattern = try string(p, "pattern") }
            if let t = o.optional("transport") { doc.transport = try transport(t) }
            if let t = o.optional("time") { try musicalTime(t, into: &doc.transport) }
            if let s = o.optional("song") { doc.song = try song(s) }
            if let d = o.optional("designer") { doc.designer = try designer(d) }
            if let s = o.optional("slots") { doc.slots = try slots(s) }
            if let g = o.optional("groups") { doc.groups = try groups(g) }
            // Marker ids are numbered afresh in file order, across tracks, as `Document.init` numbers them; each
            // track's list is built once.
            var nextID: MarkerID = 0
            doc.tracks = try o.optional("tracks").map { try self.tracks($0, nextID: &nextID) } ?? []
            if let problem = Limits.cycleProblem(doc.tracks), let t = o.optional("tracks") {
                throw t.error("the tracks " + problem)
            }
            doc.nextMarkerID = nextID
            return doc
        }

        static func transport(_ v: JSONValue) throws -> Transport {
            let o = try Object(v, "transport", allowed: ["tempo", "volume", "length", "loop"])
            var t = Transport()
            let range = Transport.tempoRange
            if let x = o.optional("tempo") {
                t.tempo = try double(x, "tempo", { range.contains($0) },
                                     "must be from \(number(range.lowerBound)) to \(number(range.upperBound))")
            }
            if let x = o.optional("volume") { t.volume = try double(x, "volume", { (0...1).contains($0) }, "must be from 0 to 1") }
            if let x = o.optional("length") { t.length = try double(x, "length", { $0 > 0 && $0 <= maxTime },
                                                                     "must be greater than 0 and at most 10000000") }
            if let l = o.optional("loop") {
                let lo = try Object(l, "loop", allowed: ["on", "start", "end"])
                if let x = lo.optional("on") { t.loopOn = try bool(x, "loop on") }
                if let x = lo.optional("start") { t.loopStart = try double(x, "loop start", { (0...maxTime).contains($0) },
                                                                          "must be from 0 to 10000000") }
                if let x = lo.optional("end") {
                    let start = t.loopStart
                    t.loopEnd = try double(x, "loop end", { $0 > start && $0 <= maxTime }, "must be after the loop start (\(number(start)))")
                } else if t.loopEnd <= t.loopStart {
                    throw l.error("the loop must end after it starts")
                }
                do { try Limits.checkLoop(t.loopStart, t.loopEnd) } catch let e as CommandError { throw l.error(e.message) }
            }
            return t
        }

        /// The song: optional (an older file has none and loads with an empty song, off).
        static func song(_ v: JSONValue) throws -> Song {
            let o = try Object(v, "song", allowed: ["on", "loop", "sections", "instances"])
            var song = Song()
            if let x = o.optional("on") { song.on = try bool(x, "song on") }
            if let x = o.optional("loop") { song.loop = try bool(x, "song loop") }
            if let x = o.optional("sections") {
                let items = try array(x, "sections")
                if items.count > Song.maxSections { throw x.error("a song holds at most \(Song.maxSections) sections") }
                for item in items {
                    let so = try Object(item, "a section",
                                        allowed: ["name", "start", "end", "repeats", "tempo", "tempoend", "shape", "meter",
                                                  "tracks", "play"])
                    let name = try string(try so.required("name", in: "a section"), "name")
                    if let problem = LineParser.nameProblem(name) { throw item.error("section name: \(problem)") }
                    let start = try double(try so.required("start", in: "a section"), "start",
                                           { (0...maxTime).contains($0) }, "must be from 0 to 10000000")
                    let end = try double(try so.required("end", in: "a section"), "end",
                                         { $0 > start && $0 <= maxTime }, "must be after the section's start (\(number(start)))")
                    if end - start < Limits.minSpan {
                        throw item.error("a section's region must be at least \(Limits.seconds(Limits.minSpan)) s long, "
                            + "not \(Limits.seconds(end - start)) s")
                    }
                    var section = Song.Section(name: name, start: start, end: end)
                    if let r = so.optional("repeats") { section.repeats = try int(r, "repeats", 1...Song.maxRepeats) }
                    if let t = so.optional("tempo") {
                        let range = Transport.tempoRange
                        section.tempo = try double(t, "tempo", { range.contains($0) },
                                                   "must be from \(number(range.lowerBound)) to \(number(range.upperBound))")
                    }
                    if let t = so.optional("tempoend") {
                        guard section.tempo != nil else { throw t.error("a section's tempoend needs its tempo") }
                        let range = Transport.tempoRange
                        section.tempoEnd = try double(t, "tempoend", { range.contains($0) },
                                                      "must be from \(number(range.lowerBound)) to \(number(range.upperBound))")
                    }
                    if let x = so.optional("shape") {
                        let name = try string(x, "shape")
                        guard let shape = TempoMap.Shape(rawValue: name), shape != .step else {
                            throw x.error("a section's shape is linear or exp, not '\(name)'")
                        }
                        section.shape = shape
                    }
                    if let x = so.optional("meter") { section.meter = try meter(x) }
                    try choice(so, into: &section)
                    song.sections.append(section)
                }
            }
            if let x = o.optional("instances") { song.instances = try instances(x) }
            return song
        }

        /// The `time` object: beat, meter, grid, click and count-in, each optional.
        static func musicalTime(_ v: JSONValue, into t: inout Transport) throws {
            let o = try Object(v, "time", allowed: ["beat", "meter", "grid", "click", "countin", "tempomap"])
            let beats = Transport.beatRange
            if let x = o.optional("beat") {
                t.beat = try double(x, "beat", { beats.contains($0) },
                                    "must be from \(number(beats.lowerBound)) to \(number(beats.upperBound)) seconds")
            }
            if let x = o.optional("meter") { t.signature = try meter(x) }
            if let x = o.optional("grid") {
                if case .null = x.kind { t.grid = nil } else { t.grid = try int(x, "grid", Transport.gridRange) }
            }
            if let c = o.optional("click") {
                let co = try Object(c, "click", allowed: ["on", "level"])
                if let x = co.optional("on") { t.click = try bool(x, "click on") }
                if let x = co.optional("level") { t.clickLevel = try double(x, "click level", { (0...1).contains($0) }, "must be from 0 to 1") }
            }
            if let x = o.optional("countin") { t.countIn = try int(x, "countin", Transport.countInRange) }
            if let x = o.optional("tempomap") { t.tempoMap = try tempoMap(x) }
        }

        /// The tempo map: `[[time, tempo, "shape"], ...]`, times ascending.
        static func tempoMap(_ v: JSONValue) throws -> TempoMap {
            let items = try array(v, "tempomap")
            if items.count > TempoMap.maxPoints { throw v.error("a tempo map holds at most \(TempoMap.maxPoints) points") }
            var points: [TempoMap.Point] = []
            let range = Transport.tempoRange
            for item in items {
                let p = try array(item, "a tempo point")
                guard p.count == 3 else { throw item.error("a tempo point is [time, tempo, \"shape\"]") }
                let time = try double(p[0], "time", { (0...maxTime).contains($0) }, "must be from 0 to 10000000")
                if let last = points.last, time <= last.time { throw p[0].error("tempo points must be in time order, each once") }
                let tempo = try double(p[1], "tempo", { range.contains($0) },
                                       "must be from \(number(range.lowerBound)) to \(number(range.upperBound))")
                let name = try string(p[2], "shape")
                guard let shape = TempoMap.Shape(rawValue: name) else {
                    throw p[2].error("a tempo point's shape is step, linear or exp, not '\(name)'")
                }
                points.append(TempoMap.Point(time: time, tempo: tempo, shape: shape))
            }
            return TempoMap(points)
        }

        static func row(_ v: JSONValue, _ name: String) throws -> Temperament.Row {
            let o = try Object(v, name, allowed: ["division", "beats", "amps"])
            let division = try int(try o.required("division", in: name), "\(name) division", 1...CommandParser.maxDivision)
            var beats = Array(0..<division)
            if let b = o.optional("beats") {
                beats = []
                for item in try array(b, "\(name) beats") {
                    let beat = try int(item, "beat", 0...(division - 1))
                    if let last = beats.last, beat <= last { throw item.error("beats must be ascending, each once") }
                    beats.append(beat)
                }
            }
            var amps: [Double]?
            if let a = o.optional("amps") {
                let items = try array(a, "\(name) amps")
                guard items.count == division else {
                    throw a.error("\(name) amps must have \(division) values (one per pulse), not \(items.count)")
                }
                amps = try items.map { try double($0, "amp", { (0...1).contains($0) }, "must be from 0 to 1") }
            }
            return Temperament.Row(division: division, beats: beats, amps: amps)
        }

        static func designer(_ v: JSONValue) throws -> Temperament {
            let o = try Object(v, "designer", allowed: ["span", "slider", "map", "top", "bottom"])
            var d = Document.defaultDesigner
            if let x = o.optional("span") {
                d.span = try double(x, "span", { $0 > 0 && $0 <= maxTime }, "must be greater than 0 and at most 10000000")
            }
            if let x = o.optional("slider") {
                let r = Limits.sliderRange
                d.slider = try double(x, "slider", { r.contains($0) }, "must be from \(number(r.lowerBound)) to \(number(r.upperBound))")
            }
            if let x = o.optional("top") { d.top = try row(x, "top") }
            if let x = o.optional("bottom") { d.bottom = try row(x, "bottom") }
            d.map = nil
            if let m = o.optional("map") {
                d.map = try array(m, "map").map { pair in
                    let ends = try array(pair, "a mapping")
                    guard ends.count == 2 else { throw pair.error("a mapping is [top beat, bottom beat]") }
                    return Temperament.Pair(top: try int(ends[0], "top beat", 0...(d.top.division - 1)),
                                            bottom: try int(ends[1], "bottom beat", 0...(d.bottom.division - 1)))
                }
            }
            return d
        }

        static func slots(_ v: JSONValue) throws -> [ClipSlot] {
            var slots = Array(repeating: ClipSlot(), count: ClipSlot.count)
            var seen = Set<Int>()
            for item in try array(v, "slots") {
                let o = try Object(item, "a slot", allowed: ["slot", "name", "file", "note", "gain", "mode", "attack",
                                                             "decay", "release", "sf2", "program", "bank", "pan", "choke",
                                                             "layers", "midi", "midi_note", "midi_in"])
                let numberValue = try o.required("slot", in: "a slot")
                let n = try int(numberValue, "slot", ClipSlot.range)
                if !seen.insert(n).inserted { throw numberValue.error("slot \(n) is given twice") }
                var s = ClipSlot()
                if let x = o.optional("name") { s.name = try string(x, "name") }
                if let x = o.optional("file") { s.file = try string(x, "file") }
                if let x = o.optional("note") { s.note = try int(x, "note", 0...127) }
                if let x = o.optional("sf2") {
                    s.soundFont = try string(x, "sf2")
                    if s.note == nil { throw x.error("a SoundFont slot needs a \"note\"") }
                }
                if let x = o.optional("program") { s.program = try int(x, "program", ClipSlot.programRange) }
                if let x = o.optional("bank") { s.bank = try int(x, "bank", ClipSlot.bankRange) }
                if let x = o.optional("gain") { s.gain = try double(x, "gain", { gainRange.contains($0) }, "must be from 0 to 16") }
                if let x = o.optional("mode") {
                    let text = try string(x, "mode")
                    guard let mode = ClipSlot.Mode(rawValue: text) else {
                        throw x.error("mode must be \"oneshot\" or \"gate\", not \"\(text)\"")
                    }
                    s.mode = mode
                }
                let ms = { (x: JSONValue, name: String) in
                    try double(x, name, { msRange.contains($0) }, "must be from 0 to 60000 ms")
                }
                if let x = o.optional("attack") { s.attack = try ms(x, "attack") }
                if let x = o.optional("decay") { s.decay = try ms(x, "decay") }
                if let x = o.optional("release") { s.release = try ms(x, "release") }
                if let x = o.optional("pan") { s.pan = try double(x, "pan", { (-1...1).contains($0) }, "must be from -1 to 1") }
                if let x = o.optional("choke") { s.choke = try int(x, "choke", 0...ClipSlot.chokeGroups.upperBound) }
                if let x = o.optional("midi") { s.midiChannel = try int(x, "midi", 1...16) }
                if let x = o.optional("midi_note") {
                    if s.midiChannel == nil { throw x.error("\"midi_note\" needs a \"midi\" channel") }
                    s.midiNote = try int(x, "midi_note", 0...127)
                }
                if let x = o.optional("midi_in") { s.midiInNote = try int(x, "midi_in", 0...127) }
                if let x = o.optional("layers") {
                    s.layers = try array(x, "layers").map { item in
                        let lo = try Object(item, "a layer", allowed: ["file", "min", "max", "gain", "pitch"])
                        let file = try string(try lo.required("file", in: "a layer"), "layer file")
                        var layer = ClipSlot.Layer(file: file)
                        let unit = { (v: JSONValue, name: String) in
                            try double(v, name, { (0...1).contains($0) }, "must be from 0 to 1")
                        }
                        if let v = lo.optional("min") { layer.min = try unit(v, "layer min") }
                        if let v = lo.optional("max") {
                            let low = layer.min
                            layer.max = try double(v, "layer max", { $0 >= low && $0 <= 1 }, "must be from min (\(number(low))) to 1")
                        } else if layer.max < layer.min {
                            throw item.error("a layer's max must not be below its min")
                        }
                        if let v = lo.optional("gain") { layer.gain = try double(v, "layer gain", { gainRange.contains($0) }, "must be from 0 to 16") }
                        if let v = lo.optional("pitch") { layer.pitch = try double(v, "layer pitch", { (-48...48).contains($0) }, "must be from -48 to 48 semitones") }
                        return layer
                    }
                }
                slots[n - 1] = s
            }
            return slots
        }

        static func groups(_ v: JSONValue) throws -> GroupBank {
            var bank = GroupBank()
            var seen = Set<Int>()
            for item in try array(v, "groups") {
                let o = try Object(item, "a group", allowed: ["group", "span", "elements", "groove"])
                let numberValue = try o.required("group", in: "a group")
                let n = try int(numberValue, "group", GroupBank.range)
                if !seen.insert(n).inserted { throw numberValue.error("group \(n) is given twice") }
                var g = Group()
                if let x = o.optional("elements") {
                    g.elements = try array(x, "elements").map { e in
                        let eo = try Object(e, "a group element", allowed: ["offset", "track", "amp", "clip"] + MarkerExtras.keys)
                        let offset = try double(try eo.required("offset", in: "a group element"), "offset",
                                                { (0...maxTime).contains($0) }, "must be from 0 to 10000000")
                        let track = try eo.optional("track").map { try int($0, "track", 0...Int(Int32.max)) } ?? 0
                        var extras = MarkerExtras()
                        for key in MarkerExtras.keys { if let x = eo[key] { try extra(key, x, into: &extras) } }
                        return GroupElement(offset: offset, trackOffset: track, amp: try self.amp(eo.optional("amp")) ?? 0.8,
                                            content: try content(eo["clip"]), extras: extras)
                    }
                }
                if let x = o.optional("groove") { g.groove = try groove(x) }
                let last = g.elements.map(\.offset).max() ?? 0
                if let x = o.optional("span") {
                    g.span = try double(x, "span", { $0 >= last && $0 <= maxTime }, "must be at least the last offset (\(number(last)))")
                } else {
                    g.span = last
                }
                bank[n] = g
            }
            return bank
        }

        /// A group's groove: `{"grid": G, "step": SECONDS, "offsets": [...], "amps": [...]}`, nulls for empty steps.
        static func groove(_ v: JSONValue) throws -> Groove {
            let o = try Object(v, "a groove", allowed: ["grid", "step", "offsets", "amps"])
            let steps = try int(try o.required("grid", in: "a groove"), "grid", 1...CommandParser.maxQuantize)
            let step = try double(try o.required("step", in: "a groove"), "step", { $0 > 0 && $0 <= maxTime },
                                  "must be greater than 0")
            let offsets = try array(try o.required("offsets", in: "a groove"), "offsets").map { x -> Double? in
                if case .null = x.kind { return nil }
                return try double(x, "offset", { abs($0) <= maxTime }, "must be at most 10000000 either way")
            }
            let amps = try array(try o.required("amps", in: "a groove"), "amps").map { x -> Double? in
                if case .null = x.kind { return nil }
                return try amp(x)
            }
            guard offsets.count == amps.count, !offsets.isEmpty, offsets.count <= Limits.maxAddedMarkers else {
                throw v.error("a groove needs as many offsets as amps (at least one)")
            }
            return Groove(steps: steps, step: step, offsets: offsets, amps: amps)
        }

        static func tracks(_ v: JSONValue, nextID: inout MarkerID) throws -> [Track] {
            let items = try array(v, "tracks")
            if items.count > Limits.maxTracks {
                throw v.error("the document has \(Limits.count(items.count)) tracks; a document holds at most "
                    + Limits.count(Limits.maxTracks))
            }
            return try items.map { item in
                let o = try Object(item, "a track", allowed: ["name", "gain", "mute", "solo", "cycle", "ratio", "markers"])
                var track = Track(name: "")
                if let x = o.optional("name") { track.name = try string(x, "name") }
                if let x = o.optional("gain") { track.gain = try double(x, "gain", { gainRange.contains($0) }, "must be from 0 to 16") }
                if let x = o.optional("mute") { track.mute = try bool(x, "mute") }
                if let x = o.optional("solo") { track.solo = try bool(x, "solo") }
                if let x = o.optional("cycle") {
                    let c = try array(x, "cycle")
                    guard c.count == 2 else { throw x.error("a track's cycle is [start, end]") }
                    let a = try double(c[0], "cycle start", { (0...maxTime).contains($0) }, "must be from 0 to 10000000")
                    let b = try double(c[1], "cycle end", { $0 > a && $0 <= maxTime }, "must be after the cycle's start")
                    track.cycle = Track.Cycle(start: a, end: b)
                }
                if let x = o.optional("ratio") {
                    let text = try string(x, "ratio")
                    guard let r = try? Expression.evaluate(text), Track.ratioRange.contains(r) else {
                        throw x.error("a track's ratio is an expression from 1/64 to 64 (18/17, sqrt(2)), not '\(text)'")
                    }
                    track.ratioText = text
                    track.ratio = r
                }
                if let x = o.optional("markers"), case .markerList(let read) = x.kind {
                    // Read in order with the ids a document numbers them by (see `.markers` below).
                    if read.first.map({ $0.id == nextID }) ?? true {
                        track.markers = read
                    } else {
                        let base = read[0].id
                        track.markers = MarkerList(read.map { m in
                            var m = m
                            m.id = nextID &+ (m.id &- base)
                            return m
                        })
                    }
                    nextID += MarkerID(read.count)
                } else if let x = o.optional("markers"), case .markers(let read) = x.kind {
                    // The reader numbers markers on from list to list, so in a file the tracks read in order
                    // their ids are already right.
                    if read.first.map({ $0.id == nextID }) ?? true {
                        track.markers = MarkerList(read)
                    } else {
                        let base = read[0].id
                        track.markers = MarkerList(read.map { m in
                            var m = m
                            m.id = nextID &+ (m.id &- base)
                            return m
                        })
                    }
                    nextID += MarkerID(read.count)
                } else if let x = o.optional("markers") {
                    let items = try array(x, "markers")
                    var markers: [Marker] = []
                    markers.reserveCapacity(items.count)
                    for m in items {
                        markers.append(try marker(m, id: nextID))
                        nextID += 1
                    }
                    track.markers = MarkerList(markers)
                }
                if Int(nextID) > Limits.maxMarkers {
                    throw (o.optional("markers") ?? item).error("the document has more than "
                        + "\(Limits.count(Limits.maxMarkers)) markers, the most a document holds")
                }
                return track
            }
        }

        static func marker(_ v: JSONValue, id: MarkerID) throws -> Marker {
            guard case .object(let members) = v.kind else { throw v.error("a marker must be an object, found \(v.typeName)") }
            var time: Double?, amp: Double = 0.8, content: Content?, extras = MarkerExtras()
            for (i, member) in members.enumerated() {
                for j in 0..<i where members[j].key == member.key {
                    throw member.value.error("'\(member.key)' is given twice in a marker")
                }
                switch member.key {
                case "t": time = try double(member.value, "time", { (0...maxTime).contains($0) }, "must be from 0 to 10000000")
                case "amp": amp = try self.amp(member.value) ?? 0.8
                case "clip": content = try self.content(member.value)
                case "p", "rep", "repspan", "from", "to": try extra(member.key, member.value, into: &extras)
                default: throw member.value.error("unknown field '\(member.key)' in a marker (known: t, amp, clip, p, rep, repspan, from, to)")
                }
            }
            guard let time else { throw v.error("a marker has no time 't'") }
            var m = Marker(id: id, time: time, amp: amp, content: content)
            m.extras = extras
            return m
        }

        /// One of a marker's step-sequencer fields (`MarkerExtras.keys`), checked.
        static func extra(_ key: String, _ v: JSONValue, into extras: inout MarkerExtras) throws {
            switch key {
            case "p": extras.p = try double(v, "p", { (0...1).contains($0) }, "must be from 0 to 1")
            case "rep": extras.rep = try int(v, "rep", MarkerExtras.repRange)
            case "repspan":
                extras.repSpan = try double(v, "repspan", { $0 > 0 && $0 <= maxTime }, "must be greater than 0 and at most 10000000")
            case "to": extras.to = try double(v, "to", { (0...maxTime).contains($0) }, "must be from 0 to 10000000")
            default: extras.from = try double(v, "from", { (0...maxTime).contains($0) }, "must be from 0 to 10000000")
            }
        }
    }
}

/// What playing the song does: the events of each distinct region of its sections, and the
/// timing that puts pass k of section j, song pass m, on its exact frame. Sections that share a region share its
/// events (when they also choose the same tracks and groups), so A B A C compiles three regions.
///
/// Immutable once built; safe to read from any thread.
public struct SongSchedule: Sendable {
    /// One onset as `tempera events --song` prints it.
    public struct Onset: Sendable, Equatable {
        /// The pass of the whole song, from 0.
        public var loop: Int
        /// From 1.
        public var section: Int
        /// The pass of the section, from 0.
        public var pass: Int
        /// From 1.
        public var track: Int
        public var clip: Int
        public var amp: Double
        public var time: Double
        public var frame: Int64
    }

    public let timing: SongTiming
    public let sampleRate: Double
    public let seed: UInt64
    public let randomPool: UInt16
    /// The events of each distinct region, times after the region's start.
    public let regionEvents: [[Schedule.Event]]
    /// The tracks with their own cycle or ratio over each distinct region.
    public let regionCycles: [[CycleTrack]]
    /// For each section, the index of its region in `regionEvents`.
    public let sectionRegion: [Int]

    /// Compiles the song of `doc` (its sections may be empty: then nothing plays).
    public init(document: Document, sampleRate: Double) {
        let doc = document.expandingInstances()
        timing = SongTiming(song: doc.song, tempo: doc.transport.tempo, map: doc.transport.tempoMap)
        self.sampleRate = sampleRate
        seed = doc.seed
        randomPool = Schedule.randomPool(of: doc.slots)
        let gains = Schedule.trackGains(of: doc.tracks)
        var regions: [Region: Int] = [:]
        var lists: [[Schedule.Event]] = []
        var cycles: [[CycleTrack]] = []
        var map: [Int] = []
        for s in doc.song.sections {
            let key = Region(start: s.start, end: s.end, choice: s.choice)
            if let r = regions[key] {
                map.append(r)
            } else {
                regions[key] = lists.count
                map.append(lists.count)
                let played = doc.playing(s)
                lists.append(Schedule.events(of: played.tracks, gains: gains, start: s.start, end: s.end))
                cycles.append(CycleTrack.of(played.tracks, gains: gains, start: s.start, end: s.end))
            }
        }
        regionEvents = lists
        regionCycles = cycles
        sectionRegion = map
    }

    /// A region of the timeline with what its section chooses to play there (`Song.Section.choice`), as a key.
    public struct Region: Hashable, Sendable {
        public var start: Double
        public var end: Double
        public var choice: Song.Choice?
        public init(start: Double, end: Double, choice: Song.Choice? = nil) {
            self.start = start
            self.end = end
            self.choice = choice
        }
    }

    /// The sample frame of pass k of section j (from 0), song pass m, time `time` after the region's start.
    public func frame(songPass m: Int, section j: Int, pass k: Int, time: Double) -> Int64 {
        Int64((timing.time(songPass: m, section: j, pass: k, time: time) * sampleRate).rounded())
    }

    /// The frames one pass of the whole song takes: where song pass 1 starts.
    public var songFrames: Int64 { Int64((timing.total * sampleRate).rounded()) }

    /// The onsets of song pass m, in order: section by section, pass by pass.
    public func onsets(songPass m: Int) -> [Onset] {
        var out: [Onset] = []
        for j in timing.sections.indices {
            let s = timing.sections[j]
            let events = regionEvents[sectionRegion[j]], cycles = regionCycles[sectionRegion[j]]
            for k in 0..<s.repeats {
                let draw = timing.drawPass(songPass: m, section: j, pass: k)
                let limit = Double(s.repeats) * s.span
                for e in CycleTrack.merged(events, cycles, pass: k, span: s.span, limit: limit) where e.kind == .onset
                    && Schedule.sounds(probability: e.probability, seed: seed, key: e.randomKey, pass: draw) {
                    let time = timing.time(songPass: m, section: j, pass: k, time: e.time)
                    let clip = e.clip != 0 ? e.clip
                        : Schedule.randomClip(seed: seed, pool: randomPool, key: e.randomKey, pass: draw)
                    out.append(Onset(loop: m, section: j + 1, pass: k, track: e.track + 1, clip: clip, amp: e.amp,
                                     time: time, frame: Int64((time * sampleRate).rounded())))
                }
            }
        }
        return out
    }
}

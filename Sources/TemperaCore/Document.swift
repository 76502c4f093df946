/// Everything a tempera file holds: tracks, clip slots, groups, the rhythm designer, transport settings.
public struct Document: Hashable, Sendable {
    /// The file format's version; a file with a higher one is refused rather than misread.
    /// 2: the song may hold linked instances of groups (a file of version 1 reads as it always did).
    public static let formatVersion = 2

    public var tracks: [Track]
    /// Exactly 16 slots; `slots[0]` is slot 1.
    public var slots: [ClipSlot]
    public var groups: GroupBank
    public var designer: Temperament
    public var transport: Transport
    /// The song: sections of the timeline chained into a piece (empty and off unless made).
    public var song = Song()
    /// The pattern code last used, shown in the pattern area.
    public var pattern: String
    /// Seeds every random choice (`?` clips, random selection) so a document always plays the same way.
    public var seed: UInt64
    /// The next unused marker id.
    public var nextMarkerID: MarkerID

    public init(tracks: [Track] = [], slots: [ClipSlot] = Document.defaultKit, groups: GroupBank = GroupBank(),
                designer: Temperament = Document.defaultDesigner, transport: Transport = Transport(),
                pattern: String = "", seed: UInt64 = 0x7e3b_2a91) {
        self.tracks = tracks
        self.slots = slots
        self.groups = groups
        self.designer = designer
        self.transport = transport
        self.pattern = pattern
        self.seed = seed
        self.nextMarkerID = 0
        // Markers built outside a document may carry any ids: renumber so ids are unique.
        for t in self.tracks.indices {
            let old = self.tracks[t].markers
            self.tracks[t].markers = MarkerList(old.map { m in
                var m = m
                m.id = self.nextMarkerID
                self.nextMarkerID += 1
                return m
            })
        }
    }

    /// Hands out a fresh marker id.
    public mutating func makeMarkerID() -> MarkerID {
        defer { nextMarkerID += 1 }
        return nextMarkerID
    }

    /// Slot `n`, counted from 1.
    public func slot(_ n: Int) -> ClipSlot { slots[n - 1] }

    /// The default kit's sample names, in slot order; files live in `Samples/` as `NAME.wav`.
    public static let kitNames = ["kick", "snare", "closed-hat", "open-hat", "clap", "rim", "low-tom", "mid-tom",
                                  "high-tom", "cowbell", "shaker", "ride", "crash", "clave", "woodblock", "conga"]

    /// Slots 1...16 filled with the default kit.
    public static var defaultKit: [ClipSlot] {
        kitNames.map { name in
            let open = name == "open-hat" || name == "crash" || name == "ride"
            return ClipSlot(name: name, file: "kit/\(name).wav", release: open ? 60 : 20)
        }
    }

    /// The designer's starting point: the paper's 5 against 7 (see `TemperamentPreset.fiveSeven`).
    public static var defaultDesigner: Temperament { TemperamentPreset.fiveSeven.temperament }

    /// A new document: never a blank page. Four tracks of 16 even markers over two seconds (a bar of 4/4 at
    /// 120 BPM in sixteenths), kit loaded, the cursor grid on sixteenths.
    public static func newDocument() -> Document {
        let names = ["kick", "snare", "hat", "perc"]
        let tracks: [Track] = names.map { (name: String) -> Track in
            let markers: [Marker] = (0..<16).map { (i: Int) -> Marker in
                Marker(id: MarkerID(i), time: Double(i) * 0.125, amp: i % 4 == 0 ? 0.9 : 0.6)
            }
            return Track(name: name, markers: MarkerList(markers))
        }
        var doc = Document(tracks: tracks)
        doc.transport.grid = 4
        return doc
    }

    /// The document `tempera` opens with no file: a loop that plays at once and shows off uneven time.
    /// Kick and snare on a straight grid, a hat line swung towards triplets, a Tigrigna-style five on the
    /// percussion, and a sqrt(2) pulse against it in the spirit of Nancarrow.
    public static func demo() -> Document {
        func line(_ name: String, _ items: [(Double, Double, Content?)]) -> Track {
            // Ids only need to be distinct here: the document renumbers them.
            Track(name: name, markers: MarkerList(items.enumerated().map { i, x in
                Marker(id: MarkerID(i), time: x.0, amp: x.1, content: x.2)
            }))
        }
        let kick = line("kick", [(0, 1, .clip(1)), (0.5, 0.5, nil), (0.75, 0.8, .clip(1)), (1, 0.9, .clip(1)),
                                  (1.5, 0.5, nil), (1.625, 0.7, .clip(1))])
        let snare = line("snare", [(0.5, 0.9, .clip(2)), (1.5, 0.9, .clip(2)), (1.875, 0.35, .clip(6))])
        // Eighths swung 2:1 (the off-beat moved to the last triplet eighth).
        var hats: [(Double, Double, Content?)] = []
        for beat in 0..<8 {
            let t = Double(beat) * 0.25
            hats.append((t, 0.7, .clip(3)))
            hats.append((t + 0.25 * 2 / 3, 0.4, beat == 7 ? .clip(4) : .clip(3)))
        }
        let hat = line("hat", hats)
        // Tigrigna five over one second: three triplet eighths then two eighths, moved halfway to even fives.
        var five: [(Double, Double, Content?)] = []
        let tri: [Double] = [0, 1.0 / 6, 2.0 / 6, 0.5, 0.75]
        for bar in 0..<2 {
            for (k, t) in tri.enumerated() {
                let even = Double(k) / 5
                five.append((Double(bar) + (t + even) / 2, k == 0 ? 0.9 : 0.55, k == 0 ? .clip(16) : .clip(14)))
            }
        }
        let perc = line("perc", five)
        // A pulse of sqrt(2)/4 s against the two-second loop.
        let period = 2.0.squareRoot() / 4
        let canon = line("canon", (0..<5).map { i in (Double(i) * period, 0.45, Content.clip(10)) })
        var doc = Document(tracks: [kick, snare, hat, perc, canon])
        doc.pattern = "1 - 3x2 +"
        return doc
    }
}

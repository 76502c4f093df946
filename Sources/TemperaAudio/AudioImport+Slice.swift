import TemperaCore

/// `--slice`: the recording in one slot, each marker playing its own part of the file.
extension AudioImport {
    /// The slot a sliced file plays in, and its fades: equal attack and release, so where one slice's gate closes
    /// and the next starts on the same sample of the file, the two ramps sum to exactly the original.
    public static let sliceSlot = 1
    public static let sliceFade = 2.5

    /// One track `slices`, slot 1 the file in gate mode, each marker at amplitude 1 playing the file from its own
    /// time (`from`), with one more marker at 0 when the first onset is later; master volume 1.
    static func slice(into doc: inout Document, sound: Sound, onsets found: [Onset], options: Options) {
        var slot = ClipSlot(name: "loop", file: options.fileReference, mode: .gate, attack: sliceFade, release: sliceFade)
        slot.gain = 1
        doc.slots[sliceSlot - 1] = slot
        doc.transport.volume = 1
        var markers: [Marker] = []
        var times = found.map(\.time)
        if times.first.map({ $0 > 0 }) ?? true { times.insert(0, at: 0) }
        for t in times {
            var m = Marker(id: 0, time: t, amp: 1, content: .clip(sliceSlot))
            m.from = t
            markers.append(m)
        }
        doc.tracks = [Track(name: "slices", markers: MarkerList(markers))]
    }
}

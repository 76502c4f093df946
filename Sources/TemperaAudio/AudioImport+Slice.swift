import TemperaCore

/// `--slice`: the recording in one slot, each marker playing its own part of the file.
extension AudioImport {
    /// The slot a sliced file plays in, and its fades: equal attack and release, so where one slice's gate closes
    /// and the next starts on the same sample of the file, the two ramps sum to exactly the original (the level
    /// steps of the one and the other add up to 1 on every frame). A slice from the file's first frame has no
    /// fade-in (the renderer plays a slice's sound from its start at full level).
    public static let sliceSlot = 1
    public static let sliceFade = 2.5

    /// The gain a sliced recording plays at: 1, or less for a recording whose peak would pass the master's limit
    /// (-0.3 dBFS), so that its loudest sample lands just below the limit and the limiter never touches it (it
    /// would reshape the loudest attacks): the render is then the recording times this gain, at most 0.3 dB
    /// quieter for a file in fixed point.
    public static func sliceGain(peak: Float) -> Double {
        let ceiling = RenderState.limit * 0.9999
        return peak > ceiling ? Double(ceiling / peak) : 1
    }

    /// One track `slices`, slot 1 the file in gate mode, each marker at amplitude 1 playing the file from its own
    /// time (`from`) to the next onset (`to`; the last to the file's end), with one more marker at 0 when the
    /// first onset is later; master volume 1, the slot's gain `sliceGain`. A slice's `to` keeps its end where it
    /// is when the next slice is
    /// moved later: the sound before it stops there instead of playing on into the moved slice's attack.
    static func slice(into doc: inout Document, sound: Sound, onsets found: [Onset], options: Options) {
        var slot = ClipSlot(name: "loop", file: options.fileReference, mode: .gate, attack: sliceFade, release: sliceFade)
        slot.gain = sliceGain(peak: sound.peak)
        doc.slots[sliceSlot - 1] = slot
        doc.transport.volume = 1
        var markers: [Marker] = []
        var times = found.map(\.time)
        if times.first.map({ $0 > 0 }) ?? true { times.insert(0, at: 0) }
        for (k, t) in times.enumerated() {
            var m = Marker(id: 0, time: t, amp: 1, content: .clip(sliceSlot))
            m.from = t
            m.to = k + 1 < times.count ? times[k + 1] : max(sound.duration, t)
            markers.append(m)
        }
        doc.tracks = [Track(name: "slices", markers: MarkerList(markers))]
    }
}

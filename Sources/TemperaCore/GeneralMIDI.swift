/// The General MIDI percussion key map (notes 35–81 on channel 10), under the names tempera's kit uses, and
/// the reading of a slot's name as one of those sounds. MIDI export writes a slot without a `note` as the
/// drum note its name gives; MIDI import names and fills slots from the notes of channel 10.
public enum GeneralMIDI {
    /// Channel 10 as the bytes count it (channels 0...15).
    public static let drumChannel: UInt8 = 9

    /// Note → name, one per General MIDI percussion key. The default kit's sounds use their kit names.
    public static let drums: [(note: Int, name: String)] = [
        (35, "acoustic-kick"), (36, "kick"), (37, "rim"), (38, "snare"), (39, "clap"), (40, "electric-snare"),
        (41, "low-floor-tom"), (42, "closed-hat"), (43, "high-floor-tom"), (44, "pedal-hat"), (45, "low-tom"),
        (46, "open-hat"), (47, "mid-tom"), (48, "high-mid-tom"), (49, "crash"), (50, "high-tom"), (51, "ride"),
        (52, "china"), (53, "ride-bell"), (54, "tambourine"), (55, "splash"), (56, "cowbell"), (57, "crash-2"),
        (58, "vibraslap"), (59, "ride-2"), (60, "high-bongo"), (61, "low-bongo"), (62, "mute-high-conga"),
        (63, "conga"), (64, "low-conga"), (65, "high-timbale"), (66, "low-timbale"), (67, "high-agogo"),
        (68, "low-agogo"), (69, "cabasa"), (70, "shaker"), (71, "short-whistle"), (72, "long-whistle"),
        (73, "short-guiro"), (74, "long-guiro"), (75, "clave"), (76, "woodblock"), (77, "low-woodblock"),
        (78, "mute-cuica"), (79, "open-cuica"), (80, "mute-triangle"), (81, "open-triangle"),
    ]

    /// Other spellings of the same sounds, after `normalised`.
    static let synonyms: [String: Int] = [
        "bass-drum": 36, "kick-drum": 36, "bd": 36, "side-stick": 37, "rimshot": 37, "rim-shot": 37, "sd": 38,
        "snare-drum": 38, "hand-clap": 39, "handclap": 39, "hat": 42, "hihat": 42, "hi-hat": 42, "hh": 42,
        "closed-hihat": 42, "closed-hi-hat": 42, "ch": 42, "open-hihat": 46, "open-hi-hat": 46, "oh": 46,
        "floor-tom": 41, "tom": 47, "crash-cymbal": 49, "ride-cymbal": 51, "maracas": 70, "maraca": 70,
        "tamb": 54, "wood-block": 76, "claves": 75, "triangle": 81, "bongo": 60, "cymbal": 49, "block": 76,
    ]

    /// Words looked for inside a longer name ("Snare Jazz", "Hat Closed", "Tom Hi"), in this order.
    static let keywords: [(all: [String], note: Int)] = [
        (["kick"], 36), (["bass", "drum"], 36), (["snare"], 38), (["rim"], 37), (["stick"], 37), (["clap"], 39),
        (["hat", "open"], 46), (["hh", "open"], 46), (["hat", "pedal"], 44), (["hat"], 42), (["hh"], 42),
        (["tom", "floor"], 41), (["tom", "low"], 45), (["tom", "lo"], 45), (["tom", "high"], 50), (["tom", "hi"], 50),
        (["tom"], 47), (["crash"], 49), (["china"], 52), (["splash"], 55), (["ride"], 51), (["cowbell"], 56),
        (["bell"], 53), (["tamb"], 54), (["shak"], 70), (["maraca"], 70), (["conga"], 63), (["bongo"], 60),
        (["timbal"], 65), (["agogo"], 67), (["cabasa"], 69), (["whistle"], 71), (["guiro"], 73), (["clave"], 75),
        (["block"], 76), (["cuica"], 79), (["triangle"], 81), (["cymbal"], 49),
    ]

    /// The percussion note of a General MIDI drum name (kit names, common synonyms, or a longer name holding
    /// one of the sound's words), nil when the name says nothing of a drum.
    public static func drumNote(forName name: String) -> Int? {
        let n = normalised(name)
        guard !n.isEmpty else { return nil }
        if let hit = drums.first(where: { $0.name == n }) { return hit.note }
        if let hit = synonyms[n] { return hit }
        let words = n.split(separator: "-").map(String.init)
        for k in keywords where k.all.allSatisfy({ key in words.contains { $0.hasPrefix(key) } }) { return k.note }
        return nil
    }

    /// The name of percussion note `note`, nil outside 35...81.
    public static func drumName(note: Int) -> String? {
        drums.first { $0.note == note }?.name
    }

    /// Lower case, words joined by `-`, a file's folder and extension dropped: `kit/Open Hat.wav` → `open-hat`.
    static func normalised(_ name: String) -> String {
        var base = Substring(name)
        if let slash = base.lastIndex(of: "/") { base = base[base.index(after: slash)...] }
        if let dot = base.lastIndex(of: "."), dot != base.startIndex { base = base[..<dot] }
        var out = ""
        var gap = false
        for ch in base.lowercased() {
            if ch.isLetter || ch.isNumber {
                if gap && !out.isEmpty { out.append("-") }
                out.append(ch)
                gap = false
            } else {
                gap = true
            }
        }
        return out
    }

    /// `A4` for 69, `C-1` for 0, `C#4` for 61.
    public static func noteName(_ note: Int) -> String {
        let names = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]
        let n = max(0, min(note, 127))
        return names[n % 12] + String(n / 12 - 1)
    }
}

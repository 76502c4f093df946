/// Ready-made temperaments that show what the designer is for. Each sets the span, both rows, their
/// amplitudes and the slider (0.5: exactly between the two rhythms, as in the paper's Figure 2).
public enum TemperamentPreset: String, CaseIterable, Sendable {
    /// Straight eighths against triplet swing over one beat (0.5 s, a quarter at 120 bpm): top 2:all,
    /// bottom 3:{0,2}. The off-beat moves from 1/2 of the beat (s = 0) to 2/3 (s = 1, swing 2:1).
    case swing
    /// The five of Tigrigna music over 1 s: top 12:{0,2,4,6,9}, three triplet eighths then two eighths
    /// (0, 1/6, 1/3, 1/2, 3/4 of the span), against five even pulses, bottom 5:all.
    case tigrigna
    /// The paper's Figure 2 over 2 s: 7 against 5. The top keeps the five sevenths nearest the fifths,
    /// 7:{0,1,3,4,6}, which is E(5,7) rotated by -1, each mapped to its fifth, bottom 5:all.
    case fiveSeven = "five-seven"

    /// The names `temper preset` accepts, in menu order.
    public static var names: [String] { allCases.map(\.rawValue) }

    /// The preset's temperament.
    public var temperament: Temperament {
        switch self {
        case .swing:
            return Temperament(span: 0.5,
                               top: .init(division: 2, beats: [0, 1], amps: [0.9, 0.6]),
                               bottom: .init(division: 3, beats: [0, 2], amps: [0.9, 0.5, 0.6]),
                               slider: 0.5)
        case .tigrigna:
            var topAmps = Array(repeating: 0.6, count: 12)
            topAmps[0] = 0.9
            topAmps[6] = 0.7
            return Temperament(span: 1,
                               top: .init(division: 12, beats: [0, 2, 4, 6, 9], amps: topAmps),
                               bottom: .init(division: 5, beats: [0, 1, 2, 3, 4], amps: [0.9, 0.6, 0.6, 0.7, 0.6]),
                               slider: 0.5)
        case .fiveSeven:
            return Temperament(span: 2,
                               top: .init(division: 7, beats: [0, 1, 3, 4, 6], amps: [0.9] + Array(repeating: 0.7, count: 6)),
                               bottom: .init(division: 5, beats: [0, 1, 2, 3, 4], amps: [0.9] + Array(repeating: 0.7, count: 4)),
                               slider: 0.5)
        }
    }

    /// The preset named `name`.
    /// - Throws: `CommandError` listing the presets for an unknown name.
    public static func named(_ name: String) throws -> TemperamentPreset {
        guard let p = TemperamentPreset(rawValue: name.lowercased()) else {
            throw CommandError("temper preset: unknown preset '\(name)' (presets: \(names.joined(separator: ", ")))")
        }
        return p
    }
}

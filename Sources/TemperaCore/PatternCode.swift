/// A parsed pattern code, the paper's "clip number followed by number of repetitions":
/// `1x2 - 3 +x2`, `(1 - 2)x3`, `? -x2`, `(1 . . .)x4`. Used by fill, typing draw and pattern select.
public struct PatternCode: Hashable, Sendable {
    /// One token of the grammar.
    public enum Symbol: Hashable, Sendable {
        case clip(Int)
        case rest
        case hold
        case random
        /// `.`: a marker left as it is, no clip placed (a free grid position stays free).
        case skip

        /// The content a fill places for this symbol; nil for `.`, which places nothing.
        public var content: Content? {
            switch self {
            case .clip(let n): return .clip(n)
            case .rest: return .rest
            case .hold: return .hold
            case .random: return .random
            case .skip: return nil
            }
        }
    }

    /// A token or a parenthesised sequence, each with its repetition count.
    public indirect enum Item: Hashable, Sendable {
        case symbol(Symbol, times: Int)
        case sequence([Item], times: Int)
    }

    public var items: [Item]
    /// The text as the user typed it.
    public var source: String

    public init(items: [Item], source: String) {
        self.items = items
        self.source = source
    }

    /// The code unrolled into the symbols it places, in order.
    public var symbols: [Symbol] {
        var out: [Symbol] = []
        func walk(_ items: [Item]) {
            for item in items {
                switch item {
                case .symbol(let s, let times):
                    for _ in 0..<times { out.append(s) }
                case .sequence(let inner, let times):
                    for _ in 0..<times { walk(inner) }
                }
            }
        }
        walk(items)
        return out
    }
}

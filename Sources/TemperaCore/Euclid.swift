/// Euclidean rhythms E(k, n): k onsets spread as evenly as possible over n pulses, computed with Bjorklund's
/// algorithm as Toussaint presents it ("The Euclidean Algorithm Generates Traditional Musical Rhythms"):
/// E(3, 8) = `x..x..x.`, E(5, 8) = `x.xx.xx.`, E(5, 13) = `x..x.x..x.x..`.
///
/// Rotation R turns the necklace left by R pulses: the rotated pattern's pulse i is the unrotated pattern's
/// pulse (i + R) mod n, so E(3, 8) rotated by 1 is `..x..x.x` and by -1 is `.x..x..x`. Any integer R is
/// accepted (taken modulo n).
public enum Euclid {
    /// The pattern, one Bool a pulse (true = onset).
    /// - Throws: `CommandError` when n < 1 or k is not in 0...n.
    public static func pattern(k: Int, n: Int, rotation: Int = 0) throws -> [Bool] {
        guard n >= 1 else { throw CommandError("euclid: the subdivision must be at least 1 (got \(n))") }
        guard (0...n).contains(k) else { throw CommandError("euclid(\(k)): k must be 0-\(n) for \(n) pulses") }
        let plain = bjorklund(k: k, n: n)
        let r = ((rotation % n) + n) % n
        return (0..<n).map { plain[($0 + r) % n] }
    }

    /// The onsets of E(k, n) rotated by `rotation`, as ascending 0-based pulse numbers.
    public static func beats(k: Int, n: Int, rotation: Int = 0) throws -> [Int] {
        try pattern(k: k, n: n, rotation: rotation).enumerated().compactMap { $0.element ? $0.offset : nil }
    }

    /// Toussaint's notation: `x` for an onset, `.` for a silent pulse.
    public static func string(k: Int, n: Int, rotation: Int = 0) throws -> String {
        String(try pattern(k: k, n: n, rotation: rotation).map { $0 ? "x" : "." })
    }

    /// Bjorklund's grouping: k groups `[x]` and n - k groups `[.]`; until at most one group remains in the
    /// remainder, append the remainder's groups one by one to the leading groups. The leftover leading
    /// groups (or the unused remainder groups) become the new remainder.
    static func bjorklund(k: Int, n: Int) -> [Bool] {
        if k == 0 { return Array(repeating: false, count: n) }
        if k == n { return Array(repeating: true, count: n) }
        var front: [[Bool]] = Array(repeating: [true], count: k)
        var rest: [[Bool]] = Array(repeating: [false], count: n - k)
        // At least one round, so a single rest is still spread: E(3, 4) = x.xx as Toussaint lists it.
        repeat {
            let m = min(front.count, rest.count)
            let paired = (0..<m).map { front[$0] + rest[$0] }
            rest = front.count > m ? Array(front[m...]) : Array(rest[m...])
            front = paired
        } while rest.count > 1
        return (front + rest).flatMap { $0 }
    }
}

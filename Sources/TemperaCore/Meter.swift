/// A time signature: `count` pulses of a 1/`unit` note a bar, in groups (7/8 as 2+2+3, 12/8 as 3+3+3+3).
///
/// A meter only labels and accents time; it never moves an onset. The document's `beat` stays the quarter note
/// (BPM counts quarters, as MIDI does), so a pulse lasts `beat * 4 / unit` seconds at x1: at a beat of 0.5 s a bar
/// of 4/4 lasts 2 s, of 7/8 1.75 s, of 12/8 3 s. The click sounds on every pulse: strong on the bar's first,
/// medium on the first pulse of each further group (when the groups are more than single pulses), soft on the
/// rest. `meter 4` is 4/4, as before meters had a unit.
///
/// Pure value; any thread.
public struct Meter: Hashable, Sendable {
    /// Pulses a bar (the N of N/D), `Transport.meterRange`.
    public var count: Int
    /// The note a pulse is (the D of N/D): one of `Meter.units`.
    public var unit: Int
    /// The groups as written (`groups=2+2+3`); nil: the usual ones (`defaultGroups`).
    public var groups: [Int]?

    public init(_ count: Int, _ unit: Int = 4, groups: [Int]? = nil) {
        self.count = count
        self.unit = unit
        self.groups = groups
    }

    /// The notes a pulse may be: whole to thirty-second.
    public static let units = [1, 2, 4, 8, 16, 32]

    /// The groups in force: as written, else the usual ones.
    public var beatGroups: [Int] { groups ?? Meter.defaultGroups(count: count, unit: unit) }

    /// The usual groups: a compound meter (6/8, 9/8, 12/8: eighths or shorter, a multiple of three above three)
    /// in threes; any other meter a group per pulse.
    public static func defaultGroups(count: Int, unit: Int) -> [Int] {
        if unit >= 8, count > 3, count % 3 == 0 { return Array(repeating: 3, count: count / 3) }
        return Array(repeating: 1, count: max(count, 1))
    }

    /// Seconds at x1 of one pulse when the document's beat (a quarter note) lasts `beat`.
    public func pulse(beat: Double) -> Double { beat * 4 / Double(unit) }

    /// How a click sounds on a pulse.
    public enum Accent: Int, Hashable, Sendable {
        /// A pulse inside a group.
        case beat = 0
        /// The first pulse of a group other than the bar's first.
        case group = 1
        /// The bar's first pulse.
        case bar = 2
    }

    /// The positions in the bar (from 0) where a group other than the first starts, as bits (bit p: position p),
    /// for the audio thread; 0 when every group is a single pulse (nothing between the bar and the pulse).
    public var groupMask: UInt64 {
        let g = beatGroups
        guard g.contains(where: { $0 > 1 }) else { return 0 }
        var mask: UInt64 = 0
        var p = 0
        for size in g.dropLast() {
            p += size
            if p < 64 { mask |= 1 << UInt64(p) }
        }
        return mask
    }

    /// The accent of position `p` (from 0) of a bar of `count` pulses with these group starts.
    @inline(__always)
    public static func accent(position p: Int, groupMask: UInt64) -> Accent {
        if p == 0 { return .bar }
        return p < 64 && groupMask & (1 << UInt64(p)) != 0 ? .group : .beat
    }

    /// The accent of position `p` (from 0) in a bar of this meter.
    public func accent(position p: Int) -> Accent { Meter.accent(position: p, groupMask: groupMask) }

    /// `7/8 groups=2+2+3`, `12/8`, `4`: the command's spelling (a quarter-note meter without groups as its count
    /// alone, as `meter 4` always read; groups only when written).
    public var text: String {
        let head = unit == 4 && groups == nil ? "\(count)" : "\(count)/\(unit)"
        return head + (groups.map { " groups=" + Meter.groupsText($0) } ?? "")
    }

    /// `2+2+3`.
    public static func groupsText(_ g: [Int]) -> String { g.map(String.init).joined(separator: "+") }

    /// `7/8` or `7` (a quarter-note meter) with optional groups `2+2+3`; a one-line error naming what is wrong.
    public static func parse(_ text: String, groups: String? = nil) throws -> Meter {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let count = Int(parts[0]) else {
            throw CommandError("meter '\(Limits.echo(text))' is not N or N/D (4, 7/8, 12/8)")
        }
        guard Transport.meterRange.contains(count) else {
            throw CommandError("a meter has from \(Transport.meterRange.lowerBound) to \(Transport.meterRange.upperBound) pulses a bar, not \(count)")
        }
        var unit = 4
        if parts.count == 2 {
            guard let d = Int(parts[1]), units.contains(d) else {
                throw CommandError("the meter's unit must be 1, 2, 4, 8, 16 or 32, not '\(Limits.echo(String(parts[1])))'")
            }
            unit = d
        }
        var meter = Meter(count, unit)
        if let groups { try meter.setGroups(text: groups) }
        return meter
    }

    /// Sets explicit groups from their spelling `2+2+3`.
    public mutating func setGroups(text: String) throws {
        let sizes = text.split(separator: "+", omittingEmptySubsequences: false).map { Int($0) }
        guard !sizes.isEmpty, sizes.count <= 64, sizes.allSatisfy({ ($0 ?? 0) >= 1 }) else {
            throw CommandError("groups '\(Limits.echo(text))' must be whole numbers joined by + (2+2+3)")
        }
        try setGroups(sizes.map { $0! })
    }

    /// Throws unless the count, the unit and the groups make a meter.
    public func check() throws {
        guard Transport.meterRange.contains(count) else {
            throw CommandError("a meter has from \(Transport.meterRange.lowerBound) to \(Transport.meterRange.upperBound) pulses a bar, not \(count)")
        }
        guard Meter.units.contains(unit) else { throw CommandError("the meter's unit must be 1, 2, 4, 8, 16 or 32, not \(unit)") }
        if let groups { var m = self; try m.setGroups(groups) }
    }

    /// What the status line says: `4 beats a bar`, `7/8: 7 pulses a bar in 2+2+3`.
    public var describe: String {
        if unit == 4 && groups == nil { return "\(count) beat\(count == 1 ? "" : "s") a bar" }
        let g = beatGroups
        return "\(count)/\(unit): \(count) pulse\(count == 1 ? "" : "s") a bar" + (g.contains { $0 > 1 } ? " in \(Meter.groupsText(g))" : "")
    }

    /// Sets explicit groups, checked: each at least one pulse, together the bar.
    public mutating func setGroups(_ g: [Int]) throws {
        let sum = g.reduce(0) { $0 + $1 }
        guard g.allSatisfy({ $0 >= 1 }), sum == count else {
            throw CommandError("groups \(Meter.groupsText(g)) make \(sum) pulses, but a bar of \(count)/\(unit) has \(count)")
        }
        groups = g
    }
}

extension Transport {
    /// The document's meter as one value (`meter`, `meterUnit`, `meterGroups`).
    public var signature: Meter {
        get { Meter(meter, meterUnit, groups: meterGroups) }
        set {
            meter = newValue.count
            meterUnit = newValue.unit
            meterGroups = newValue.groups
        }
    }

    /// Seconds at x1 of one pulse of the meter (the beat itself for a quarter-note meter).
    public var pulse: Double { beat * 4 / Double(meterUnit) }
}

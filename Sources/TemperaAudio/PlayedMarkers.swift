/// The markers that have sounded in the current pass, so an edit published while the loop plays never sounds a
/// marker twice in one pass: a marker that already played and is moved to just ahead of the playhead waits for
/// the next pass.
///
/// A marker is known by its track and `MarkerID` (ids stay the same across edits; the track tells apart markers
/// of copied tracks that share ids). The table is open addressing with linear probing in raw memory allocated
/// once; each entry carries the generation it was written in, and a new pass starts a new generation, so
/// forgetting everything is O(1). Nothing is ever removed within a generation, which keeps probing exact. When
/// a pass records more than `limit` markers the rest are not recorded: they play as if the table did not
/// exist (an edit could then double them), rather than the render path allocating.
///
/// Render path only (or the editor thread while no output renders); never allocates after `make`.
struct PlayedMarkers {
    /// Entries; a power of two.
    static let capacity = 16_384
    /// Markers recorded per pass at most, so probes stay short.
    static let limit = capacity * 3 / 4

    private let keys: UnsafeMutablePointer<UInt64>
    private let stamps: UnsafeMutablePointer<UInt64>
    /// Entries stamped with this generation are the current pass's; every other entry is free.
    private(set) var generation: UInt64 = 1
    /// Markers recorded in this generation.
    private(set) var count = 0

    /// Allocates the table (editor thread). Free it with `deallocate`.
    static func make() -> PlayedMarkers {
        let keys = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        keys.initialize(repeating: 0, count: capacity)
        let stamps = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        stamps.initialize(repeating: 0, count: capacity)
        return PlayedMarkers(keys: keys, stamps: stamps)
    }

    private init(keys: UnsafeMutablePointer<UInt64>, stamps: UnsafeMutablePointer<UInt64>) {
        self.keys = keys
        self.stamps = stamps
    }

    func deallocate() {
        keys.deallocate()
        stamps.deallocate()
    }

    /// The identity of a marker on a track (in one cycle of a track with its own cycle: each cycle sounds it).
    @inline(__always)
    static func key(track: Int32, marker: UInt32, cycle: Int32 = 0) -> UInt64 {
        let k = UInt64(UInt32(bitPattern: track)) << 32 | UInt64(marker)
        return cycle == 0 ? k : k ^ (UInt64(UInt32(bitPattern: cycle)) &* 0x9E37_79B9_7F4A_7C15)
    }

    @inline(__always)
    private static func slot(of key: UInt64) -> Int {
        // Fibonacci hashing: consecutive ids spread over the whole table.
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - capacity.trailingZeroBitCount))
    }

    /// Forgets every marker: a new pass, a rewind, a new region.
    mutating func clear() {
        generation &+= 1
        count = 0
    }

    /// Whether the marker was recorded in this generation.
    func contains(_ key: UInt64) -> Bool {
        var i = Self.slot(of: key)
        while stamps[i] == generation {
            if keys[i] == key { return true }
            i = (i + 1) & (Self.capacity - 1)
        }
        return false
    }

    /// Records the marker as sounded; false when it already was in this generation. Past `limit` nothing more is
    /// recorded, and a marker not recorded yet still gets true.
    mutating func record(_ key: UInt64) -> Bool {
        var i = Self.slot(of: key)
        while stamps[i] == generation {
            if keys[i] == key { return false }
            i = (i + 1) & (Self.capacity - 1)
        }
        guard count < Self.limit else { return true }
        keys[i] = key
        stamps[i] = generation
        count += 1
        return true
    }
}

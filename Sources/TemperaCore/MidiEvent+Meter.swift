extension MidiEvent {
    /// A Time Signature meta event for `meter`: N, D as a power of two, the MIDI clocks of the pulse a metronome
    /// would click (a dotted quarter, 36, for a compound meter whose groups are all threes; else one pulse,
    /// 24 * 4 / D), and 8 thirty-second notes a quarter.
    public static func timeSignature(tick: Int = 0, meter: Meter) -> MidiEvent {
        var power = 0
        while 1 << power < meter.unit { power += 1 }
        let pulse = 96 / meter.unit
        let groups = meter.beatGroups
        let click = groups.count > 1 && groups.allSatisfy({ $0 == groups[0] }) && groups[0] > 1 ? pulse * groups[0] : pulse
        return MidiEvent(tick: tick, .meta(type: 0x58, data: [UInt8(clamping: meter.count), UInt8(clamping: power),
                                                             UInt8(clamping: max(1, click)), 8]))
    }
}

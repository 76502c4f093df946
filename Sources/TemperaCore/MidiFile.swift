/// A Standard MIDI File in memory: its format, its time division, and its tracks of events at absolute ticks.
///
/// `parse` reads any byte string and either returns a file or throws one `MidiFileError` line; it never traps,
/// whatever the bytes (it is a pure function, so it can be fuzzed). `bytes` writes the file back, with running
/// status, each track ended by exactly one End of Track.
public struct MidiFile: Equatable, Sendable {
    /// 0: one track; 1: several tracks played together; 2: several independent sequences.
    public var format: Int
    /// Ticks per quarter note (1...32767). SMPTE divisions are refused when reading.
    public var division: Int
    /// Each track's events in file order, at absolute ticks (non-decreasing); a track read from a file ends with
    /// its End of Track meta event when it had one (what follows it in the chunk is ignored).
    public var tracks: [[MidiEvent]]

    public init(format: Int = 1, division: Int = 960, tracks: [[MidiEvent]] = []) {
        self.format = format
        self.division = division
        self.tracks = tracks
    }
}

/// One event of a track, at an absolute tick.
public struct MidiEvent: Equatable, Sendable {
    public enum Message: Equatable, Sendable {
        /// Note on, channel 0...15 (channel 10 of General MIDI is 9 here). Velocity 0 means note off, as the
        /// standard says; it is kept as written.
        case noteOn(channel: UInt8, note: UInt8, velocity: UInt8)
        case noteOff(channel: UInt8, note: UInt8, velocity: UInt8)
        case programChange(channel: UInt8, program: UInt8)
        /// Any other channel message (aftertouch, control change, pitch bend), status byte and data bytes.
        case channel(status: UInt8, data: [UInt8])
        /// A system exclusive message: `F0` (or `F7` for an escape) and its bytes as stored.
        case sysex(status: UInt8, data: [UInt8])
        /// A meta event: its type and data (tempo is 0x51, track name 0x03, time signature 0x58).
        case meta(type: UInt8, data: [UInt8])
    }

    public var tick: Int
    public var message: Message

    public init(tick: Int, _ message: Message) {
        self.tick = tick
        self.message = message
    }

    /// A Set Tempo meta event: microseconds per quarter note (1...16777215).
    public static func tempo(tick: Int, microsecondsPerQuarter us: Int) -> MidiEvent {
        let v = UInt32(clamping: max(1, min(us, 0xFF_FFFF)))
        return MidiEvent(tick: tick, .meta(type: 0x51, data: [UInt8(v >> 16), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]))
    }

    /// A Track Name meta event (UTF-8).
    public static func trackName(_ name: String, tick: Int = 0) -> MidiEvent {
        MidiEvent(tick: tick, .meta(type: 0x03, data: Array(name.utf8)))
    }

    /// A Time Signature meta event: `numerator` beats of 1/`2^denominatorPower`, a metronome click every 24
    /// MIDI clocks, 8 thirty-seconds per quarter.
    public static func timeSignature(tick: Int = 0, numerator: Int, denominatorPower: Int = 2) -> MidiEvent {
        MidiEvent(tick: tick, .meta(type: 0x58, data: [UInt8(clamping: numerator), UInt8(clamping: denominatorPower), 24, 8]))
    }

    /// True for the End of Track meta event.
    public var isEndOfTrack: Bool {
        if case .meta(0x2F, _) = message { return true }
        return false
    }

    /// The microseconds per quarter of a Set Tempo event, nil for anything else.
    public var microsecondsPerQuarter: Int? {
        guard case .meta(0x51, let d) = message, d.count == 3 else { return nil }
        return Int(d[0]) << 16 | Int(d[1]) << 8 | Int(d[2])
    }
}

/// Why a byte string is not a Standard MIDI File tempera can read: one line, naming the byte offset.
public struct MidiFileError: Error, Equatable, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension MidiFile {
    // MARK: - Reading

    /// Reads a Standard MIDI File (formats 0, 1 and 2; running status; meta and system exclusive events).
    /// Chunks other than `MTrk` after the header are skipped, as the standard asks. A missing End of Track is
    /// accepted; a track that ends inside an event, a header that names more tracks than the file holds,
    /// an SMPTE time division, or a malformed event is refused with one line naming the byte offset.
    public static func parse(_ bytes: [UInt8]) throws -> MidiFile {
        var r = Reader(bytes: bytes, position: 0, end: bytes.count)
        guard bytes.count >= 4, bytes[0] == 0x4D, bytes[1] == 0x54, bytes[2] == 0x68, bytes[3] == 0x64 else {
            throw MidiFileError("not a Standard MIDI File (it does not start with MThd)")
        }
        r.position = 4
        let headerLength = Int(try r.uint32("the header"))
        guard headerLength >= 6 else { throw MidiFileError("the MThd header is \(headerLength) bytes, at least 6 expected") }
        guard headerLength <= bytes.count - r.position else { throw MidiFileError("the file is truncated inside its MThd header") }
        let headerEnd = r.position + headerLength
        let format = Int(try r.uint16("the header"))
        let count = Int(try r.uint16("the header"))
        let division = Int(try r.uint16("the header"))
        r.position = headerEnd
        guard format <= 2 else { throw MidiFileError("unknown MIDI file format \(format) (0, 1 or 2 expected)") }
        if division & 0x8000 != 0 {
            throw MidiFileError("SMPTE time division (frames per second) is not supported: only ticks per quarter note")
        }
        guard division > 0 else { throw MidiFileError("the time division is 0 ticks per quarter note") }
        if format == 0 && count != 1 { throw MidiFileError("a format 0 file holds one track, this one says \(count)") }

        var tracks: [[MidiEvent]] = []
        while tracks.count < count {
            let chunkStart = r.position
            guard r.remaining >= 8 else {
                throw MidiFileError("the file is truncated: \(tracks.count) of \(count) tracks found (byte \(chunkStart))")
            }
            let id = (bytes[chunkStart], bytes[chunkStart + 1], bytes[chunkStart + 2], bytes[chunkStart + 3])
            r.position += 4
            let length = Int(try r.uint32("a chunk header"))
            guard length <= r.remaining else {
                throw MidiFileError("track \(tracks.count + 1) is truncated: its chunk at byte \(chunkStart) says "
                    + "\(length) bytes, \(r.remaining) remain")
            }
            let isTrack = id == (0x4D, 0x54, 0x72, 0x6B)
            if isTrack {
                var t = Reader(bytes: bytes, position: r.position, end: r.position + length)
                tracks.append(try t.track(number: tracks.count + 1))
            }
            r.position += length
        }
        return MidiFile(format: format, division: division, tracks: tracks)
    }

    /// `0x9F`.
    static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x" + String(digits[Int(b >> 4)]) + String(digits[Int(b & 0x0F)])
    }

    /// A cursor over a range of the file's bytes; every read is bounds-checked.
    struct Reader {
        let bytes: [UInt8]
        var position: Int
        let end: Int

        var remaining: Int { end - position }

        mutating func byte(_ what: @autoclosure () -> String) throws -> UInt8 {
            guard position < end else { throw MidiFileError("truncated at byte \(position) inside \(what())") }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func uint16(_ what: String) throws -> UInt16 {
            UInt16(try byte(what)) << 8 | UInt16(try byte(what))
        }

        mutating func uint32(_ what: String) throws -> UInt32 {
            var v: UInt32 = 0
            for _ in 0..<4 { v = v << 8 | UInt32(try byte(what)) }
            return v
        }

        /// A variable-length quantity: at most four bytes, seven bits each, the high bit set on all but the last.
        mutating func quantity(_ what: String) throws -> Int {
            let start = position
            var v = 0
            for _ in 0..<4 {
                let b = try byte(what)
                v = v << 7 | Int(b & 0x7F)
                if b & 0x80 == 0 { return v }
            }
            throw MidiFileError("a variable-length quantity at byte \(start) runs past four bytes")
        }

        /// A data byte of a channel message (high bit clear).
        mutating func data(_ what: String) throws -> UInt8 {
            let at = position
            let b = try byte(what)
            guard b & 0x80 == 0 else {
                throw MidiFileError("a status byte \(hex(b)) at byte \(at) where a data byte of \(what) was expected")
            }
            return b
        }

        /// The bytes of a length-prefixed meta or system exclusive event.
        mutating func block(_ what: String) throws -> [UInt8] {
            let length = try quantity(what)
            guard length <= remaining else {
                throw MidiFileError("\(what) at byte \(position) says \(length) bytes, \(remaining) remain in its track")
            }
            defer { position += length }
            return Array(bytes[position..<position + length])
        }

        /// A track chunk's events, up to its End of Track or the chunk's end.
        mutating func track(number: Int) throws -> [MidiEvent] {
            var events: [MidiEvent] = []
            var tick = 0
            var running: UInt8 = 0
            let what = "track \(number)"
            while position < end {
                tick += try quantity("a delta time of \(what)")
                let at = position
                var status = try byte("an event of \(what)")
                var first: UInt8?
                if status & 0x80 == 0 {
                    // Running status: this byte is the first data byte of a message like the previous one.
                    guard running != 0 else {
                        throw MidiFileError("a data byte \(hex(status)) at byte \(at) of \(what) with no status before it")
                    }
                    first = status
                    status = running
                }
                switch status {
                case 0xFF:
                    let type = try data("a meta event")
                    let body = try block("a meta event")
                    events.append(MidiEvent(tick: tick, .meta(type: type, data: body)))
                    if type == 0x2F { return events }
                case 0xF0, 0xF7:
                    events.append(MidiEvent(tick: tick, .sysex(status: status, data: try block("a system exclusive event"))))
                case 0xF1...0xFE:
                    throw MidiFileError("status byte \(hex(status)) at byte \(at) of \(what) has no place in a file")
                default:
                    running = status
                    let channel = status & 0x0F
                    let a = try first ?? data("a channel message")
                    switch status & 0xF0 {
                    case 0x80:
                        events.append(MidiEvent(tick: tick, .noteOff(channel: channel, note: a, velocity: try data("a note off"))))
                    case 0x90:
                        events.append(MidiEvent(tick: tick, .noteOn(channel: channel, note: a, velocity: try data("a note on"))))
                    case 0xC0:
                        events.append(MidiEvent(tick: tick, .programChange(channel: channel, program: a)))
                    case 0xD0:
                        events.append(MidiEvent(tick: tick, .channel(status: status, data: [a])))
                    default:
                        events.append(MidiEvent(tick: tick, .channel(status: status, data: [a, try data("a channel message")])))
                    }
                }
            }
            return events
        }
    }

    // MARK: - Writing

    /// The file's bytes: an MThd header and one MTrk per track, events in tick order (stable), delta times as
    /// variable-length quantities, running status for channel messages (a meta or system exclusive event
    /// restates the status after it), one End of Track at the last tick.
    public func bytes() -> [UInt8] {
        var out: [UInt8] = [0x4D, 0x54, 0x68, 0x64, 0, 0, 0, 6]
        out += [UInt8(format >> 8 & 0xFF), UInt8(format & 0xFF), UInt8(tracks.count >> 8 & 0xFF), UInt8(tracks.count & 0xFF),
                UInt8(division >> 8 & 0x7F), UInt8(division & 0xFF)]
        for events in tracks {
            var body: [UInt8] = []
            var ordered = events.enumerated().map { ($0.offset, $0.element) }
            ordered.sort { $0.1.tick != $1.1.tick ? $0.1.tick < $1.1.tick : $0.0 < $1.0 }
            var tick = 0
            var running: UInt8 = 0
            // End of Track is written once, last, at the latest tick any event or End of Track asks for.
            let endTick = ordered.last.map { $0.1.tick } ?? 0
            for (_, e) in ordered where !e.isEndOfTrack {
                let at = max(e.tick, tick)
                // A delta past 2^28 ticks is bridged by meta events, after which a status byte is due again.
                if at - tick > 0x0FFF_FFFF { running = 0 }
                Self.appendDelta(at - tick, to: &body)
                tick = at
                var status: UInt8 = 0, payload: [UInt8] = []
                switch e.message {
                case .noteOn(let c, let n, let v): status = 0x90 | c & 0x0F; payload = [n & 0x7F, v & 0x7F]
                case .noteOff(let c, let n, let v): status = 0x80 | c & 0x0F; payload = [n & 0x7F, v & 0x7F]
                case .programChange(let c, let p): status = 0xC0 | c & 0x0F; payload = [p & 0x7F]
                case .channel(let s, let d): status = s; payload = d.map { $0 & 0x7F }
                case .sysex(let s, let d):
                    body.append(s)
                    Self.appendQuantity(d.count, to: &body)
                    body += d
                    running = 0
                    continue
                case .meta(let type, let d):
                    body += [0xFF, type & 0x7F]
                    Self.appendQuantity(d.count, to: &body)
                    body += d
                    running = 0
                    continue
                }
                if status != running { body.append(status) }
                running = status
                body += payload
            }
            Self.appendDelta(max(endTick - tick, 0), to: &body)
            body += [0xFF, 0x2F, 0x00]
            out += [0x4D, 0x54, 0x72, 0x6B]
            let n = UInt32(body.count)
            out += [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            out += body
        }
        return out
    }

    /// Appends a delta time. One longer than a quantity holds (2^28 - 1 ticks) is bridged by empty text
    /// events (FF 01 00), which every reader skips, so a file keeps its times across any gap.
    static func appendDelta(_ value: Int, to out: inout [UInt8]) {
        var rest = value
        while rest > 0x0FFF_FFFF {
            appendQuantity(0x0FFF_FFFF, to: &out)
            out += [0xFF, 0x01, 0x00]
            rest -= 0x0FFF_FFFF
        }
        appendQuantity(rest, to: &out)
    }

    /// Appends a variable-length quantity (0...0x0FFFFFFF; larger values are clamped to it).
    static func appendQuantity(_ value: Int, to out: inout [UInt8]) {
        let v = UInt32(clamping: max(0, min(value, 0x0FFF_FFFF)))
        var groups: [UInt8] = [UInt8(v & 0x7F)]
        var rest = v >> 7
        while rest > 0 {
            groups.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        out += groups.reversed()
    }
}

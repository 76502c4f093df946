/// Appends text to memory reserved in advance, with no capacity check per write: the caller reserves an upper
/// bound of what it writes (see `DocumentFile.markerLineMax`). Writing a large document's marker lines this
/// way costs a fraction of appending them to an array piece by piece.
///
/// Numbers are written as `DocumentFile.number` spells them, byte for byte.
struct ByteWriter: TextOutputStream {
    /// The next byte to write.
    private(set) var cursor: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) { cursor = start }

    /// Text known when the program was built. (Not an overload of `write`: a literal would pick the `String` one.)
    @inline(__always)
    mutating func append(_ text: StaticString) {
        guard text.hasPointerRepresentation else {
            // A one-character literal may be stored as its scalar.
            return text.unicodeScalar.utf8.forEach { write(byte: $0) }
        }
        let n = text.utf8CodeUnitCount
        cursor.update(from: text.utf8Start, count: n)
        cursor += n
    }

    @inline(__always)
    mutating func write(byte: UInt8) {
        cursor.pointee = byte
        cursor += 1
    }

    mutating func write(bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        cursor.update(from: base, count: bytes.count)
        cursor += bytes.count
    }

    /// The fallback every `TextOutputStreamable` value can write through.
    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { write(bytes: $0) }
    }

    /// `Double` writes its shortest round-trip digits through this when the standard library offers it,
    /// sparing a `String` per number; `write(_: String)` gives the same bytes otherwise.
    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        write(bytes: buffer)
    }

    /// An integer in decimal.
    mutating func write(integer: Int64) {
        var magnitude = integer.magnitude
        if integer < 0 { write(byte: UInt8(ascii: "-")) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch, enough for 20 digits
        let n = withUnsafeMutableBytes(of: &digits) { scratch -> Int in
            var i = scratch.count
            repeat {
                i -= 1
                scratch[i] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            let n = scratch.count - i
            cursor.update(from: scratch.baseAddress!.assumingMemoryBound(to: UInt8.self) + i, count: n)
            return n
        }
        cursor += n
    }

    /// A Double exactly as `DocumentFile.number` writes it: whole numbers below 10^15 without a fraction,
    /// others shortest-round-trip, non-finite values as `null`. At most `DocumentFile.numberMax` bytes.
    mutating func write(number v: Double) {
        guard v.isFinite else { return append("null") }
        // Whole below 10^15, tested by a conversion the processor does in one instruction rather than `rounded()`.
        if abs(v) < 1e15, Double(Int64(v)) == v {
            if v == 0, v.sign == .minus { return append("-0") }
            return write(integer: Int64(v))
        }
        v.write(to: &self)
    }
}

/// A parsed JSON value that remembers where it was written, so a document file's errors can say
/// `line 12, column 30: amp must be from 0 to 1, not 3`.
///
/// Numbers are read correctly rounded without building strings (`DecimalDouble`, for up to 19 significant
/// digits; Swift's conversion otherwise); integers too long for a Double keep their text so a 64-bit seed
/// comes back exactly. Objects keep their
/// keys in file order.
struct JSONValue {
    enum Kind {
        case null
        case bool(Bool)
        /// `text` is kept only for integers too long for a Double to hold exactly (a 64-bit seed).
        case number(Double, text: String?)
        case string(String)
        case array([JSONValue])
        case object([(key: String, value: JSONValue)])
        /// A `"markers"` list, read straight into markers (ids numbered on across lists in file order) rather
        /// than into a tree: nearly all of a large document is markers, and this halves its load time.
        case markers([Marker])
        /// The same, read straight into a track's list (a document file, whose ids are the reader's): no array of
        /// the markers is held beside the list.
        case markerList(MarkerList)
    }

    var kind: Kind
    /// 1-based line and column (in bytes) of the value's first character.
    var line: Int
    var column: Int

    /// What the value is, for "expected a number, found a string".
    var typeName: String {
        switch kind {
        case .null: return "null"
        case .bool: return "true or false"
        case .number: return "a number"
        case .string: return "a string"
        case .array, .markers, .markerList: return "a list"
        case .object: return "an object"
        }
    }

    func error(_ message: String) -> CommandError { CommandError(JSONValue.oneLine(message), line: line, column: column) }

    /// A message with any control characters it quotes from the file (a key with an escaped newline) escaped,
    /// so it stays one line.
    static func oneLine(_ message: String) -> String {
        guard message.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else { return message }
        var out = ""
        for c in message.unicodeScalars {
            if c.value < 0x20 || c.value == 0x7f {
                out += c == "\n" ? "\\n" : c == "\t" ? "\\t" : "\\u{\(String(c.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// Parses UTF-8 JSON text; errors name the line and column.
    static func parse(_ bytes: [UInt8], markerLists: Bool = false) throws -> JSONValue {
        try bytes.withUnsafeBufferPointer { try parse($0, markerLists: markerLists) }
    }

    /// Parses UTF-8 JSON text in memory that stays valid for the call. With `markerLists`, a `"markers"` list is
    /// read as a `MarkerList` (`Kind.markerList`) rather than an array.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, markerLists: Bool = false) throws -> JSONValue {
        var reader = Reader(bytes: bytes)
        reader.markerLists = markerLists
        // A UTF-8 byte-order mark, as some editors write, is skipped rather than refused.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            reader.index = 3
            reader.lineStart = 3
        }
        reader.skipSpace()
        if reader.index == bytes.count { throw reader.error("the file is empty") }
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        if reader.index < bytes.count { throw reader.error("unexpected text after the end of the document") }
        return value
    }

    /// A recursive-descent reader over bytes.
    /// Reads through an unsafe buffer: every access is behind an explicit `index < bytes.count` test, and the
    /// buffer outlives the reader (see `parse`).
    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        var line = 1
        var lineStart = 0
        /// Marker ids run on across marker lists in file order, as a loaded document numbers them.
        var nextMarkerID: MarkerID = 0
        /// Marker lists are read into `MarkerList`s.
        var markerLists = false

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        static let maxDepth = 256

        var column: Int { index - lineStart + 1 }

        func error(_ message: String) -> CommandError {
            CommandError(JSONValue.oneLine(message), line: line, column: column)
        }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\n"):
                    index += 1
                    line += 1
                    lineStart = index
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                    index += 1
                default:
                    return
                }
            }
        }

        /// Describes the byte at the cursor for an error message.
        var found: String {
            guard index < bytes.count else { return "the end of the file" }
            let b = bytes[index]
            if b >= 0x21 && b < 0x7f { return "'\(Character(Unicode.Scalar(b)))'" }
            return "byte \(b)"
        }

        mutating func value(depth: Int) throws -> JSONValue {
            guard depth < Reader.maxDepth else { throw error("nested more than \(Reader.maxDepth) levels deep") }
            guard index < bytes.count else { throw error("the file ends where a value was expected") }
            let (l, c) = (line, column)
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [(key: String, value: JSONValue)] = []
                members.reserveCapacity(4)  // a marker's fields in one allocation
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return JSONValue(kind: .object(members), line: l, column: c)
                }
                while true {
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                        throw error("expected a field name in quotes, found \(found)")
                    }
                    let key = try string()
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                        throw error("expected ':' after \"\(key)\", found \(found)")
                    }
                    index += 1
                    skipSpace()
                    if key == "markers", index < bytes.count, bytes[index] == UInt8(ascii: "[") {
                        let (ml, mc) = (line, column)
                        let kind: Kind = markerLists ? .markerList(try markerListInOrder()) : .markers(try markerList())
                        members.append((key, JSONValue(kind: kind, line: ml, column: mc)))
                    } else {
                        members.append((key, try value(depth: depth + 1)))
                    }
                    skipSpace()
                    guard index < bytes.count else { throw error("the file ends inside an object (missing '}')") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "}") { index += 1; break }
                    throw error("expected ',' or '}', found \(found)")
                }
                return JSONValue(kind: .object(members), line: l, column: c)
            case UInt8(ascii: "["):
                index += 1
                var items: [JSONValue] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return JSONValue(kind: .array(items), line: l, column: c)
                }
                while true {
                    skipSpace()
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard index < bytes.count else { throw error("the file ends inside a list (missing ']')") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "]") { index += 1; break }
                    throw error("expected ',' or ']', found \(found)")
                }
                return JSONValue(kind: .array(items), line: l, column: c)
            case UInt8(ascii: "\""):
                return JSONValue(kind: .string(try string()), line: l, column: c)
            case UInt8(ascii: "t"):
                try literal("true")
                return JSONValue(kind: .bool(true), line: l, column: c)
            case UInt8(ascii: "f"):
                try literal("false")
                return JSONValue(kind: .bool(false), line: l, column: c)
            case UInt8(ascii: "n"):
                try literal("null")
                return JSONValue(kind: .null, line: l, column: c)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return JSONValue(kind: try number(), line: l, column: c)
            default:
                throw error("expected a value, found \(found)")
            }
        }

        /// A list of markers, `[{"t": 0.25, "amp": 0.8, "clip": 3}, ...]`, checked as `DocumentFile` checks
        /// them; the cursor is on the `[`.
        mutating func markerList() throws -> [Marker] {
            index += 1
            var out: [Marker] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return out
            }
            while true {
                skipSpace()
                out.append(try marker(id: nextMarkerID))
                nextMarkerID &+= 1
                skipSpace()
                guard index < bytes.count else { throw error("the file ends inside a list (missing ']')") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; break }
                throw error("expected ',' or ']', found \(found)")
            }
            return out
        }

        /// One marker object; the cursor is on its first character.
        mutating func marker(id: MarkerID) throws -> Marker {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else {
                let v = try value(depth: 2)
                throw v.error("a marker must be an object, found \(v.typeName)")
            }
            let (ml, mc) = (line, column)
            index += 1
            var time: Double?, amp = 0.8, content: Content?, extras = MarkerExtras()
            var seen: UInt8 = 0
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
            } else {
                while true {
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                        throw error("expected a field name in quotes, found \(found)")
                    }
                    // The three keys as written are matched on their bytes; anything else (an escape, an
                    // unknown name) is read as a string for its message.
                    var bit = markerKey()
                    let key: String
                    switch bit {
                    case 1: key = "t"
                    case 2: key = "amp"
                    case 4: key = "clip"
                    default:
                        key = try string()
                        bit = key == "t" ? 1 : key == "amp" ? 2 : key == "clip" ? 4
                            : key == "p" ? 8 : key == "rep" ? 16 : key == "repspan" ? 32 : key == "from" ? 64 : key == "to" ? 128 : 0
                    }
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                        throw error("expected ':' after \"\(key)\", found \(found)")
                    }
                    index += 1
                    skipSpace()
                    // A number for a known field read once is checked here without a JSONValue; anything else
                    // (and every error message) goes the general way below.
                    if bit != 0, bit < 8, seen & bit == 0, index < bytes.count,
                       bytes[index] == UInt8(ascii: "-") || bytes[index] &- UInt8(ascii: "0") <= 9 {
                        let (vl, vc) = (line, column)
                        let (d, _) = try numberValue()
                        seen |= bit
                        func v() -> JSONValue { JSONValue(kind: .number(d, text: nil), line: vl, column: vc) }
                        switch bit {
                        case 1:
                            time = d >= 0 && d <= CommandParser.maxTime ? d : try DocumentFile.Decoder.double(
                                v(), "time", { (0...CommandParser.maxTime).contains($0) }, "must be from 0 to 10000000")
                        case 2: amp = d >= 0 && d <= 1 ? d : try DocumentFile.Decoder.amp(v()) ?? 0.8
                        default:
                            content = d >= 1 && d <= 16 && d == d.rounded() ? .clip(Int(d))
                                : try DocumentFile.Decoder.content(v())
                        }
                    } else {
                        try markerField(bit: bit, key: key, seen: &seen, time: &time, amp: &amp, content: &content,
                                        extras: &extras)
                    }
                    skipSpace()
                    guard index < bytes.count else { throw error("the file ends inside an object (missing '}')") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "}") { index += 1; break }
                    throw error("expected ',' or '}', found \(found)")
                }
            }
            guard let time else { throw CommandError("a marker has no time 't'", line: ml, column: mc) }
            var m = Marker(id: id, time: time, amp: amp, content: content)
            m.extras = extras
            return m
        }

        /// One field of a marker read as a general value, with every check and message.
        mutating func markerField(bit: UInt8, key: String, seen: inout UInt8, time: inout Double?, amp: inout Double,
                                  content: inout Content?, extras: inout MarkerExtras) throws {
            let v = try value(depth: 2)
            if bit == 0 { throw v.error("unknown field '\(key)' in a marker (known: t, amp, clip, p, rep, repspan, from, to)") }
            if seen & bit != 0 { throw v.error("'\(key)' is given twice in a marker") }
            seen |= bit
            switch bit {
            case 1:
                time = try DocumentFile.Decoder.double(v, "time", { (0...CommandParser.maxTime).contains($0) },
                                                       "must be from 0 to 10000000")
            case 2: amp = try DocumentFile.Decoder.amp(v) ?? 0.8
            case 4: content = try DocumentFile.Decoder.content(v)
            default: try DocumentFile.Decoder.extra(key, v, into: &extras)
            }
        }

        /// Reads `"t"`, `"amp"` or `"clip"` at the cursor and returns its bit (1, 2, 4); 0, with the cursor
        /// unmoved, for any other text.
        mutating func markerKey() -> UInt8 {
            let n = bytes.count - index
            if n >= 3, bytes[index + 1] == UInt8(ascii: "t"), bytes[index + 2] == UInt8(ascii: "\"") {
                index += 3
                return 1
            }
            if n >= 5, bytes[index + 1] == UInt8(ascii: "a"), bytes[index + 2] == UInt8(ascii: "m"),
               bytes[index + 3] == UInt8(ascii: "p"), bytes[index + 4] == UInt8(ascii: "\"") {
                index += 5
                return 2
            }
            if n >= 6, bytes[index + 1] == UInt8(ascii: "c"), bytes[index + 2] == UInt8(ascii: "l"),
               bytes[index + 3] == UInt8(ascii: "i"), bytes[index + 4] == UInt8(ascii: "p"),
               bytes[index + 5] == UInt8(ascii: "\"") {
                index += 6
                return 4
            }
            return 0
        }

        mutating func literal(_ word: String) throws {
            let w = Array(word.utf8)
            let n = w.count
            let matches = index + n <= bytes.count && (0..<n).allSatisfy { bytes[index + $0] == w[$0] }
            guard matches else { throw error("expected a value, found \(found)") }
            index += n
        }

        /// True when the eight bytes (first byte lowest) are all ASCII digits.
        @inline(__always)
        static func isEightDigits(_ v: UInt64) -> Bool {
            (v & 0xF0F0_F0F0_F0F0_F0F0) | (((v &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) >> 4)
                == 0x3333_3333_3333_3333
        }

        /// The value of eight ASCII digits (first byte lowest, most significant), by pairwise combination.
        @inline(__always)
        static func eightDigits(_ v: UInt64) -> UInt64 {
            var v = v &- 0x3030_3030_3030_3030
            v = v &* 10 &+ (v >> 8)
            let mask: UInt64 = 0x0000_00FF_0000_00FF
            v = ((v & mask) &* 0x000F_4240_0000_0064 &+ ((v >> 16) & mask) &* 0x0000_2710_0000_0001) >> 32
            return v & 0xFFFF_FFFF
        }

        /// JSON's number grammar, strictly: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
        mutating func number() throws -> Kind {
            let start = index
            let (v, keepText) = try numberValue()
            return .number(v, text: keepText ? String(decoding: bytes[start..<index], as: UTF8.self) : nil)
        }

        /// The number at the cursor (a `-` or a digit), and whether it is an integer a Double cannot hold exactly
        /// (a 64-bit seed), whose text the caller should keep.
        @inline(__always)
        mutating func numberValue() throws -> (Double, keepText: Bool) {
            let p = bytes.baseAddress!, end = bytes.count
            let start = index
            var i = index
            defer { index = i }
            let negative = p[i] == UInt8(ascii: "-")
            if negative { i += 1 }
            let intStart = i
            // The significant digits as an integer (while it stays exact) and the power of ten they carry.
            var mantissa: UInt64 = 0
            var digitCount = 0
            var scale = 0
            while i < end {
                let d = p[i] &- UInt8(ascii: "0")
                if d > 9 { break }
                if digitCount < 19 { mantissa = mantissa &* 10 &+ UInt64(d) } else { scale += 1 }
                if mantissa > 0 || digitCount > 0 { digitCount += 1 }
                i += 1
            }
            let n = i - intStart
            if n == 0 { index = i; throw error("expected digits after '-'") }
            if n > 1, p[intStart] == UInt8(ascii: "0") {
                i = intStart
                index = i
                throw error("a number may not start with 0")
            }
            var isInteger = true
            if i < end, p[i] == UInt8(ascii: ".") {
                isInteger = false
                i += 1
                let fractionStart = i
                while i < end {
                    // Eight digits at a time once the leading zeros are behind (a 17-digit fraction is common).
                    if mantissa > 0, digitCount <= 11, end - i >= 8 {
                        let chunk = UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
                        if Reader.isEightDigits(chunk) {
                            mantissa = mantissa &* 100_000_000 &+ Reader.eightDigits(chunk)
                            scale -= 8
                            digitCount += 8
                            i += 8
                            continue
                        }
                    }
                    let d = p[i] &- UInt8(ascii: "0")
                    if d > 9 { break }
                    if digitCount < 19 {
                        mantissa = mantissa &* 10 &+ UInt64(d)
                        scale -= 1
                        if mantissa > 0 { digitCount += 1 }
                    } else {
                        digitCount = 20  // digits dropped: only the slow path is exact
                    }
                    i += 1
                }
                if i == fractionStart { index = i; throw error("expected digits after '.'") }
            }
            var exponent = 0
            if i < end, p[i] == UInt8(ascii: "e") || p[i] == UInt8(ascii: "E") {
                isInteger = false
                i += 1
                var exponentNegative = false
                if i < end, p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-") {
                    exponentNegative = p[i] == UInt8(ascii: "-")
                    i += 1
                }
                let exponentStart = i
                while i < end {
                    let d = p[i] &- UInt8(ascii: "0")
                    if d > 9 { break }
                    if exponent < 100_000 { exponent = exponent * 10 + Int(d) }
                    i += 1
                }
                if i == exponentStart { index = i; throw error("expected digits in the exponent") }
                if exponentNegative { exponent = -exponent }
            }
            // Integers that a Double cannot hold exactly keep their text; everything else of up to 19
            // significant digits is converted exactly without building a string.
            if digitCount <= 19, !isInteger || mantissa <= 1 << 53,
               let v = DecimalDouble.value(mantissa: mantissa, power: scale + exponent) {
                return (negative ? -v : v, false)
            }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            guard let v = Double(text) else { index = i; throw error("'\(text)' is not a number") }
            return (v, isInteger)
        }

        mutating func hex4() throws -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("expected four hex digits after \\u") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let b = bytes[index]
                let d: UInt32
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
                default: throw error("expected four hex digits after \\u")
                }
                v = v * 16 + d
                index += 1
            }
            return v
        }

        /// A quoted string; the cursor is on the opening quote.
        mutating func string() throws -> String {
            let open = (line, column)
            index += 1
            let start = index
            // Refused as soon as it is too long, before any of it is copied.
            let end = min(bytes.count, start + Limits.maxStringBytes + 1)
            func tooLong() -> CommandError {
                CommandError("the string that starts here is longer than \(Limits.count(Limits.maxStringBytes)) bytes, "
                    + "the most a string may hold", line: open.0, column: open.1)
            }
            // Fast path: no escapes.
            while index < end {
                let b = bytes[index]
                if b == UInt8(ascii: "\"") {
                    let s = String(decoding: bytes[start..<index], as: UTF8.self)
                    index += 1
                    return s
                }
                if b == UInt8(ascii: "\\") { break }
                if b < 0x20 {
                    if b == UInt8(ascii: "\n") {
                        throw CommandError("the string that starts here is not closed on its line", line: open.0,
                                           column: open.1)
                    }
                    throw error("a control character inside a string (write it as an escape such as \\t)")
                }
                index += 1
            }
            if index == end && end < bytes.count { throw tooLong() }
            var scalars = String.UnicodeScalarView()
            var utf8: [UInt8] = Array(bytes[start..<index])
            func flush() {
                scalars.append(contentsOf: String(decoding: utf8, as: UTF8.self).unicodeScalars)
                utf8.removeAll(keepingCapacity: true)
            }
            while index < bytes.count {
                if index - start > Limits.maxStringBytes { throw tooLong() }
                let b = bytes[index]
                if b == UInt8(ascii: "\"") {
                    index += 1
                    flush()
                    return String(scalars)
                }
                if b < 0x20 {
                    if b == UInt8(ascii: "\n") {
                        throw CommandError("the string that starts here is not closed on its line", line: open.0,
                                           column: open.1)
                    }
                    throw error("a control character inside a string (write it as an escape such as \\t)")
                }
                if b != UInt8(ascii: "\\") {
                    utf8.append(b)
                    index += 1
                    continue
                }
                flush()
                index += 1
                guard index < bytes.count else { break }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if code >= 0xD800 && code < 0xDC00, index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                       bytes[index + 1] == UInt8(ascii: "u") {
                        index += 2
                        let low = try hex4()
                        guard low >= 0xDC00 && low < 0xE000 else { throw error("a broken \\u surrogate pair") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("\\u escape of a lone surrogate") }
                    scalars.append(scalar)
                default:
                    index -= 1
                    throw error("unknown escape '\\\(Character(Unicode.Scalar(e)))' in a string")
                }
            }
            throw CommandError("the string that starts here is never closed", line: open.0, column: open.1)
        }
    }
}

/// One JSON message (a line of a protocol), read with the document file's strict parser: the fields a
/// message holds, by name. Parts that are documents or changes are read by `DocumentDelta`, from the same tree.
///
/// Safe to use from any thread (a value).
public struct JSONMessage: @unchecked Sendable {
    let value: JSONValue

    init(_ value: JSONValue) { self.value = value }

    /// Parses one JSON value; malformed text throws a one-line `CommandError` naming the column.
    public static func parse(_ bytes: [UInt8]) throws -> JSONMessage {
        JSONMessage(try JSONValue.parse(bytes))
    }

    /// Parses one JSON value from memory that stays valid for the call.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws -> JSONMessage {
        JSONMessage(try JSONValue.parse(bytes))
    }

    /// The field `key` of an object (nil when absent, or when this is not an object).
    public subscript(key: String) -> JSONMessage? {
        guard case .object(let members) = value.kind else { return nil }
        for member in members where member.key == key { return JSONMessage(member.value) }
        return nil
    }

    /// The field names of an object, in order.
    public var keys: [String] {
        guard case .object(let members) = value.kind else { return [] }
        return members.map(\.key)
    }

    public var string: String? {
        if case .string(let s) = value.kind { return s }
        return nil
    }

    public var number: Double? {
        if case .number(let d, _) = value.kind { return d }
        return nil
    }

    /// A whole number (nil for a fraction or a number too large for an Int).
    public var int: Int? {
        guard let d = number, d == d.rounded(), abs(d) < 0x1p62 else { return nil }
        return Int(d)
    }

    public var bool: Bool? {
        if case .bool(let b) = value.kind { return b }
        return nil
    }

    public var isNull: Bool {
        if case .null = value.kind { return true }
        return false
    }

    public var array: [JSONMessage]? {
        if case .array(let items) = value.kind { return items.map(JSONMessage.init) }
        return nil
    }

    /// A JSON string literal for `s` (quotes and escapes included).
    public static func quote(_ s: String) -> String { DocumentFile.string(s) }

    /// A JSON number for `v`, read back bit for bit.
    public static func number(_ v: Double) -> String { DocumentFile.number(v) }
}

import TemperaCore

/// What a host reads from a participant: each line taken apart and every number in it checked against `Limits`
/// before anything uses it, so a line either is one of these messages or is refused in one line.
public enum ParticipantMessage {
    /// `{"hello":V,"name":…,"token":…,"session":…,"replied":N}`.
    case hello(Hello)
    case ping(Double)
    case got(Int)
    case play(Bool)
    /// The participant's own cursor, track, selection and modes (read with `Wire.read(view:into:)`).
    case view(JSONMessage)
    /// A command with its id and the view it is to run in; a bare line of the command language has neither.
    case run(String, id: Int?, view: JSONMessage?)

    public struct Hello: Sendable {
        /// The protocol's version the participant speaks (nil: not a whole number).
        public var version: Int?
        public var name: String
        public var token: String?
        /// The key of a participant coming back ("" for a new one), and the last request it had answered.
        public var session: String
        public var replied: Int
    }

    /// The longest name a participant may give (a longer one, or none, is replaced by `guestN`).
    public static let maxName = 40

    /// Reads one line; throws the one-line reason it is refused.
    public static func read(_ bytes: [UInt8]) throws -> ParticipantMessage {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw CommandError("a line that is not UTF-8 text") }
        guard text.first == "{" else { return .run(text, id: nil, view: nil) }
        let m: JSONMessage
        do {
            m = try JSONMessage.parse(bytes)
        } catch {
            throw CommandError("a malformed message: \(error)")
        }
        if let v = m["hello"] {
            let replied = m["replied"]?.int ?? 0
            try Limits.checkCount(replied, upTo: Limits.maxWireInteger, "a hello's last answered request")
            return .hello(Hello(version: v.int, name: m["name"]?.string ?? "", token: m["token"]?.string,
                                session: m["session"]?.string ?? "", replied: replied))
        }
        if let p = m["ping"] {
            guard let t = p.number else { throw CommandError("a ping carries a number") }
            try Limits.checkClock(t, "a ping's time")
            return .ping(t)
        }
        if let g = m["got"] {
            guard let n = g.int else { throw CommandError("got carries a whole number of bytes") }
            try Limits.checkCount(n, upTo: Limits.maxWireInteger, "got")
            return .got(n)
        }
        if let p = m["play"] {
            guard let on = p.bool else { throw CommandError("play is true or false") }
            return .play(on)
        }
        if let text = m["run"] {
            guard let text = text.string else { throw CommandError("run carries a line of the command language") }
            var id: Int?
            if let i = m["id"] {
                guard let n = i.int, n >= 1, n <= Limits.maxWireInteger else {
                    throw CommandError("a request id counts from 1 (up to \(Limits.count(Limits.maxWireInteger)))")
                }
                id = n
            }
            return .run(text, id: id, view: m["view"])
        }
        if let v = m["view"] { return .view(v) }
        throw CommandError("a message of unknown kind (known: hello, run, view, ping, play, got)")
    }
}

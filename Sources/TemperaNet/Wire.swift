import TemperaCore

/// The protocol's messages: one line each, JSON objects, except that a participant may also send a bare line
/// of the command language. See the manual (docs/manual.md, "Playing together") for the whole exchange.
///
/// Participant to host:
/// - `{"hello":2,"name":"ana","token":"…","session":"KEY","replied":N}` first (session and replied when
///   coming back after a broken connection); 2 is the protocol's version, and a host refuses another in one line;
/// - `{"got":N}`: the participant has read N bytes of the connection (every `acknowledgeEvery` bytes);
/// - `{"id":17,"run":"shift 1/8"}` (or the bare text `shift 1/8`): a command, ids growing;
/// - `{"ping":T}`: a clock probe, answered at once with the host's clock;
/// - `{"play":true}` / `{"play":false}`: start everyone playing from the start, or stop everyone.
///
/// Host to participant:
/// - `{"welcome":"ana","protocol":2,"session":"KEY","host":"studio","done":17,"results":[…]}` (with
///   `"recovered":N` when the host replayed N changes from its journal after a crash), then
/// - the document with its marker ids, streamed in short lines (`DocumentSnapshot`):
///   `{"snapshot":SEQ,"next":N,"counts":[…],"head":{…}}` then `{"part":TRACK,"ids":[…],"markers":[…]}`…, then
///   the changes as they happen:
/// - `{"delta":N,"by":"ana","name":"shift","change":{…}}`;
/// - `{"reply":17,"ok":"message"}` or `{"reply":17,"error":"nothing is selected"}` to the sender only,
///   with `"view":{…}` when the sender's cursor, selection or modes changed;
/// - `{"presence":[{"name":"ana","cursor":0.5,"track":0},…]}` when someone comes, goes or moves;
/// - `{"transport":{"playing":true,"start":3,"at":H,"music":0,"rate":1,"span":2}}`: the shared transport
///   (see `SharedTransport`), to everyone when it starts, stops or changes pace, and to a joiner;
/// - `{"pong":T,"host":H}`; `{"error":"…"}` for a line that is not a message.
///
/// How the host writes: a line longer than 64 KiB goes out cut into pieces, each its own line starting with `+`,
/// the last with `=` (the participant joins them); a pong goes out ahead of whatever waits (after the piece
/// being written); and no more than `window` bytes go out beyond what the participant has acknowledged
/// (`got`). So a pong has at most a window and a piece ahead of it, however large the changes before it.
public enum Wire {
    /// The protocol's version (the number in hello): cut lines, acknowledgements and streamed snapshots
    /// came with 2.
    public static let version = 2
    /// Bytes the host writes to a participant beyond those it has acknowledged.
    public static let window = 1 << 20
    /// How often a participant acknowledges what it has read, in bytes.
    public static let acknowledgeEvery = 128 << 10
    /// The longest line a participant may send; longer ones are refused (and skipped to their end).
    public static let maxRequestLine = 64 * 1024
    /// The longest line a participant accepts from a host (a whole large document fits).
    public static let maxHostLine = 512 * 1024 * 1024

    static func q(_ s: String) -> String { JSONMessage.quote(s) }
    static func n(_ v: Double) -> String { JSONMessage.number(v) }

    // MARK: Participant to host

    public static func hello(name: String, token: String?, session: String?, replied: Int) -> String {
        var out = "{\"hello\":\(version),\"name\":\(q(name))"
        if let token { out += ",\"token\":\(q(token))" }
        if let session { out += ",\"session\":\(q(session)),\"replied\":\(replied)" }
        return out + "}"
    }

    public static func request(id: Int, _ command: String, view: Session.View? = nil) -> String {
        "{\"id\":\(id),\"run\":\(q(command))" + (view.map { ",\"view\":" + Wire.view($0) } ?? "") + "}"
    }

    /// The participant's own cursor, track, selection and modes, sent when they change.
    public static func viewMessage(_ v: Session.View) -> String { "{\"view\":" + view(v) + "}" }

    public static func ping(_ t: Double) -> String { "{\"ping\":\(n(t))}" }

    /// The participant has read `bytes` bytes of the connection.
    public static func got(_ bytes: Int) -> String { "{\"got\":\(bytes)}" }

    public static func play(_ on: Bool) -> String { "{\"play\":\(on)}" }

    // MARK: Host to participant

    public static func welcome(name: String, session: String, host: String, done: Int,
                               results: [(id: Int, outcome: SharedDocument.Outcome)], recovered: Int = 0) -> String {
        var out = "{\"welcome\":\(q(name)),\"protocol\":\(version),\"session\":\(q(session)),\"host\":\(q(host)),\"done\":\(done)"
        if recovered > 0 { out += ",\"recovered\":\(recovered)" }
        out += ",\"results\":["
        out += results.map { r in
            "{\"id\":\(r.id)" + (r.outcome.error.map { ",\"error\":\(q($0))" } ?? ",\"ok\":" + (r.outcome.message.map(q) ?? "null")) + "}"
        }.joined(separator: ",")
        return out + "]}"
    }

    /// The bytes the whole document takes on the wire (made a line at a time and counted).
    public static func snapshotSize(_ document: Document, seq: Int) -> Int {
        var writer = DocumentSnapshot.Writer(document, seq: seq)
        var n = 0
        while let line = writer.next() { n += line.count }
        return n
    }

    /// The whole document's lines, made as the connection takes them.
    public static func snapshot(_ writer: DocumentSnapshot.Writer) -> () -> [UInt8]? {
        var writer = writer
        return { writer.next() }
    }

    /// `change`: the delta's change as `DocumentDelta.encoded()` writes it, when the caller has it already.
    public static func delta(_ d: SharedDocument.Delta, change: String? = nil) -> String {
        "{\"delta\":\(d.seq),\"by\":\(q(d.by)),\"name\":\(q(d.name)),\"change\":" + (change ?? d.change.encoded()) + "}"
    }

    public static func reply(id: Int?, _ outcome: SharedDocument.Outcome, view: Session.View?) -> String {
        var out = "{\"reply\":" + (id.map(String.init) ?? "null")
        if let error = outcome.error {
            out += ",\"error\":\(q(error))"
        } else {
            out += ",\"ok\":" + (outcome.message.map(q) ?? "null")
        }
        if let seq = outcome.deltas.last?.seq { out += ",\"seq\":\(seq)" }
        if let view { out += ",\"view\":" + Wire.view(view) }
        return out + "}"
    }

    public static func view(_ v: Session.View) -> String {
        var out = "{\"cursor\":\(n(v.cursor)),\"track\":\(v.currentTrack),\"clipMode\":\(v.clipMode),\"snap\":\(v.snap)"
        out += ",\"clip\":\(q(v.chosenClip.code)),\"subdivision\":\(v.subdivision),\"selection\":["
        out += v.selection.keys.sorted().map { t in
            "[\(t),[" + v.selection[t]!.sorted().map { String($0) }.joined(separator: ",") + "]]"
        }.joined(separator: ",")
        return out + "]}"
    }

    /// Reads a view sent by `view(_:)` onto `v` (the random generator stays the participant's own). Every value
    /// is checked against `Limits` first: one outside them (a cursor at 1e308, a track of -1, a selection of more
    /// markers than a document holds) refuses the whole view in one line and `v` stays as it was.
    public static func read(view m: JSONMessage, into v: inout Session.View) throws {
        var out = v
        if let c = m["cursor"] {
            guard let t = c.number else { throw CommandError("a view's cursor must be a number") }
            try Limits.checkCursor(t)
            out.cursor = t
        }
        if let t = m["track"] {
            guard let k = t.int else { throw CommandError("a view's track must be a whole number") }
            try Limits.checkTrack(k)
            out.currentTrack = k
        }
        if let b = m["clipMode"]?.bool { out.clipMode = b }
        if let b = m["snap"]?.bool { out.snap = b }
        if let c = m["clip"]?.string, let content = Content(code: c) { out.chosenClip = content }
        if let s = m["subdivision"] {
            guard let n = s.int, n >= 1, n <= Limits.maxSubdivision else {
                throw CommandError("a view's subdivision must be from 1 to \(Limits.count(Limits.maxSubdivision))")
            }
            out.subdivision = n
        }
        if let sel = m["selection"] {
            guard let pairs = sel.array else { throw CommandError("a view's selection must be a list") }
            try Limits.checkCount(pairs.count, upTo: Limits.maxTracks, "a selection over tracks numbering")
            var selection: [Int: Set<MarkerID>] = [:]
            var total = 0
            for pair in pairs {
                guard let items = pair.array, items.count == 2, let t = items[0].int, let ids = items[1].array else {
                    throw CommandError("a view's selection is a list of [TRACK,[ID,…]] pairs")
                }
                try Limits.checkTrack(t)
                total = Limits.sum(total, ids.count)
                try Limits.checkCount(total, upTo: Limits.maxSelected, "a selection of markers numbering")
                var set = selection[t] ?? []
                for id in ids {
                    guard let n = id.int, n >= 0, n <= Int(MarkerID.max) else {
                        throw CommandError("a view's selection names a marker id that is not one")
                    }
                    set.insert(MarkerID(n))
                }
                selection[t] = set
            }
            out.selection = selection
        }
        v = out
    }

    /// Reads one participant of a presence message, checked against `Limits` (nil: outside them, or not one).
    public static func read(presence p: JSONMessage) -> (name: String, cursor: Double, track: Int)? {
        guard let name = p["name"]?.string, let cursor = p["cursor"]?.number, let track = p["track"]?.int,
              (try? Limits.checkCursor(cursor)) != nil, (try? Limits.checkTrack(track)) != nil else { return nil }
        return (name, cursor, track)
    }

    public static func presence(_ people: [(name: String, cursor: Double, track: Int)]) -> String {
        "{\"presence\":[" + people.map { "{\"name\":\(q($0.name)),\"cursor\":\(n($0.cursor)),\"track\":\($0.track)}" }
            .joined(separator: ",") + "]}"
    }

    public static func transport(_ t: SharedTransport) -> String {
        "{\"transport\":{\"playing\":\(t.playing),\"start\":\(t.start),\"at\":\(n(t.at)),\"music\":\(n(t.music))"
            + ",\"rate\":\(n(t.rate)),\"span\":\(n(t.span))}}"
    }

    /// Reads a transport sent by `transport(_:)`, every number checked against `Limits` (a start at 1e308 would
    /// have a player wait forever, or trap turning it into nanoseconds).
    public static func read(transport m: JSONMessage) throws -> SharedTransport {
        var t = SharedTransport()
        t.playing = m["playing"]?.bool ?? false
        t.start = m["start"]?.int ?? 0
        try Limits.checkCount(t.start, upTo: Limits.maxWireInteger, "a transport's start count")
        t.at = m["at"]?.number ?? 0
        try Limits.checkClock(t.at, "a transport's start time")
        t.music = m["music"]?.number ?? 0
        try Limits.checkSpan(abs(t.music), upTo: Limits.maxClock * Limits.maxRate, "a transport's music time")
        t.rate = m["rate"]?.number ?? 0
        try Limits.checkSpan(t.rate, upTo: Limits.maxRate, "a transport's rate")
        t.span = m["span"]?.number ?? 0
        try Limits.checkSpan(t.span, upTo: Limits.maxTime, "a transport's loop length")
        return t
    }

    public static func pong(_ t: Double, host: Double) -> String { "{\"pong\":\(n(t)),\"host\":\(n(host))}" }

    public static func error(_ message: String) -> String { "{\"error\":\(q(message))}" }
}

/// A token file's secret: its first line, without its line ending (`\n` or `\r\n`), read as bytes: in Swift
/// text `"\r\n"` is one Character, so splitting the text on `"\n"` would miss it and take the whole file.
public enum TokenFile {
    public static func token(from bytes: [UInt8]) -> String {
        var line = bytes.prefix { $0 != 0x0A }
        if line.last == 0x0D { line = line.dropLast() }
        return String(decoding: line, as: UTF8.self)
    }
}

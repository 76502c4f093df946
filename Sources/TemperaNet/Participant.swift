import Dispatch
import TemperaCore
#if canImport(Glibc)
import Glibc
#endif

/// A participant's end of a shared document: a copy of the document kept in step with the host's numbered
/// changes, and the commands it sends. Commands are numbered and kept until the host answers them; when the
/// connection breaks they wait, and on reconnecting the host says which it already ran (with their answers)
/// and the rest are sent again, in order. A participant whose connection is down keeps its copy of the
/// document and its queue.
///
/// - Warning: call it from any thread; it works on `queue`, and `onEvent` runs there.
public final class Participant: @unchecked Sendable {
    /// What the participant learns.
    public enum Event: Sendable {
        /// Connected (again) and holding the host's document.
        case joined(name: String, host: String)
        /// A change applied to the copy (`mine`: made by one of this participant's commands).
        case changed(SharedDocument.Delta)
        /// The host answered a command: `error` set when it was refused.
        case answered(id: Int, command: String, message: String?, error: String?)
        /// Who is there and where their cursors are.
        case presence([Presence])
        /// The host said something is wrong with what was sent, or the connection broke.
        case notice(String)
        case disconnected
    }

    /// One participant's cursor, as the host reports it.
    public struct Presence: Sendable, Equatable {
        public var name: String
        public var cursor: Double
        public var track: Int
    }

    public let queue = DispatchQueue(label: "tempera.participant")
    public let host: String
    public let port: Int
    public var name: String
    public let token: String?
    public var onEvent: (@Sendable (Event) -> Void)?

    /// The document as the host last said it is.
    public private(set) var document = Document(tracks: [])
    /// The number of the last change applied.
    public private(set) var seq = -1
    /// This participant's cursor, selection and modes as the host keeps them.
    public private(set) var view = Session.View(random: SeededRandom(seed: 1))
    public private(set) var presence: [Presence] = []
    /// Commands sent or waiting to be sent, not yet answered, in order.
    public private(set) var unanswered: [(id: Int, command: String)] = []
    /// Answers received, by id (the accounting a test reads).
    public private(set) var answers: [Int: (message: String?, error: String?)] = [:]
    /// True between the host's welcome and the connection breaking.
    public private(set) var connected = false
    /// The name the host gave (it adds a number when two share a name).
    public private(set) var givenName: String?
    /// The number of the change the host's last answer followed (the copy is up to date once `seq` reaches it).
    public private(set) var lastReplySeq = 0
    /// Commands sent again after a reconnect.
    public private(set) var resent = 0

    private var connection: LineConnection?
    private var sessionKey: String?
    private var nextID = 1
    private var lastAnswered = 0
    private var sentUpTo = 0
    /// The highest id ever written to a connection.
    private var highestSent = 0

    public init(host: String, port: Int, name: String, token: String? = nil) {
        self.host = host
        self.port = port
        self.name = name
        self.token = token
    }

    /// Connects and says hello (again, after a break: the host then sends what was missed). Throws a
    /// one-line error when the host cannot be reached.
    public func connect() throws {
        let fd = try Sockets.connect(host: host, port: port)
        queue.sync {
            let c = LineConnection(fd: fd, queue: queue, maxLine: Wire.maxHostLine, peer: "\(host):\(port)")
            c.onInput = { [weak self] input in self?.handle(input) }
            c.onClose = { [weak self] in self?.lost() }
            connection = c
            c.start()
            c.send(Wire.hello(name: name, token: token, session: sessionKey, replied: lastAnswered))
        }
    }

    /// Breaks the connection at once, as a network fault would (queued commands stay).
    public func cut() {
        queue.sync { connection?.close() }
    }

    /// Sends one command of the language (queued while disconnected) and returns its id.
    @discardableResult
    public func send(_ command: String) -> Int {
        queue.sync {
            let id = nextID
            nextID += 1
            unanswered.append((id, command))
            if connected {
                connection?.send(Wire.request(id: id, command))
                sentUpTo = id
                highestSent = id
            }
            return id
        }
    }

    /// Splits "HOST:PORT" ("[V6]:PORT"; the port defaults to 7400).
    public static func split(_ address: String) throws -> (host: String, port: Int) {
        try Sockets.split(address, defaultPort: 7400)
    }

    /// Sends a clock probe.
    public func ping() {
        queue.async { [self] in connection?.send(Wire.ping(monotonicSeconds())) }
    }

    /// Runs `body` on the participant's queue (to read its state consistently).
    public func sync<T>(_ body: (Participant) throws -> T) rethrows -> T {
        try queue.sync { try body(self) }
    }

    private func lost() {
        connection = nil
        let was = connected
        connected = false
        sentUpTo = 0
        if was { onEvent?(.disconnected) }
    }

    private func handle(_ input: LineConnection.Input) {
        guard case .line(let bytes) = input else { return }
        let m: JSONMessage
        do {
            m = try JSONMessage.parse(bytes)
        } catch {
            onEvent?(.notice("the host sent a malformed line: \(error)"))
            return
        }
        if let seq = m["delta"]?.int { return delta(m, seq: seq) }
        if let id = m["reply"] {
            if let v = m["view"] { Wire.read(view: v, into: &view) }
            if let s = m["seq"]?.int { lastReplySeq = max(lastReplySeq, s) }
            guard let id = id.int else { return }
            return answered(id, message: m["ok"]?.string, error: m["error"]?.string)
        }
        if let people = m["presence"]?.array {
            presence = people.compactMap { p in
                guard let n = p["name"]?.string, let c = p["cursor"]?.number, let t = p["track"]?.int else { return nil }
                return Presence(name: n, cursor: c, track: t)
            }
            onEvent?(.presence(presence))
            return
        }
        if let given = m["welcome"]?.string { return welcome(m, name: given) }
        if let error = m["error"]?.string {
            onEvent?(.notice(error))
            return
        }
        if m["pong"] != nil { return }
    }

    private func welcome(_ m: JSONMessage, name given: String) {
        givenName = given
        sessionKey = m["session"]?.string
        // Answers missed while the connection was down.
        for r in m["results"]?.array ?? [] {
            guard let id = r["id"]?.int else { continue }
            answered(id, message: r["ok"]?.string, error: r["error"]?.string)
        }
        let done = m["done"]?.int ?? 0
        // Requests the host ran whose answers are gone from its memory count as answered without a message.
        while let first = unanswered.first, first.id <= done { answered(first.id, message: nil, error: nil) }
        connected = true
        onEvent?(.joined(name: given, host: m["host"]?.string ?? host))
        for (id, command) in unanswered {
            connection?.send(Wire.request(id: id, command))
            if id <= highestSent { resent += 1 }
            sentUpTo = id
            highestSent = max(highestSent, id)
        }
    }

    private func answered(_ id: Int, message: String?, error: String?) {
        guard let k = unanswered.firstIndex(where: { $0.id == id }) else { return }
        let command = unanswered[k].command
        unanswered.remove(at: k)
        answers[id] = (message, error)
        lastAnswered = max(lastAnswered, id)
        onEvent?(.answered(id: id, command: command, message: message, error: error))
    }

    private func delta(_ m: JSONMessage, seq: Int) {
        guard let c = m["change"] else { return }
        do {
            let change = try DocumentDelta(decoding: c)
            if m["snapshot"]?.bool == true {
                document = change.whole ?? document
                self.seq = seq
                return
            }
            guard seq == self.seq + 1 else {
                onEvent?(.notice("change \(seq) arrived after \(self.seq): reconnecting"))
                connection?.close()
                return
            }
            try change.apply(to: &document)
            self.seq = seq
            onEvent?(.changed(SharedDocument.Delta(seq: seq, by: m["by"]?.string ?? "", name: m["name"]?.string ?? "",
                                                   change: change)))
        } catch {
            onEvent?(.notice("a change from the host does not apply: \(error)"))
            connection?.close()
        }
    }
}

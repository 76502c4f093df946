import CLiblo
import Foundation
import TemperaCore
import TemperaStudio
#if canImport(Glibc)
import Glibc
#endif

/// One message from a session manager speaking NSM (New Session Manager's OSC protocol).
public enum NSMMessage: Sendable, Equatable {
    /// `/nsm/client/open s s s`: the path (without extension) to keep this client's files at, the name shown for
    /// the client, and its id.
    case open(path: String, displayName: String, clientID: String)
    /// `/nsm/client/save`.
    case save
    /// `/nsm/client/session_is_loaded`: every client of the session has opened its files.
    case sessionIsLoaded
    /// `/reply s s ...`: the path answered and what was said (for the announce: the server's name and capabilities
    /// follow).
    case reply(path: String, message: String, more: [String])
    /// `/error s i s`: the path refused, the code and the reason.
    case error(path: String, code: Int, message: String)
    /// Any other address (a capability this client did not announce): ignored.
    case other(String)

    /// One datagram as a message; nil for what is not an OSC message.
    static func decode(_ data: UnsafeMutableRawPointer, _ size: Int) -> NSMMessage? {
        guard let pathPointer = lo_get_path(data, size) else { return nil }
        let path = String(cString: pathPointer)
        var result: Int32 = 0
        guard path.hasPrefix("/"), let message = lo_message_deserialise(data, size, &result), result == 0 else { return nil }
        defer { lo_message_free(message) }
        let count = Int(lo_message_get_argc(message))
        func string(_ i: Int) -> String? {
            guard i < count, let s = CLiblo_string(message, Int32(i)) else { return nil }
            return String(cString: s)
        }
        switch path {
        case "/nsm/client/open":
            guard let p = string(0), let name = string(1), let id = string(2) else { return .other(path) }
            return .open(path: p, displayName: name, clientID: id)
        case "/nsm/client/save": return .save
        case "/nsm/client/session_is_loaded": return .sessionIsLoaded
        case "/reply":
            guard let answered = string(0) else { return .other(path) }
            return .reply(path: answered, message: string(1) ?? "", more: (2..<max(2, count)).compactMap { string($0) })
        case "/error":
            var ok: Int32 = 0
            let code = count > 1 ? CLiblo_number(message, 1, &ok) : 0
            guard let answered = string(0) else { return .other(path) }
            return .error(path: answered, code: ok != 0 ? Int(code) : -1, message: string(2) ?? "")
        default: return .other(path)
        }
    }
}

/// A client of an NSM session manager (`NSM_URL`): announces tempera, opens the document the manager names
/// (`PATH.tempera`: see docs/decisions/files.md), saves when asked, and says when the document has changes not
/// saved and when it has none. The messages arrive on a socket of its own (`OSCServer`, dialect `.nsm`) and are
/// handled on the owning thread by `service`, through the session's host: the document is opened with
/// `SessionHost.adopt` and saved with `SessionHost.save`, as `open` and `w` would.
///
/// - Warning: the owning thread only (where `service` is called).
public final class NSMClient {
    /// The manager's address, from `NSM_URL`.
    public let manager: OSCPeer
    public let server: OSCServer
    /// What the manager said to the announce (its name), once it did.
    public private(set) var managerName: String?
    /// The file opened for the manager (nil until it said where).
    public private(set) var documentPath: String?
    /// The last state told (`is_dirty` true, `is_clean` false; nil: nothing told yet).
    private var toldDirty: Bool?

    /// NSM's error codes this client answers with.
    public enum ErrorCode: Int32 {
        case general = -1, badProject = -9, createFailed = -10
    }

    /// The capabilities announced: `dirty` (this client says when its document has unsaved changes).
    public static let capabilities = ":dirty:"
    /// The API version spoken.
    public static let apiVersion: (major: Int32, minor: Int32) = (1, 2)
    /// The extension of the document kept at the path the manager gives.
    public static let documentExtension = ".tempera"

    /// A client of the manager at `url` (`osc.udp://HOST:PORT/`), listening on a port of the system's choice: on
    /// loopback when the manager is on this machine's loopback, else on every address (the manager must reach
    /// it). A URL that cannot be read or reached throws one line.
    public init(url: String, arrived: @escaping @Sendable () -> Void) throws {
        let (host, port) = try Self.parse(url)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let info = found else {
            throw OSCError(description: "NSM_URL \(url): no address for \(host)")
        }
        defer { freeaddrinfo(found) }
        let bytes = Array(UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: Int(info.pointee.ai_addrlen)))
        manager = OSCPeer(bytes: bytes)
        let v6 = info.pointee.ai_family == AF_INET6
        let loopback: Bool
        if v6 {
            // ::1: fifteen zero bytes and a one, from the address's offset (8) in sockaddr_in6.
            loopback = bytes.count >= 24 && bytes[8..<23].allSatisfy { $0 == 0 } && bytes[23] == 1
        } else {
            // 127.0.0.0/8: the address's first byte, at offset 4 in sockaddr_in.
            loopback = bytes.count >= 8 && bytes[4] == 127
        }
        let listen = v6 ? (loopback ? "::1" : "::") : (loopback ? "127.0.0.1" : "0.0.0.0")
        server = try OSCServer(listen: listen, port: 0, dialect: .nsm, arrived: arrived)
    }

    /// `osc.udp://HOST:PORT/` (an IPv6 host in brackets) as host and port; throws one line for anything else.
    static func parse(_ url: String) throws -> (host: String, port: Int) {
        let bad = OSCError(description: "NSM_URL must be osc.udp://HOST:PORT/ (got \(url.prefix(120)))")
        guard url.hasPrefix("osc.udp://") else { throw bad }
        var rest = Substring(url.dropFirst("osc.udp://".count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        let host: Substring, portText: Substring
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]"), rest[rest.index(after: close)...].hasPrefix(":") else { throw bad }
            host = rest[rest.index(after: rest.startIndex)..<close]
            portText = rest[rest.index(close, offsetBy: 2)...]
        } else {
            guard let colon = rest.lastIndex(of: ":") else { throw bad }
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        }
        guard !host.isEmpty, let port = Int(portText), (1...65_535).contains(port) else { throw bad }
        return (String(host), port)
    }

    /// `/nsm/server/announce`: this client's name, capabilities, executable, API version and process id.
    public func announce(executable: String = "tempera") {
        server.send("/nsm/server/announce", [.string("tempera"), .string(Self.capabilities), .string(executable),
                                             .int(Self.apiVersion.major), .int(Self.apiVersion.minor), .int(getpid())],
                    to: manager)
    }

    /// What `service` did, for the owner to say.
    public enum Event: Equatable {
        /// The manager answered the announce (its name).
        case welcomed(String)
        /// The manager refused the announce: the client should leave.
        case refused(String)
        case opened(String)
        case saved(String)
        /// Opening or saving failed (the line sent to the manager).
        case failed(String)
    }

    /// Handles what arrived: opens (through `session().host`, the session as it now stands), saves, and tells the
    /// manager when the document's unsaved state changed. What happened, in order.
    @discardableResult
    public func service(session: () -> Session) -> [Event] {
        var events: [Event] = []
        for request in server.take() {
            guard case .nsm(let message) = request.kind else { continue }
            switch message {
            case .reply(let path, let text, let more) where path == "/nsm/server/announce":
                managerName = more.first ?? text
                events.append(.welcomed(managerName ?? ""))
            case .error(let path, let code, let text) where path == "/nsm/server/announce":
                events.append(.refused("the session manager refused tempera (\(code)): \(text)"))
            case .open(let path, _, _):
                events.append(open(path + Self.documentExtension, session: session()))
            case .save:
                events.append(save(session()))
            case .reply, .error, .sessionIsLoaded, .other:
                break
            }
        }
        if documentPath != nil {
            let dirty = session().isModified
            if dirty != toldDirty {
                toldDirty = dirty
                server.send(dirty ? "/nsm/client/is_dirty" : "/nsm/client/is_clean", [], to: manager)
            }
        }
        return events
    }

    private func open(_ path: String, session current: Session) -> Event {
        do {
            guard let host = current.host else { throw CommandError("nothing here opens documents") }
            let opened = try DocumentFileSession.managed(at: path)
            _ = try host.adopt(opened)
            documentPath = path
            toldDirty = nil
            server.send("/reply", [.string("/nsm/client/open"), .string("opened \(path)")], to: manager)
            return .opened(path)
        } catch {
            let code: ErrorCode = FileManager.default.fileExists(atPath: path) ? .badProject : .createFailed
            let line = "\(error)"
            server.send("/error", [.string("/nsm/client/open"), .int(code.rawValue), .string(line)], to: manager)
            return .failed(line)
        }
    }

    private func save(_ session: Session) -> Event {
        do {
            guard let path = documentPath, session.path == path, let host = session.host else {
                throw CommandError("no document of this session is open")
            }
            _ = try host.save(nil, thenQuit: false)
            // A host that could not save says why on its own screen; the document is then still modified.
            guard !session.isModified else { throw CommandError("\(path) could not be saved") }
            server.send("/reply", [.string("/nsm/client/save"), .string("saved \(path)")], to: manager)
            return .saved(path)
        } catch {
            let line = "\(error)"
            server.send("/error", [.string("/nsm/client/save"), .int(ErrorCode.general.rawValue), .string(line)],
                        to: manager)
            return .failed(line)
        }
    }

    /// Stops listening.
    public func close() { server.close() }
}

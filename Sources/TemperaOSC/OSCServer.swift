import CLiblo
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where an OSC message came from, to answer it there: the sender's socket address.
public struct OSCPeer: Hashable, Sendable, CustomStringConvertible {
    let bytes: [UInt8]

    /// `127.0.0.1:57120`.
    public var description: String {
        var host = [CChar](repeating: 0, count: 64), port = [CChar](repeating: 0, count: 16)
        let ok = bytes.withUnsafeBytes { raw in
            getnameinfo(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(bytes.count), &host, 64, &port, 16,
                        NI_NUMERICHOST | NI_NUMERICSERV)
        }
        guard ok == 0 else { return "?" }
        return String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + ":"
            + String(decoding: port.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// One OSC message as the owning thread receives it: what it asks, and who asked.
public struct OSCRequest: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// `/tempera/command s`: one line of the command language.
        case command(String)
        /// `/tempera/play`, `/tempera/stop`, `/tempera/locate f`.
        case play, stop, locate(Double)
        /// `/tempera/subscribe`, `/tempera/unsubscribe`: the state about 20 times a second, or no more.
        case subscribe, unsubscribe
        /// Anything else: the line saying why it was not taken.
        case refused(String)
        /// What a session manager says (on an NSM client's port: `OSCServer.Dialect.nsm`).
        case nsm(NSMMessage)
    }
    public var kind: Kind
    public var sender: OSCPeer
}

/// A value of an OSC message tempera sends.
public enum OSCValue: Sendable, Equatable {
    case string(String), float(Float), int(Int32)
}

/// What could not be set up, in one line.
public struct OSCError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// The OSC port: a UDP socket bound to one address (loopback unless asked otherwise), read on a thread of its own,
/// its messages decoded with liblo and handed to the owning thread through `take()`; answers are encoded with liblo
/// and sent from that socket, so a client hears them from the port it wrote to. The reading thread never touches a
/// session: it only decodes, queues and calls `arrived` (which wakes the owning loop).
///
/// liblo's own server thread is not used because liblo 0.31 binds every address (`0.0.0.0`) whatever it is given,
/// and a program that edits files must not listen beyond the machine unless asked.
///
/// - Warning: `take`, `send` and `close` from the owning thread; `arrived` is called on the reading thread.
public final class OSCServer: Sendable {
    /// The port bound (the one asked, or the system's choice for 0).
    public let port: Int
    private let fd: Int32
    private let inbox = Mutex<[OSCRequest]>([])
    private let closed = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)
    /// The largest datagram read; a longer one is cut, and liblo refuses it.
    static let datagramLimit = 65_536
    /// Messages waiting for the owning thread at most: a flood beyond it is dropped, never queued without end.
    static let inboxLimit = 1_024

    /// What the messages arriving are read as: tempera's own addresses (`--osc`), or a session manager's.
    public enum Dialect: Sendable {
        case tempera, nsm
    }

    /// Binds `listen:port` (an IPv4 or IPv6 address) and starts reading. A port taken or an address that is not
    /// this machine's throws one line.
    public init(listen: String, port: Int, dialect: Dialect = .tempera, arrived: @escaping @Sendable () -> Void) throws {
        guard (0...65_535).contains(port) else { throw OSCError(description: "the OSC port must be from 0 to 65535, not \(port)") }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(listen, String(port), &hints, &found) == 0, let info = found else {
            throw OSCError(description: "--osc-listen \(listen) is not an IP address")
        }
        defer { freeaddrinfo(found) }
        let fd = socket(info.pointee.ai_family, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw OSCError(description: "no OSC socket: \(String(cString: strerror(errno)))") }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let why = String(cString: strerror(errno))
            Glibc.close(fd)
            throw OSCError(description: "cannot listen for OSC on \(listen):\(port): \(why)")
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            getsockname(fd, UnsafeMutableRawPointer($0).assumingMemoryBound(to: sockaddr.self), &length)
        }
        self.port = Int(withUnsafeBytes(of: bound) { raw -> UInt16 in
            // sin_port and sin6_port sit at the same offset, in network order.
            UInt16(raw[2]) << 8 | UInt16(raw[3])
        })
        self.fd = fd
        let thread = Thread { [self] in self.read(dialect: dialect, arrived: arrived) }
        thread.name = "tempera-osc"
        thread.start()
    }

    /// Stops reading and closes the socket (waits for the reading thread, at most its poll interval). The reading
    /// thread holds the server until then.
    public func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        while !finished.load(ordering: .acquiring) { usleep(5_000) }
        Glibc.close(fd)
    }

    /// The messages that arrived since the last call, oldest first.
    public func take() -> [OSCRequest] {
        inbox.withLock { box in
            defer { box.removeAll() }
            return box
        }
    }

    /// Sends `path` with `values` to `peer`, from the bound port. A peer that is gone is not an error (UDP).
    public func send(_ path: String, _ values: [OSCValue], to peer: OSCPeer) {
        guard let message = lo_message_new() else { return }
        defer { lo_message_free(message) }
        for value in values {
            switch value {
            case .string(let s): lo_message_add_string(message, s)
            case .float(let f): lo_message_add_float(message, f)
            case .int(let i): lo_message_add_int32(message, i)
            }
        }
        var size = 0
        guard let data = lo_message_serialise(message, path, nil, &size) else { return }
        defer { free(data) }
        _ = peer.bytes.withUnsafeBytes { raw in
            sendto(fd, data, size, Int32(MSG_DONTWAIT), raw.baseAddress!.assumingMemoryBound(to: sockaddr.self),
                   socklen_t(peer.bytes.count))
        }
    }

    /// The reading thread: waits for datagrams (a tenth of a second at a time, to see `close`), decodes each.
    private func read(dialect: Dialect, arrived: @Sendable () -> Void) {
        defer { finished.store(true, ordering: .releasing) }
        var buffer = [UInt8](repeating: 0, count: Self.datagramLimit)
        while !closed.load(ordering: .acquiring) {
            var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, 100) > 0 else { continue }
            var from = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let n = buffer.withUnsafeMutableBytes { raw in
                withUnsafeMutablePointer(to: &from) {
                    recvfrom(fd, raw.baseAddress, raw.count, 0, UnsafeMutableRawPointer($0).assumingMemoryBound(to: sockaddr.self),
                             &length)
                }
            }
            guard n > 0 else { continue }
            let peer = OSCPeer(bytes: withUnsafeBytes(of: from) { Array($0.prefix(Int(length))) })
            let decoded = buffer.withUnsafeMutableBytes { raw -> OSCRequest.Kind? in
                switch dialect {
                case .tempera: return Self.decode(raw.baseAddress!, n)
                case .nsm: return NSMMessage.decode(raw.baseAddress!, n).map { .nsm($0) }
                }
            }
            guard let kind = decoded else { continue }
            let queued = inbox.withLock { box -> Bool in
                guard box.count < Self.inboxLimit else { return false }
                box.append(OSCRequest(kind: kind, sender: peer))
                return true
            }
            if queued { arrived() }
        }
    }

    /// One datagram as a request; nil for what is not an OSC message (a bundle, bytes liblo refuses).
    static func decode(_ data: UnsafeMutableRawPointer, _ size: Int) -> OSCRequest.Kind? {
        guard let pathPointer = lo_get_path(data, size) else { return nil }
        let path = String(cString: pathPointer)
        guard path.hasPrefix("/") else { return nil }
        var result: Int32 = 0
        guard let message = lo_message_deserialise(data, size, &result), result == 0 else { return nil }
        defer { lo_message_free(message) }
        let count = Int(lo_message_get_argc(message))
        func number(_ i: Int32) -> Double? {
            var ok: Int32 = 0
            let v = CLiblo_number(message, i, &ok)
            return ok != 0 ? v : nil
        }
        switch path {
        case "/tempera/command":
            guard count == 1, let text = CLiblo_string(message, 0) else {
                return .refused("/tempera/command takes one string: the command line")
            }
            return .command(String(cString: text))
        case "/tempera/play": return .play
        case "/tempera/stop": return .stop
        case "/tempera/locate":
            guard count == 1, let t = number(0) else { return .refused("/tempera/locate takes one number: seconds") }
            return .locate(t)
        case "/tempera/subscribe": return .subscribe
        case "/tempera/unsubscribe": return .unsubscribe
        default:
            return .refused("unknown OSC address \(path.prefix(80)) (/tempera/command s, /tempera/play, /tempera/stop, "
                + "/tempera/locate f, /tempera/subscribe, /tempera/unsubscribe)")
        }
    }
}

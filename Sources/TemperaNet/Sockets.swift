import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Why a socket could not be opened, in one line.
public struct NetError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }

    static func system(_ what: String, _ code: Int32 = errno) -> NetError {
        NetError("\(what): \(String(cString: strerror(code)))")
    }
}

/// The plain POSIX socket calls the host and participants need: resolving, listening, connecting.
enum Sockets {
    /// The addresses `host` names for TCP port `port` (numeric or a name; IPv4 and IPv6).
    static func resolve(_ host: String, port: Int, passive: Bool) throws -> [(family: Int32, address: [UInt8])] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        if passive { hints.ai_flags = AI_PASSIVE }
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw NetError("cannot find '\(host)': \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(first) }
        var out: [(Int32, [UInt8])] = []
        var p: UnsafeMutablePointer<addrinfo>? = first
        while let a = p {
            let bytes = UnsafeRawBufferPointer(start: a.pointee.ai_addr, count: Int(a.pointee.ai_addrlen))
            out.append((a.pointee.ai_family, Array(bytes)))
            p = a.pointee.ai_next
        }
        return out
    }

    /// True for a loopback address (127.0.0.0/8, ::1, ::ffff:127.x).
    static func isLoopback(_ address: [UInt8], family: Int32) -> Bool {
        address.withUnsafeBytes { raw in
            if family == AF_INET {
                let a = raw.load(as: sockaddr_in.self)
                return UInt32(bigEndian: a.sin_addr.s_addr) >> 24 == 127
            }
            if family == AF_INET6 {
                let a = raw.load(as: sockaddr_in6.self)
                let b = withUnsafeBytes(of: a.sin6_addr) { Array($0) }
                if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return true }
                return b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff && b[12] == 127
            }
            return false
        }
    }

    /// "127.0.0.1:7400" for a socket address.
    static func describe(_ address: UnsafeRawPointer, family: Int32) -> String {
        var text = [CChar](repeating: 0, count: 64)
        if family == AF_INET {
            var a = address.load(as: sockaddr_in.self)
            inet_ntop(AF_INET, &a.sin_addr, &text, 64)
            return text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } + ":\(UInt16(bigEndian: a.sin_port))"
        }
        if family == AF_INET6 {
            var a = address.load(as: sockaddr_in6.self)
            inet_ntop(AF_INET6, &a.sin6_addr, &text, 64)
            return "[" + text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } + "]:\(UInt16(bigEndian: a.sin6_port))"
        }
        return "?"
    }

    /// A listening socket on `host:port` (port 0: any free port); returns it and the port it got.
    static func listen(host: String, port: Int) throws -> (fd: Int32, port: Int, loopback: Bool) {
        var lastError = NetError("cannot listen on \(host):\(port)")
        for (family, address) in try resolve(host, port: port, passive: true) {
            let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            if fd < 0 {
                lastError = .system("cannot open a socket")
                continue
            }
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            let bound = address.withUnsafeBytes { raw in
                bind(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            if bound != 0 {
                lastError = .system("cannot listen on \(host):\(port)")
                close(fd)
                continue
            }
            if Glibc.listen(fd, 64) != 0 {
                lastError = .system("cannot listen on \(host):\(port)")
                close(fd)
                continue
            }
            var storage = sockaddr_storage()
            var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
            _ = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
            }
            let actual = withUnsafeBytes(of: storage) { raw -> Int in
                family == AF_INET ? Int(UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port))
                    : Int(UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port))
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            return (fd, actual, isLoopback(address, family: family))
        }
        throw lastError
    }

    /// A listening Unix socket at `path` (only its owner may connect: the folder it is in is the user's own).
    static func listenUnix(path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw NetError.system("cannot open a socket") }
        var address = try unixAddress(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else {
            let e = NetError.system("cannot listen on \(path)")
            close(fd)
            throw e
        }
        _ = chmod(path, 0o600)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }

    /// A socket connected to the Unix socket at `path`.
    static func connectUnix(path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw NetError.system("cannot open a socket") }
        var address = try unixAddress(path)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else {
            let e = NetError.system("cannot connect to \(path)")
            close(fd)
            throw e
        }
        return fd
    }

    static func unixAddress(_ path: String) throws -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { throw NetError("\(path): too long for a socket's path") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        return address
    }

    /// A connected socket to `host:port`, giving up after `timeout` seconds.
    static func connect(host: String, port: Int, timeout: Double = 3) throws -> Int32 {
        var lastError = NetError("cannot connect to \(host):\(port)")
        for (family, address) in try resolve(host, port: port, passive: false) {
            let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            if fd < 0 { continue }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let rc = address.withUnsafeBytes { raw in
                Glibc.connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            if rc == 0 { return fd }
            if errno != EINPROGRESS {
                lastError = .system("cannot connect to \(host):\(port)")
                close(fd)
                continue
            }
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&p, 1, Int32(timeout * 1000))
            var err: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)
            if ready == 1, err == 0 { return fd }
            lastError = ready == 0 ? NetError("cannot connect to \(host):\(port): no answer in \(Int(timeout)) s")
                : .system("cannot connect to \(host):\(port)", err)
            close(fd)
        }
        throw lastError
    }

    /// Splits "HOST:PORT" (or "[V6]:PORT"); a missing port is `defaultPort`.
    static func split(_ address: String, defaultPort: Int) throws -> (host: String, port: Int) {
        var host = address
        var portText: Substring?
        if address.hasPrefix("[") {
            guard let close = address.firstIndex(of: "]") else { throw NetError("'\(address)' is not HOST:PORT") }
            host = String(address[address.index(after: address.startIndex)..<close])
            let rest = address[address.index(after: close)...]
            if rest.hasPrefix(":") { portText = rest.dropFirst() }
        } else if let colon = address.lastIndex(of: ":"), address.firstIndex(of: ":") == colon {
            host = String(address[..<colon])
            portText = address[address.index(after: colon)...]
        }
        if host.isEmpty { host = "127.0.0.1" }
        guard let text = portText else { return (host, defaultPort) }
        guard let port = Int(text), (0...65535).contains(port) else {
            throw NetError("'\(text)' is not a port (0 to 65535)")
        }
        return (host, port)
    }
}

/// Unix sockets for the programs: a document's local host (what `serve --stdio` joins).
public enum LocalSocket {
    /// A socket connected to the Unix socket at `path`; throws a one-line error when nothing listens there.
    public static func connect(path: String) throws -> Int32 { try Sockets.connectUnix(path: path) }
}

import Foundation

/// A TCP port on 127.0.0.1 that nothing listens on now: the kernel's choice for port 0, the socket closed again.
/// (Another process may take it before the test does; the tests that use it bind at once.)
public func freeTCPPort() -> Int { freePort(Int32(SOCK_STREAM.rawValue)) }

/// A UDP port on 127.0.0.1 that nothing is bound to now (an OSC port), chosen the same way.
public func freeUDPPort() -> Int { freePort(Int32(SOCK_DGRAM.rawValue)) }

private func freePort(_ type: Int32) -> Int {
    let fd = socket(AF_INET, type, 0)
    defer { close(fd) }
    var a = sockaddr_in()
    a.sin_family = sa_family_t(AF_INET)
    a.sin_addr.s_addr = inet_addr("127.0.0.1")
    a.sin_port = 0
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &a) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p -> Int32 in
            _ = bind(fd, p, len)
            return getsockname(fd, p, &len)
        }
    }
    return Int(UInt16(bigEndian: a.sin_port))
}

#if canImport(Glibc)
import Glibc
#endif

/// Wakes the editor loop from another thread: a pipe whose read end the screen waits on beside the
/// terminal, so something arriving from elsewhere (a shared document's change) is drawn at once rather than
/// at the next timeout.
///
/// - Warning: `signal()` from any thread; `drain()` from the editor thread.
public final class Wakeup: @unchecked Sendable {
    public let readFD: Int32
    private let writeFD: Int32

    public init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        } else {
            fds = [-1, -1]
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        if readFD >= 0 { close(readFD) }
        if writeFD >= 0 { close(writeFD) }
    }

    /// Makes the next (or current) wait return. A full pipe already holds a wake-up, so a failed write is fine.
    public func signal() {
        guard writeFD >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    /// Empties the pipe; true when there was something in it.
    @discardableResult
    public func drain() -> Bool {
        guard readFD >= 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 64)
        var any = false
        while read(readFD, &buffer, buffer.count) > 0 { any = true }
        return any
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Writes log lines to a descriptor (standard error) without ever stopping the program: a write that fails
/// (a full disk, a file-size limit, a pipe whose reader has gone) loses that line and nothing else. With SIGPIPE
/// and SIGXFSZ ignored (`ignoreWriteSignals`), such a write returns an error instead of ending the process.
///
/// Safe to use from any thread: each line is one `write(2)` (or a few, for a line the system takes in parts).
public enum LogWriter {
    /// Writes `line` and a newline to `fd`, giving up silently on an error.
    public static func write(_ line: String, to fd: Int32 = 2) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            if n == 0 { return }
            done += n
        }
    }

    /// Makes a write to a closed pipe or past a file-size limit fail with an error (EPIPE, EFBIG) rather than end
    /// the program with a signal. Sockets are written with MSG_NOSIGNAL already; this covers standard error and
    /// other files.
    public static func ignoreWriteSignals() {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
    }
}

import Foundation
import TemperaPlayback

/// A control-mode client of a tmux session (`tmux -C attach`, the pane's output left out): keys sent by writing a
/// command to a client already connected, where `TmuxSession.keys` starts a tmux program for each key. On a busy
/// machine starting that program took up to half a second, so a key's time was known only that loosely. Each
/// command's answer (`%end` or `%error`) is read back: the key reached the terminal between the write and it.
public final class TmuxControl {
    private let process = Process()
    private let input = Pipe(), output = Pipe()
    private var buffer: [UInt8] = []

    /// Attaches to session `t` of `session`'s server; nil when tmux does not answer within five seconds.
    public init?(_ session: TmuxSession) {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
        process.arguments = ["-L", session.server, "-C", "attach", "-t", "t", "-f", "no-output"]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        // The attach's own answer first.
        guard answer(within: 5) != nil else {
            close()
            return nil
        }
    }

    deinit { close() }

    /// Sends a key by tmux's name (`Space`, `q`) and returns the window it was sent in on the monotonic clock the
    /// editor stamps keys with: from before the command was written to when its answer was read. `end` is nil
    /// when tmux refused the command or did not answer.
    public func key(_ name: String) -> (start: UInt64, end: UInt64?) {
        let start = MonotonicClock.nanos()
        input.fileHandleForWriting.write(Data("send-keys -t t \(name)\n".utf8))
        let ok = answer(within: 5)
        return (start, ok == true ? MonotonicClock.nanos() : nil)
    }

    public func close() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// Reads lines up to the answer to this client's next command (`%end` or `%error` with flags 1, or the
    /// attach's own with flags 0): true for `%end`, false for `%error`, nil when nothing came within `seconds`.
    private func answer(within seconds: Double) -> Bool? {
        let deadline = MonotonicClock.nanos() + UInt64(seconds * 1e9)
        while true {
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                if line.hasPrefix("%end ") { return true }
                if line.hasPrefix("%error ") { return false }
            }
            let now = MonotonicClock.nanos()
            guard now < deadline else { return nil }
            let fd = output.fileHandleForReading.fileDescriptor
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32((deadline - now) / 1_000_000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &chunk, chunk.count)
            guard n > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }
}

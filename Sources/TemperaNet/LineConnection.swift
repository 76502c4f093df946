import Dispatch
import TemperaCore
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection that carries lines, driven by Dispatch: a read source delivers complete lines (a line
/// longer than `maxLine` is refused and skipped to its end, without holding it in memory), and writes go out
/// through a write source as the socket takes them. A peer that stops reading does not block anyone: its
/// outgoing bytes wait in memory, reading from it pauses while they pile up, and past `maxOutbox` it is
/// dropped.
///
/// - Warning: every method is called on `queue`, and the callbacks run there.
final class LineConnection: @unchecked Sendable {
    enum Input {
        case line([UInt8])
        /// A line longer than the limit (its length so far); it is skipped to its end.
        case tooLong(Int)
    }

    let fd: Int32
    let queue: DispatchQueue
    let maxLine: Int
    /// Outgoing bytes beyond which the peer counts as gone.
    var maxOutbox: Int
    var onInput: ((Input) -> Void)?
    /// Called whenever bytes arrive (before they make a line): the peer is alive.
    var onBytes: (() -> Void)?
    var onClose: (() -> Void)?
    private(set) var isOpen = true
    /// A description of the peer for logs.
    let peer: String

    private let readSource: DispatchSourceRead
    private let writeSource: DispatchSourceWrite
    private var inbox: [UInt8] = []
    private var scanned = 0
    private var skipping = false
    private var outbox: [UInt8] = []
    private var sent = 0
    private var writing = false
    private var readPaused = false
    /// Reading held by the owner (too many of this peer's requests are waiting their turn).
    private var held = false
    /// The bytes waiting to go out beyond which `onOverflow` is called (when set) rather than the peer being
    /// dropped.
    var onOverflow: (() -> Void)?
    private var started = false
    /// Complete lines are handed over a batch at a time, so one busy peer does not hold the queue.
    static let linesPerTurn = 256
    /// Reading pauses while this many bytes wait to go out to the peer.
    static let pauseOutbox = 8 << 20

    init(fd: Int32, queue: DispatchQueue, maxLine: Int, maxOutbox: Int = 256 << 20, peer: String) {
        self.fd = fd
        self.queue = queue
        self.maxLine = maxLine
        self.maxOutbox = maxOutbox
        self.peer = peer
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        readSource = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        writeSource = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
        readSource.setEventHandler { [weak self] in self?.readable() }
        writeSource.setEventHandler { [weak self] in self?.flush() }
        // The descriptor is closed once both sources have let go of it.
        let group = DispatchGroup()
        group.enter()
        group.enter()
        readSource.setCancelHandler { group.leave() }
        writeSource.setCancelHandler { group.leave() }
        group.notify(queue: queue) { _ = Glibc.close(fd) }
    }

    deinit {
        // A Dispatch source must not be released suspended.
        guard isOpen else { return }
        if sourceSuspended || !started { readSource.resume() }
        if !writing { writeSource.resume() }
        readSource.cancel()
        writeSource.cancel()
    }

    /// Starts reading.
    func start() {
        guard !started else { return }
        started = true
        readSource.resume()
    }

    /// Queues a line (a newline is added) and writes as much as the socket takes now.
    func send(_ line: String) {
        guard isOpen else { return }
        var line = line
        line.withUTF8 { outbox.append(contentsOf: $0) }
        outbox.append(0x0A)
        flush()
    }

    /// Queues a line that may be larger than `maxOutbox` on its own (the whole document): the limit counts
    /// from what is queued after it, until it has gone out.
    func sendWhole(_ line: String) {
        guard isOpen else { return }
        allowance = pending + line.utf8.count + 1
        send(line)
    }

    /// The last byte that went out (a newline: the peer has whole lines).
    private var lastSent: UInt8 = 0x0A
    /// Bytes allowed beyond `maxOutbox` while a whole document goes out.
    private var allowance = 0

    /// Bytes waiting to go out.
    var pending: Int { outbox.count - sent }

    private func flush() {
        guard isOpen else { return }
        while sent < outbox.count {
            let n = outbox.withUnsafeBytes { buf in
                Glibc.send(fd, buf.baseAddress! + sent, outbox.count - sent, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                sent += n
                lastSent = outbox[sent - 1]
                continue
            }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            if n < 0 && errno == EINTR { continue }
            close()
            return
        }
        if sent == outbox.count {
            outbox.removeAll(keepingCapacity: outbox.count < 1 << 20)
            sent = 0
        } else if sent > 1 << 20 {
            outbox.removeFirst(sent)
            sent = 0
        }
        var waiting = pending
        if allowance > 0, waiting <= maxOutbox { allowance = 0 }
        if waiting > Limits.sum(maxOutbox, allowance) {
            guard let overflow = onOverflow else {
                close()
                return
            }
            // The owner resyncs the peer from a snapshot: what was queued is dropped, except the rest of a line
            // already partly sent, so the peer still reads whole lines.
            if lastSent != 0x0A, let nl = outbox[sent...].firstIndex(of: 0x0A) {
                outbox = Array(outbox[sent...nl])
            } else {
                outbox.removeAll(keepingCapacity: false)
            }
            sent = 0
            allowance = 0
            waiting = pending
            overflow()
        }
        if waiting > 0, !writing {
            writing = true
            writeSource.resume()
        } else if waiting == 0, writing {
            writing = false
            writeSource.suspend()
        }
        // Reading waits while the peer is not taking what it is sent.
        if waiting > min(LineConnection.pauseOutbox, maxOutbox / 2), !readPaused {
            readPaused = true
            updateReading()
        } else if waiting <= min(LineConnection.pauseOutbox, maxOutbox / 2) / 8, readPaused {
            readPaused = false
            updateReading()
        }
    }

    /// Holds or releases reading from the peer (its requests wait their turn elsewhere).
    func hold(_ on: Bool) {
        guard isOpen, held != on else { return }
        held = on
        updateReading()
    }

    private var sourceSuspended = false

    private func updateReading() {
        guard started, isOpen else { return }
        let want = readPaused || held
        if want, !sourceSuspended {
            sourceSuspended = true
            readSource.suspend()
        } else if !want, sourceSuspended {
            sourceSuspended = false
            readSource.resume()
            deliver()
        }
    }

    /// Stops reading for good: what the peer sends from now on is ignored (a refused peer being closed).
    func stopReading() {
        hold(true)
        onInput = nil
    }

    private func readable() {
        guard isOpen else { return }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let n = chunk.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress!, $0.count, 0) }
        if n == 0 {
            close()
            return
        }
        if n < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
            close()
            return
        }
        inbox.append(contentsOf: chunk[0..<n])
        onBytes?()
        deliver()
    }

    /// Hands over complete lines, a batch per turn of the queue.
    private func deliver() {
        var delivered = 0
        var start = 0
        while isOpen, !readPaused, !held, delivered < LineConnection.linesPerTurn {
            guard let nl = inbox[scanned...].firstIndex(of: 0x0A) else {
                scanned = inbox.count
                break
            }
            let line = Array(inbox[start..<nl])
            start = nl + 1
            scanned = start
            if skipping {
                skipping = false
            } else {
                delivered += 1
                onInput?(.line(line.last == 0x0D ? Array(line.dropLast()) : line))
            }
        }
        guard isOpen else { return }
        if start > 0 {
            inbox.removeFirst(start)
            scanned -= start
        }
        // A line that outgrows the limit is refused once and its bytes dropped as they come.
        if inbox.count > maxLine, !inbox.contains(0x0A) {
            if !skipping { onInput?(.tooLong(inbox.count)) }
            skipping = true
            inbox.removeAll(keepingCapacity: false)
            scanned = 0
        }
        if delivered >= LineConnection.linesPerTurn, !readPaused, !held {
            queue.async { [weak self] in self?.deliver() }
        }
    }

    /// Closes the connection (idempotent); `onClose` runs once. A partly received line is dropped.
    func close() {
        guard isOpen else { return }
        isOpen = false
        if sourceSuspended || !started { readSource.resume() }
        if !writing { writeSource.resume() }
        readSource.cancel()
        writeSource.cancel()
        inbox = []
        outbox = []
        onClose?()
        onClose = nil
        onInput = nil
    }

    /// Sends what is queued (waiting up to `timeout` seconds), then closes.
    func finish(timeout: Double = 2) {
        finish(until: monotonicSeconds() + timeout)
    }

    private func finish(until deadline: Double) {
        flush()
        if pending == 0 || monotonicSeconds() > deadline {
            close()
        } else {
            queue.asyncAfter(deadline: .now() + .milliseconds(5)) { [weak self] in self?.finish(until: deadline) }
        }
    }
}

/// Seconds on the monotonic clock (the clock participants compare with the host's).
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

import Dispatch
import TemperaCore
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection that carries lines, driven by Dispatch: a read source delivers complete lines (a line
/// longer than `maxLine` is refused and skipped to its end, without holding it in memory), and writes go out
/// through a write source as the socket takes them. A peer that stops reading does not block anyone: its
/// outgoing bytes wait in memory, reading from it pauses while they pile up (unless it has a window), and past
/// `maxOutbox` it is dropped (or `onOverflow` is told).
///
/// The host's side of a participant's connection also: cuts lines longer than `piece` into pieces (`+…`, the
/// last `=…`; the participant's side joins them), writes urgent lines ahead of what waits at the next piece's
/// end, writes no more than `window` bytes beyond what the peer has acknowledged, and makes a stream's lines
/// (a whole document) only as they are about to go out.
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
    /// Outgoing: short lines that go first, lines in order, the physical line going out now, the stream being
    /// written and what was sent after it.
    private var urgent: [UInt8] = []
    private var bulk: [UInt8] = []
    private var bulkSent = 0
    /// Inside a line being cut into pieces: where its newline is in `bulk`.
    private var lineEnd: Int?
    private var wire: [UInt8] = []
    private var wireSent = 0
    private var stream: (() -> [UInt8]?)?
    private var later: [UInt8] = []
    /// Bytes written to the socket, and those the peer said it has read.
    private(set) var written = 0
    private var acknowledgedBytes = 0
    /// With a window, lines (not urgent ones) go out only while fewer than this many bytes written are not yet
    /// acknowledged by the peer: whatever its buffers and those between, a clock probe's answer never has more
    /// than this ahead of it.
    var window: Int?
    /// Lines longer than `piece` go out cut (the host's side; the participant's joins them).
    var cutsLongLines = false
    /// The participant's side: joins cut lines, and acknowledges what it has read every `acknowledgeEvery`
    /// bytes (0: never).
    var joinsPieces = false
    var acknowledgeEvery = 0
    private var consumed = 0
    private var consumedSaid = 0
    /// A cut line being joined.
    private var joining: [UInt8]?
    /// The rest of a cut line that outgrew the limit is dropped.
    private var skippingPieces = false
    /// Called with the bytes read so far, every `acknowledgeEvery` of them.
    var onAcknowledge: ((Int) -> Void)?
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
    /// The longest physical line a host writes: longer lines go out cut into pieces this long.
    static let piece = 64 * 1024
    /// The first byte of a piece of a cut line, and of its last piece.
    static let pieceMark = UInt8(ascii: "+")
    static let lastPieceMark = UInt8(ascii: "=")

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

    /// Queues a line (a newline is added) and writes as much as the socket takes now. Lines go out in the order
    /// they are sent (after a running stream, see `send(stream:)`), except urgent ones, which go ahead.
    func send(_ line: String) {
        guard isOpen else { return }
        var line = line
        if stream != nil {
            line.withUTF8 { later.append(contentsOf: $0) }
            later.append(0x0A)
        } else {
            line.withUTF8 { bulk.append(contentsOf: $0) }
            bulk.append(0x0A)
        }
        flush()
    }

    /// Queues a short line that goes out ahead of everything queued but the piece being written (a clock
    /// probe's answer must not wait behind megabytes of changes). Dropped when a piece's worth of them already
    /// waits: a peer that does not read its answers has no use for more.
    func sendUrgent(_ line: String) {
        guard isOpen, urgent.count < LineConnection.piece else { return }
        var line = line
        line.withUTF8 { urgent.append(contentsOf: $0) }
        urgent.append(0x0A)
        flush()
    }

    /// Queues lines made as they are needed (each with its newline, until nil): a whole document goes out
    /// without ever being held whole. Lines sent meanwhile follow it; a stream sent while another runs follows
    /// it and the lines sent between them.
    func send(stream next: @escaping () -> [UInt8]?) {
        guard isOpen else { return }
        guard let current = stream else {
            stream = next
            flush()
            return
        }
        var between: [UInt8]? = later.isEmpty ? nil : later
        later = []
        var currentDone = false
        stream = {
            if !currentDone {
                if let lines = current() { return lines }
                currentDone = true
            }
            if let lines = between {
                between = nil
                return lines
            }
            return next()
        }
        flush()
    }

    /// Bytes waiting to go out (a stream counts what it has made so far).
    var pending: Int { urgent.count + (bulk.count - bulkSent) + (wire.count - wireSent) + later.count }

    /// True while a stream has lines to make.
    var streaming: Bool { stream != nil }

    /// The peer says it has read `bytes` bytes of this connection: with a `window`, more may go out.
    func acknowledged(_ bytes: Int) {
        guard isOpen, bytes > acknowledgedBytes, bytes <= written else { return }
        acknowledgedBytes = bytes
        flush()
    }

    /// The next physical line (or lines) to write, or nil when nothing may go out now.
    private func nextPiece() -> [UInt8]? {
        if !urgent.isEmpty {
            defer { urgent = [] }
            return urgent
        }
        if let window, written - acknowledgedBytes >= window { return nil }
        // A stream is asked for lines while little of it waits, so it is held in memory a few pieces at a time.
        while let next = stream, bulk.count - bulkSent < 4 * LineConnection.piece {
            guard let lines = next() else {
                stream = nil
                bulk.append(contentsOf: later)
                later = []
                break
            }
            bulk.append(contentsOf: lines)
        }
        guard bulkSent < bulk.count else { return nil }
        let piece = LineConnection.piece
        if lineEnd == nil {
            // At the start of a line: whole lines, as many as fit in a piece.
            var k = bulkSent
            while k < bulk.count {
                let nl = LineConnection.newline(in: bulk, from: k) ?? bulk.count - 1
                if nl + 1 - bulkSent > piece {
                    if k > bulkSent { break }
                    if !cutsLongLines {
                        k = nl + 1
                        break
                    }
                    // This line alone is longer than a piece: it goes out cut, so that urgent lines can pass.
                    lineEnd = nl
                    break
                }
                k = nl + 1
            }
            if lineEnd == nil {
                defer { bulkSent = k }
                return Array(bulk[bulkSent..<k])
            }
        }
        // Inside a long line: `+` and a piece of it, or `=` and its last piece.
        let end = lineEnd!
        let n = Swift.min(piece, end - bulkSent)
        let last = bulkSent + n == end
        var out = [UInt8]()
        out.reserveCapacity(n + 2)
        out.append(last ? LineConnection.lastPieceMark : LineConnection.pieceMark)
        out.append(contentsOf: bulk[bulkSent..<(bulkSent + n)])
        out.append(0x0A)
        bulkSent += n
        if last {
            bulkSent += 1
            lineEnd = nil
        }
        return out
    }

    private func flush() {
        guard isOpen else { return }
        while true {
            if wireSent == wire.count {
                wire = []
                wireSent = 0
                guard let next = nextPiece() else { break }
                wire = next
            }
            let n = wire.withUnsafeBytes { buf in
                Glibc.send(fd, buf.baseAddress! + wireSent, wire.count - wireSent, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                wireSent += n
                written += n
                continue
            }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            if n < 0 && errno == EINTR { continue }
            close()
            return
        }
        // What went out is dropped from the front once it is half the queue (each byte moved about once).
        if bulkSent == bulk.count {
            bulk.removeAll(keepingCapacity: bulk.count < 1 << 20)
            bulkSent = 0
        } else if bulkSent > 1 << 16, bulkSent > bulk.count / 2 {
            bulk.removeFirst(bulkSent)
            lineEnd = lineEnd.map { $0 - bulkSent }
            bulkSent = 0
        }
        var waiting = pending
        if waiting > maxOutbox {
            guard let overflow = onOverflow else {
                close()
                return
            }
            // The owner resyncs the peer from a snapshot: what was queued is dropped, except the piece being
            // written and the rest of a line already partly sent, so the peer still reads whole lines.
            if let end = lineEnd {
                bulk = Array(bulk[bulkSent...end])
                lineEnd = bulk.count - 1
            } else {
                bulk = []
            }
            bulkSent = 0
            stream = nil
            later = []
            waiting = pending
            overflow()
        }
        let stalled = window.map { written - acknowledgedBytes >= $0 } ?? false
        let wantsWrite = wireSent < wire.count || !urgent.isEmpty || (!stalled && (bulkSent < bulk.count || stream != nil))
        if wantsWrite, !writing {
            writing = true
            writeSource.resume()
        } else if !wantsWrite, writing {
            writing = false
            writeSource.suspend()
        }
        // Reading waits while the peer is not taking what it is sent (not with a window: its acknowledgements
        // come that way, and the window bounds what is in flight).
        let pause = min(LineConnection.pauseOutbox, maxOutbox / 2)
        if window == nil, waiting > pause, !readPaused {
            readPaused = true
            updateReading()
        } else if waiting <= pause / 8, readPaused {
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

    /// Hands over complete lines, a batch per turn of the queue (joining cut lines, when it does).
    private func deliver() {
        var delivered = 0
        var start = 0
        while isOpen, !readPaused, !held, delivered < LineConnection.linesPerTurn {
            guard let nl = LineConnection.newline(in: inbox, from: scanned) else {
                scanned = inbox.count
                break
            }
            let from = start
            start = nl + 1
            scanned = start
            consumed += nl + 1 - from
            if skipping {
                skipping = false
            } else if joinsPieces, nl > from, inbox[from] == LineConnection.pieceMark || inbox[from] == LineConnection.lastPieceMark {
                let last = inbox[from] == LineConnection.lastPieceMark
                if var j = joining {
                    joining = nil
                    if j.count + (nl - from - 1) > maxLine {
                        onInput?(.tooLong(j.count + nl - from - 1))
                        skippingPieces = true
                    } else {
                        j.append(contentsOf: inbox[(from + 1)..<nl])
                        joining = j
                    }
                } else if !skippingPieces {
                    joining = Array(inbox[(from + 1)..<nl])
                }
                if last {
                    skippingPieces = false
                    if let j = joining {
                        joining = nil
                        delivered += 1
                        onInput?(.line(j))
                    }
                }
            } else if nl - from > maxLine {
                // Read whole in one go (it came with its newline): refused all the same, as the limit says.
                delivered += 1
                onInput?(.tooLong(nl - from))
            } else {
                delivered += 1
                let end = nl > from && inbox[nl - 1] == 0x0D ? nl - 1 : nl
                onInput?(.line(Array(inbox[from..<end])))
            }
            if acknowledgeEvery > 0, consumed - consumedSaid >= acknowledgeEvery {
                consumedSaid = consumed
                onAcknowledge?(consumed)
            }
        }
        guard isOpen else { return }
        if start > 0 {
            inbox.removeFirst(start)
            scanned -= start
        }
        // A line that outgrows the limit is refused once and its bytes dropped as they come.
        if inbox.count > maxLine, LineConnection.newline(in: inbox, from: 0) == nil {
            if !skipping { onInput?(.tooLong(inbox.count)) }
            skipping = true
            consumed += inbox.count
            inbox.removeAll(keepingCapacity: false)
            scanned = 0
        }
        if delivered >= LineConnection.linesPerTurn, !readPaused, !held {
            queue.async { [weak self] in self?.deliver() }
        }
    }

    /// The position of the first newline in `bytes` from `start`, if any.
    static func newline(in bytes: [UInt8], from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        return bytes.withUnsafeBufferPointer { b in
            memchr(b.baseAddress! + start, 0x0A, b.count - start).map {
                UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - b.baseAddress!
            }
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
        bulk = []
        urgent = []
        wire = []
        later = []
        stream = nil
        joining = nil
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

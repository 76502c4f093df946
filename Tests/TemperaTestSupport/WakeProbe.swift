import Foundation
import TemperaPlayback

/// How late the machine woke a thread of normal priority while a measurement ran: a thread sleeps 2 ms at a time
/// and keeps how much longer each sleep took. The programs a test starts run at that priority too, so a wake
/// tens of milliseconds late says they were kept from the processors as well: a test reads it to tell a run the
/// machine disturbed from one that measured the program.
public final class WakeProbe: @unchecked Sendable {
    private let lock = NSLock()
    private var running = true
    private var worst = 0.0, late = 0
    private let done = DispatchSemaphore(value: 0)
    /// A wake later than this counts as late (seconds).
    public let threshold: Double

    public init(threshold: Double = 0.015) {
        self.threshold = threshold
        let thread = Thread { [unowned self] in
            while lock.withLock({ running }) {
                let start = Self.now()
                usleep(2_000)
                let over = Self.now() - start - 0.002
                lock.withLock {
                    worst = max(worst, over)
                    if over > threshold { late += 1 }
                }
            }
            done.signal()
        }
        thread.start()
    }

    /// Stops the probe: the latest wake past its 2 ms (seconds) and how many wakes were later than `threshold`.
    public func stop() -> (worst: Double, late: Int) {
        lock.withLock { running = false }
        done.wait()
        return lock.withLock { (worst, late) }
    }

    private static func now() -> Double { Double(MonotonicClock.nanos()) / 1e9 }
}

import Foundation

/// This thread's processor time in seconds: a bound on work, where a loaded machine's wait for a processor does
/// not count (the fast tier runs at the lowest priority beside the real-time groups).
public func threadCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

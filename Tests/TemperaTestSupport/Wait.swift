import Foundation

/// Whether `condition` holds within `seconds`, looked at every `every` microseconds (and once more at the end).
public func waitUntil(_ seconds: Double, every micros: useconds_t = 2_000, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(micros)
    }
    return condition()
}

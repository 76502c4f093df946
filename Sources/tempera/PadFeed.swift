import Foundation

/// Pad events read from standard input by a thread of their own, one `<seconds> <slot> <velocity>` a line, kept
/// until their time comes. A bad line is named on stderr and skipped; the rest plays.
final class PadFeed: @unchecked Sendable {
    /// One event: seconds from the heard start of playback, the slot (1...16), the velocity (0...1).
    struct Event {
        var seconds: Double
        var slot: Int
        var velocity: Double
    }

    private let lock = NSLock()
    private var pending: [Event] = []
    private var closed = false
    private var badLines = 0

    /// Starts reading standard input to its end.
    func start() {
        let thread = Thread { [self] in
            var number = 0
            while let line = readLine(strippingNewline: true) {
                number += 1
                switch Self.parse(line) {
                case .none: continue
                case .some(.success(let e)):
                    lock.withLock { pending.append(e) }
                case .some(.failure(let why)):
                    warn("stdin line \(number): \(why.message)")
                    lock.withLock { badLines += 1 }
                }
            }
            lock.withLock { closed = true }
        }
        thread.start()
    }

    struct BadLine: Error { var message: String }

    /// A line read into an event; nil for a blank line or a `#` comment.
    static func parse(_ line: String) -> Result<Event, BadLine>? {
        let text = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        if words.isEmpty { return nil }
        guard words.count == 3 else {
            return .failure(BadLine(message: "expected '<seconds> <slot> <velocity>', not '\(line)'"))
        }
        guard let s = Double(words[0]), s.isFinite, s >= 0 else {
            return .failure(BadLine(message: "seconds must be a number >= 0, not '\(words[0])'"))
        }
        guard let slot = Int(words[1]), (1...16).contains(slot) else {
            return .failure(BadLine(message: "slot must be 1-16, not '\(words[1])'"))
        }
        guard let v = Double(words[2]), (0...1).contains(v) else {
            return .failure(BadLine(message: "velocity must be from 0 to 1, not '\(words[2])'"))
        }
        return .success(Event(seconds: s, slot: slot, velocity: v))
    }

    /// The earliest event waiting, if any.
    var nextTime: Double? { lock.withLock { pending.map(\.seconds).min() } }

    /// Takes the earliest event if it is due at `seconds`.
    func take(dueBy seconds: Double) -> Event? {
        lock.withLock {
            guard let i = pending.indices.min(by: { pending[$0].seconds < pending[$1].seconds }),
                  pending[i].seconds <= seconds else { return nil }
            return pending.remove(at: i)
        }
    }

    /// Standard input has ended and every event was taken.
    var finished: Bool { lock.withLock { closed && pending.isEmpty } }

    /// Lines that could not be read.
    var errors: Int { lock.withLock { badLines } }
}

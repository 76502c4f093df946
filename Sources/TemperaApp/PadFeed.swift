import Foundation
import Synchronization

/// Pad events read by a thread of their own, one `<seconds> <slot> <velocity>` a line (standard input for
/// `tempera play --pads`), kept until their time comes. A bad line is named through `warn` and skipped; the rest
/// plays.
public final class PadFeed: Sendable {
    /// One event: seconds from the heard start of playback, the slot (1...16), the velocity (0...1).
    public struct Event: Equatable, Sendable {
        public var seconds: Double
        public var slot: Int
        public var velocity: Double

        public init(seconds: Double, slot: Int, velocity: Double) {
            self.seconds = seconds
            self.slot = slot
            self.velocity = velocity
        }
    }

    private struct State {
        var pending: [Event] = []
        var closed = false
        var badLines = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Starts reading `nextLine` (standard input by default) to its end on a thread of its own; each bad line
    /// is said through `warn` as `stdin line N: why`.
    public func start(nextLine: @escaping @Sendable () -> String? = { readLine(strippingNewline: true) },
                      warn: @escaping @Sendable (String) -> Void) {
        let thread = Thread { [self] in
            var number = 0
            while let line = nextLine() {
                number += 1
                add(line, number: number, warn: warn)
            }
            state.withLock { $0.closed = true }
        }
        thread.start()
    }

    /// Takes one line as the reading thread does (tests give lines this way, then `close()`).
    public func add(_ line: String, number: Int, warn: (String) -> Void) {
        switch Self.parse(line) {
        case .none: break
        case .some(.success(let e)): state.withLock { $0.pending.append(e) }
        case .some(.failure(let why)):
            warn("stdin line \(number): \(why.message)")
            state.withLock { $0.badLines += 1 }
        }
    }

    /// No more lines come.
    public func close() { state.withLock { $0.closed = true } }

    public struct BadLine: Error, Equatable { public var message: String }

    /// A line read into an event; nil for a blank line or a `#` comment.
    public static func parse(_ line: String) -> Result<Event, BadLine>? {
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
    public var nextTime: Double? { state.withLock { $0.pending.map(\.seconds).min() } }

    /// Takes the earliest event if it is due at `seconds`.
    public func take(dueBy seconds: Double) -> Event? {
        state.withLock { s in
            guard let i = s.pending.indices.min(by: { s.pending[$0].seconds < s.pending[$1].seconds }),
                  s.pending[i].seconds <= seconds else { return nil }
            return s.pending.remove(at: i)
        }
    }

    /// The input has ended and every event was taken.
    public var finished: Bool { state.withLock { $0.closed && $0.pending.isEmpty } }

    /// Lines that could not be read.
    public var errors: Int { state.withLock { $0.badLines } }
}

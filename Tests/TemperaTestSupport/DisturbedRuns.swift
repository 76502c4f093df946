import XCTest

/// A test case whose measurements of time are made again when the machine disturbed a run that failed.
///
/// A run's failures are held until the run ends. A run that failed and that the machine disturbed (an underrun,
/// a key fed late, a thread woken tens of milliseconds late: whatever the run noted with `DisturbedRun.disturbed`)
/// is made again, its failures printed, not recorded; a run that failed undisturbed, or the last run, records its
/// failures. A disturbed run that measured right passes: what the program guarantees when the machine is loaded
/// (an underrun is a dropout, never a shift) is then measured too.
open class DisturbedRunsTestCase: XCTestCase {
    private var held: [Failure]?

    private struct Failure {
        let description: String
        let file: String
        let line: Int
        let expected: Bool
    }

    open override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
                                     expected: Bool) {
        if held != nil {
            held!.append(Failure(description: description, file: filePath, line: lineNumber, expected: expected))
        } else {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }

    /// Runs `body` until a run passes, at most `times` runs; `name` starts the lines printed for a run made again.
    /// An error thrown ends it at once, with the failures held so far recorded.
    public func runAgainWhenDisturbed(_ name: String, times: Int, _ body: (DisturbedRun) throws -> Void) throws {
        for attempt in 1...times {
            let run = DisturbedRun(attempt: attempt)
            held = []
            do {
                try body(run)
            } catch {
                release()
                throw error
            }
            let failures = held ?? []
            if failures.isEmpty {
                held = nil
                if let why = run.disturbance { print("\(name): run \(attempt) passed though \(why)") }
                return
            }
            if let why = run.disturbance, attempt < times {
                held = nil
                print("\(name): run \(attempt) failed (\(failures.count) failure(s), the first: "
                    + "\(failures[0].description)) and \(why) (a loaded machine): again")
                continue
            }
            if let why = run.disturbance { print("\(name): the last run failed and \(why)") }
            release()
            return
        }
    }

    private func release() {
        let failures = held ?? []
        held = nil
        for f in failures {
            recordReleased(description: f.description, file: f.file, line: f.line, expected: f.expected)
        }
    }

    /// Records a failure of the run that ends a measurement (XCTest's record; a test of this class reads them).
    open func recordReleased(description: String, file: String, line: Int, expected: Bool) {
        super.recordFailure(withDescription: description, inFile: file, atLine: line, expected: expected)
    }
}

/// One run of a measurement made by `DisturbedRunsTestCase.runAgainWhenDisturbed`.
public final class DisturbedRun {
    /// 1 for the first run.
    public let attempt: Int
    /// What disturbed the run, as noted; nil when nothing did.
    public private(set) var disturbance: String?

    init(attempt: Int) { self.attempt = attempt }

    /// Notes what disturbed the run ("an underrun", "a key fed 12 ms late").
    public func disturbed(_ why: String) {
        disturbance = disturbance.map { $0 + ", " + why } ?? why
    }
}

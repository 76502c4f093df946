import Foundation
import TemperaCore
@testable import TemperaNet
import TemperaTestSupport
import XCTest

/// What the host's memory and time come to when participants misbehave at length: eight participants that say
/// hello and then never read while another makes the biggest changes a shared command may make, and thousands
/// of participants coming and going.
final class HostMemoryTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = TestPaths.temporaryDirectory("host-memory") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// The CPU seconds (user and system) a process has used.
    static func cpu(_ pid: pid_t) -> Double {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        return fields.count > 13 ? Double((Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)) / Double(sysconf(Int32(_SC_CLK_TCK))) : -1
    }

    /// Eight participants read nothing after their welcome while a ninth adds 100,000 markers at a time (each
    /// change about 4 MB to every participant). Beside it a second host gets the same changes with nobody
    /// silent: what the eight cost is the difference of the two hosts' peaks. Each silent one may hold at most
    /// its queue's bound (`participantOutbox`, 64 MiB) of changes, or after overflowing it, the whole document
    /// sent again and up to the bound after it: the eight cost less than 8 × (64 MiB + the document as sent).
    /// 3 changes here; `TEMPERA_SILENT_ROUNDS=30` (3 million markers, past every queue's bound) by hand.
    func testEightParticipantsThatNeverReadHoldTheHostToItsQueueBounds() throws {
        let rounds = Int(ProcessInfo.processInfo.environment["TEMPERA_SILENT_ROUNDS"] ?? "") ?? 3
        let hosts = try ["quiet", "crowded"].map { name in
            try FileManager.default.createDirectory(atPath: dir + "/" + name, withIntermediateDirectories: true)
            return try ServeProcess([dir + "/\(name)/a.tempera"], in: dir + "/" + name)
        }
        defer { for h in hosts { _ = h.stop() } }
        let (quiet, crowded) = (hosts[0], hosts[1])
        var silent: [RawClient] = []
        for k in 0..<8 {
            let c = try RawClient(port: crowded.port)
            c.send(Wire.hello(name: "silent\(k)", token: nil, session: nil, replied: 0) + "\n")
            XCTAssertNotNil(c.line(containing: "\"reply\""), "silent\(k) was welcomed")
            silent.append(c)
        }
        let bigs = hosts.map { Participant(host: "127.0.0.1", port: $0.port, name: "big") }
        for big in bigs {
            try big.connect()
            XCTAssertTrue(waitUntil(5) { big.sync { $0.connected } })
        }
        for k in 0..<rounds {
            let ids = bigs.map { $0.send("pulse period=1/100000 count=100000 start=\(k)") }
            XCTAssertTrue(waitUntil(120) { zip(bigs, ids).allSatisfy { big, id in big.sync { $0.answers[id] != nil } } })
            for (big, id) in zip(bigs, ids) { XCTAssertNil(big.sync { $0.answers[id]?.error }) }
        }
        XCTAssertTrue(waitUntil(60) { bigs.allSatisfy { $0.sync { $0.seq } == rounds } }, "the ones that read follow")
        usleep(500_000)
        let (withSilent, without) = (crowded.memory, quiet.memory)
        let documentBytes = DocumentDelta.snapshot(bigs[0].sync { $0.document }).encoded().utf8.count
        let cost = withSilent.peak - without.peak
        let bound = 8 * ((64 << 20) + documentBytes)
        print("host with 8 participants that never read, \(rounds) changes of 100,000 markers (\(rounds * 100_000) markers, "
            + "\(documentBytes >> 20) MB as sent): peak \(withSilent.peak >> 20) MB; the same host with nobody silent: peak "
            + "\(without.peak >> 20) MB; the eight cost \(cost >> 20) MB (bound \(bound >> 20) MB); resynced: "
            + "\(crowded.logText.components(separatedBy: "fell behind").count - 1)")
        XCTAssertLessThan(cost, bound)
        XCTAssertTrue(crowded.isRunning)
        XCTAssertTrue(bigs[1].sync { $0.connected }, "the one that reads stays")
        for big in bigs { big.cut() }
        _ = silent
    }

    /// The host's log costs the same for its 50,000th line as for its first (each join and leave is a line).
    func testTheLogCostsTheSameForEveryLine() {
        let box = LogBox()
        let count = LineCount()
        box.value = { _ in count.add() }
        // The processor time of this thread: the machine's other processes do not count.
        let cpu = threadCPUSeconds
        var seconds: [Double] = []
        for _ in 0..<10 {
            let t0 = cpu()
            for k in 0..<5_000 { box.value("p\(k) joined (127.0.0.1:4000)") }
            seconds.append(cpu() - t0)
        }
        print("log: processor seconds per 5,000 lines over 50,000: " + seconds.map { String(format: "%.4f", $0) }.joined(separator: ", "))
        XCTAssertEqual(count.value, 50_000)
        // Then the same lines into this log and into a fresh one, turn about: the machine's state (the other
        // processor's load, the caches) weighs on both alike, and only a cost that grew with the lines differs.
        var old: [Double] = [], fresh: [Double] = []
        for _ in 0..<5 {
            var t0 = cpu()
            for k in 0..<5_000 { box.value("p\(k) joined (127.0.0.1:4000)") }
            old.append(cpu() - t0)
            let other = LogBox()
            other.value = { _ in count.add() }
            t0 = cpu()
            for k in 0..<5_000 { other.value("p\(k) joined (127.0.0.1:4000)") }
            fresh.append(cpu() - t0)
        }
        print("log: after 50,000 lines " + old.map { String(format: "%.4f", $0) }.joined(separator: ", ")
              + "; a fresh log " + fresh.map { String(format: "%.4f", $0) }.joined(separator: ", "))
        XCTAssertLessThan(old.min()! / fresh.min()!, 1.5)
    }

    /// Participants who join and leave, thousands of times: the host's CPU for each batch of joins stays flat
    /// (it forgets those gone, and what it keeps per address), and its memory too. 4 batches of 400 here;
    /// `TEMPERA_JOIN_BATCHES=8 TEMPERA_JOIN_BATCH=2500` (20,000 joins) with `TEMPERA_BINARY` a release build by
    /// hand.
    func testCpuPerBatchOfJoinsStaysFlatAsParticipantsComeAndGo() throws {
        let env = ProcessInfo.processInfo.environment
        let batches = Int(env["TEMPERA_JOIN_BATCHES"] ?? "") ?? 4
        let batch = Int(env["TEMPERA_JOIN_BATCH"] ?? "") ?? 400
        let server = try ServeProcess([dir + "/a.tempera"], in: dir)
        defer { _ = server.stop() }
        // A document of some size, as joins send it whole.
        let first = try RawClient(port: server.port)
        first.send(Wire.hello(name: "maker", token: nil, session: nil, replied: 0) + "\n")
        XCTAssertNotNil(first.line(containing: "\"reply\""))
        first.send("pulse period=1/1000 count=1000 start=0\n")
        XCTAssertNotNil(first.line(containing: "\"reply\"", within: 30))
        var seconds: [Double] = []
        var walls: [Double] = []
        var joined = 0
        for b in 0..<batches {
            let cpu0 = Self.cpu(server.pid), wall0 = monotonicSeconds()
            for k in 0..<batch {
                let c: RawClient
                do {
                    c = try RawClient(port: server.port)
                } catch {
                    // Which join, whether the host still ran, and the end of its log.
                    let log = (try? String(contentsOfFile: server.log, encoding: .utf8)) ?? ""
                    throw NetError("join \(k) of batch \(b): \(error); the host is \(server.isRunning ? "running" : "gone"); "
                        + "its log ends: " + log.split(separator: "\n").suffix(5).joined(separator: " / "))
                }
                c.send(Wire.hello(name: "p\(b)-\(k)", token: nil, session: nil, replied: 0) + "\n")
                if c.line(containing: "\"reply\"", within: 10) != nil { joined += 1 }
            }
            // The last leaves are seen.
            usleep(200_000)
            seconds.append(Self.cpu(server.pid) - cpu0)
            walls.append(monotonicSeconds() - wall0)
        }
        let memory = server.memory
        let ratio = seconds.last! / max(seconds.first!, 0.01)
        print("host CPU per \(batch) joins over \(batches * batch): "
            + seconds.map { String(format: "%.2f", $0) }.joined(separator: ", ") + " s (last/first \(String(format: "%.2f", ratio))); "
            + "wall " + walls.map { String(format: "%.1f", $0) }.joined(separator: ", ") + " s; memory peak \(memory.peak >> 20) MB, "
            + "now \(memory.now >> 20) MB")
        XCTAssertEqual(joined, batches * batch, "every one was welcomed")
        XCTAssertLessThan(ratio, 1.5, "the last batch costs about what the first did")
        XCTAssertTrue(server.isRunning)
    }
}

final class LineCount: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.lock(); n += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return n }
}

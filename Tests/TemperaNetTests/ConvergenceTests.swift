import Foundation
import Synchronization
import TemperaCore
import TemperaNet
import TemperaTestSupport
import XCTest

/// Random commands of the language, from a seed: the edits two people might make at once, many of which
/// will be refused (nothing selected, a track that is not there), plus undos and redos.
struct RandomCommands {
    var random: SeededRandom

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    mutating func int(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
    mutating func time() -> String { ["0", "1/8", "1/4", "3/8", "0.5", "0.6", "1", "1.25", "7/4", "sqrt(2)/2"][int(10)] }

    mutating func next() -> String {
        switch int(42) {
        case 30: return ["bpm 100", "bpm 132", "meter 3", "meter 7", "beat 1/3", "click on", "countin 1"][int(7)]
        case 31: return "amp \(["0.5", "+0.1", "-0.2"][int(3)])"
        case 32: return ["copy", "cut", "paste", "duplicate"][int(4)]
        case 33: return "quantize \(1 + int(4)) strength=0.5"
        case 34: return "track \(1 + int(5)) move \(1 + int(5))"
        case 35: return int(6) == 0 ? "track \(1 + int(6)) delete" : "track \(1 + int(5)) duplicate"
        case 36: return "section add s\(int(9)) 0 \(["1", "2"][int(2)]) x\(1 + int(3))"
        case 37: return ["song on", "song off", "section 1 repeats 2", "section 1 tempo 1.5"][int(4)]
        case 38: return "grid \(["4", "3", "off"][int(3)])"
        case 0, 1: return "cursor \(time())"
        case 2: return "track \(1 + int(5))"
        case 3, 4: return "marker add \(time()) amp=0.\(1 + int(9))"
        case 5, 6: return "select at \(time())"
        case 7: return "select range \(time()) \(time())"
        case 8: return ["select all", "select none", "select left", "select right tracks=all"][int(4)]
        case 9: return "select at \(time()) add"
        case 10, 11: return "shift \(["1/16", "-1/16", "0.01", "1/3"][int(4)])"
        case 12: return "delete"
        case 13: return "fill \"\(["1 2 -", "3x2 +", "(1 -)x2", "?"][int(4)])\""
        case 14: return "tempo \(["0.5", "1", "1.25", "2"][int(4)])"
        case 15: return "volume 0.\(int(10))"
        case 16: return "slot \(1 + int(16)) gain=0.\(1 + int(9))"
        case 17: return "mode clip \(int(2) == 0 ? "on" : "off")"
        case 18: return "clip \(1 + int(16))"
        case 19: return "draw"
        case 20: return "subdivide \(1 + int(3))"
        case 21: return ["rotate", "reverse", "scale 1.5", "scale 0.5 handle=last"][int(4)]
        case 22: return "group store \(1 + int(4))"
        case 23: return "group stamp \(1 + int(4))"
        case 24: return "loop 0 \(["1", "2", "3/2"][int(3)])"
        case 25: return "track \(1 + int(5)) mute"
        case 26: return "pulse period=1/\(2 + int(6)) count=\(1 + int(6)) start=\(time())"
        case 27: return int(8) == 0 ? "track add t\(int(100))" : "snap \(int(2) == 0 ? "on" : "off")"
        default: return int(3) == 0 ? "redo" : "undo"
        }
    }
}

final class ConvergenceTests: XCTestCase {
    /// Sends `count` random commands, keeping at most `window` unanswered, as fast as the host answers.
    static func drive(_ p: Participant, seed: UInt64, count: Int, window: Int = 32, cutAt: Int? = nil,
               reconnectAfter: Int = 40) throws {
        var commands = RandomCommands(seed: seed)
        var sent = 0
        while sent < count {
            if let cutAt, sent == cutAt {
                p.cut()
                // Commands made while the connection is down wait in the queue.
                for _ in 0..<reconnectAfter where sent < count {
                    p.send(commands.next())
                    sent += 1
                }
                try p.connect()
                continue
            }
            if p.sync({ $0.unanswered.count }) < window {
                p.send(commands.next())
                sent += 1
            } else {
                usleep(200)
            }
        }
    }

    func converge(cut: Bool) throws -> (host: [UInt8], counts: String) {
        let session = Session(document: Document.newDocument())
        var options = DocumentHost.Options()
        options.port = 0
        let host = try DocumentHost(session: session, options: options)
        defer { host.stop() }
        let ana = Participant(host: "127.0.0.1", port: host.port, name: "ana")
        let bo = Participant(host: "127.0.0.1", port: host.port, name: "bo")
        try ana.connect()
        try bo.connect()
        XCTAssertTrue(waitUntil(5) { ana.sync { $0.connected } && bo.sync { $0.connected } })

        let group = DispatchGroup()
        let errors = Mutex<[Error]>([])
        for (p, seed, cutAt) in [(ana, UInt64(11), cut ? 500 : nil), (bo, UInt64(23), nil)] {
            group.enter()
            Thread.detachNewThread {
                do {
                    try ConvergenceTests.drive(p, seed: seed, count: 1000, cutAt: cutAt)
                } catch {
                    errors.withLock { $0.append(error) }
                }
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 240), .success)
        let failures = errors.withLock { $0 }
        XCTAssertTrue(failures.isEmpty, "\(failures)")
        XCTAssertTrue(waitUntil(60) { ana.sync { $0.unanswered.isEmpty } && bo.sync { $0.unanswered.isEmpty } })
        let final = host.seq
        XCTAssertTrue(waitUntil(30) { ana.sync { $0.seq } == final && bo.sync { $0.seq } == final })

        let hostBytes = host.sync { DocumentFile.encodeBytes($0.document) }
        let anaBytes = ana.sync { DocumentFile.encodeBytes($0.document) }
        let boBytes = bo.sync { DocumentFile.encodeBytes($0.document) }
        XCTAssertEqual(anaBytes, hostBytes, "ana's copy differs from the host's")
        XCTAssertEqual(boBytes, hostBytes, "bo's copy differs from the host's")
        // Marker ids agree too, so later changes keep finding the same markers.
        let hostIDs = host.sync { $0.document.tracks.map { $0.markers.map(\.id) } }
        XCTAssertEqual(ana.sync { $0.document.tracks.map { $0.markers.map(\.id) } }, hostIDs)

        // Every command was answered exactly once: accepted or refused, none lost, none run twice.
        var counts = ""
        for p in [ana, bo] {
            let answers = p.sync { $0.answers }
            XCTAssertEqual(answers.count, 1000)
            XCTAssertEqual(Set(answers.keys), Set(1...1000))
            let refused = answers.values.filter { $0.error != nil }.count
            let undid = answers.values.filter { $0.message?.hasPrefix("undid") == true }.count
            let blocked = answers.values.filter { $0.error?.contains("changed it since") == true }.count
            XCTAssertGreaterThan(undid, 10)
            counts += "\(p.name): \(undid) undone, \(blocked) undo/redo refused as changed by the other; "
            counts += "\(p.name): \(1000 - refused) accepted, \(refused) refused, \(p.sync { $0.resent }) resent; "
        }
        counts += "\(final) changes"
        return (hostBytes, counts)
    }

    func testTwoParticipantsSendingAThousandRandomCommandsEachEndIdentical() throws {
        let result = try converge(cut: false)
        print("convergence: \(result.counts)")
    }

    func testACutConnectionResendsItsQueueAndStillConverges() throws {
        let result = try converge(cut: true)
        print("convergence with a cut: \(result.counts)")
        XCTAssertTrue(result.counts.contains("resent") )
    }
}

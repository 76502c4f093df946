import Foundation
import TemperaCore
@testable import TemperaNet
import TemperaTestSupport
import XCTest

/// The journal damaged in each way a disk or a person can: each time, what is before the damage is replayed, the
/// damage is said in one line and moved aside, and edits journalled afterwards all replay at the next start —
/// none is behind the damaged record.
final class JournalCorruptionTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = TestPaths.temporaryDirectory("journal-corrupt") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    let start = Document(tracks: [Track(name: "one")])

    /// Journals `count` edits (markers added at distinct times) over `document` with `journal`.
    func journalEdits(_ count: Int, from first: Int, over document: Document, entries: [Journal.Entry] = [],
                      into journal: Journal) throws {
        let shared = SharedDocument(session: Session(document: document))
        shared.recover(entries)
        shared.join(key: "a", name: "ana")
        for k in first..<(first + count) {
            let outcome = shared.run("marker add \(Double(k) / 64)", by: "a", id: k + 1) { outcome in
                (try? journal.append(key: "a", name: "ana", id: k + 1, deltas: outcome.deltas)) == nil ? "not journalled" : nil
            }
            XCTAssertNil(outcome.error)
        }
    }

    /// The byte offsets where each record (line) starts.
    func lineStarts(_ bytes: [UInt8]) -> [Int] {
        [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }.dropLast()
    }

    func testEachDamageIsReportedSetAsideAndLaterEditsSurvive() throws {
        // Each case: a name, how the 20-edit journal is damaged, and how many edits replay.
        let cases: [(String, (inout [UInt8], [Int]) -> Void, Int)] = [
            ("1 byte flipped in record 6", { b, s in b[s[6] + 30] ^= 0x20 }, 5),
            ("NUL bytes over record 6", { b, s in for i in s[6]..<s[7] { b[i] = 0 } }, 5),
            ("NUL bytes appended", { b, _ in b += [UInt8](repeating: 0, count: 4096) }, 20),
            ("garbage appended", { b, _ in b += Array("garbage, not a record\nmore {\"key\":1}\n".utf8) }, 20),
            ("a record cut short (a kill)", { b, _ in b += Array("0123456789abcdef {\"key\":\"a\",\"who".utf8) }, 20),
            ("record 12 removed", { b, s in b.removeSubrange(s[12]..<s[13]) }, 11),
            ("a 300 MB line appended", { b, s in b += [0x0A] }, 20),
            ("a 300 MB line over record 3", { b, s in b.insert(0x0A, at: s[3]) }, 2),
        ]
        /// Where the 300 MB lines go: the newline each case puts in marks the place (they are written in pieces,
        /// never whole in this test's memory).
        func grow(_ path: String, at newline: Int) throws {
            let bytes = [UInt8](FileManager.default.contents(atPath: path)!)
            let out = FileHandle(forWritingAtPath: path)!
            try out.truncate(atOffset: 0)
            try out.write(contentsOf: bytes[..<newline])
            let piece = Data(repeating: UInt8(ascii: "7"), count: 1 << 20)
            for _ in 0..<300 { try out.write(contentsOf: piece) }
            try out.write(contentsOf: bytes[newline...])
            try out.close()
        }
        var table: [String] = []
        for (k, (name, damage, expected)) in cases.enumerated() {
            let path = dir + "/case\(k).journal"
            do {
                let (journal, _) = try Journal.open(path, fileBytes: nil, loaded: start)
                try journalEdits(20, from: 0, over: start, into: journal)
            }
            var bytes = [UInt8](FileManager.default.contents(atPath: path)!)
            XCTAssertEqual(lineStarts(bytes).count, 21, "a header and 20 records")
            let before = lineStarts(bytes)
            damage(&bytes, before)
            let starts = before
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            if name.contains("300 MB") { try grow(path, at: name.contains("appended") ? bytes.count - 1 : starts[3]) }
            bytes = []
            // Opened again: what is before the damage replays, the damage is one line, the rest set aside.
            let (journal, replay) = try Journal.open(path, fileBytes: nil, loaded: start)
            XCTAssertEqual(replay.entries.count, expected, name)
            let cutShort = name.contains("cut short")
            XCTAssertEqual(replay.damage == nil, cutShort, "\(name): \(replay.damage ?? "no damage said")")
            if let line = replay.damage {
                XCTAssertFalse(line.contains("\n"))
                XCTAssertTrue(line.contains("replayed the \(expected) before it"), line)
            }
            let aside = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("case\(k).journal.damaged-") }
            XCTAssertEqual(aside.count, cutShort ? 0 : 1, name)
            // Twenty edits after the damage, then the host killed and started again: all of them replay.
            try journalEdits(20, from: 100, over: replay.document, entries: replay.entries, into: journal)
            let (_, again) = try Journal.open(path, fileBytes: nil, loaded: start)
            XCTAssertNil(again.damage, name)
            let lost = expected + 20 - again.entries.count
            XCTAssertEqual(lost, 0, "\(name): later edits lost")
            XCTAssertEqual(again.document.tracks[0].markers.count, expected + 20)
            table.append(name.padding(toLength: 30, withPad: " ", startingAt: 0)
                + String(format: " recovered %2d of 20, later edits lost %d", again.entries.count - 20, lost))
            for f in aside { try? FileManager.default.removeItem(atPath: dir + "/" + f) }
        }
        print("journal corruption:\n" + table.joined(separator: "\n"))
    }

    /// A journal of another version (the first, without checksums) is not replayed as if it were this one: it
    /// is set aside whole, in one line.
    func testAJournalOfAnotherVersionIsSetAside() throws {
        let path = dir + "/old.journal"
        try "{\"journal\":1,\"new\":{}}\n{\"key\":\"a\",\"who\":\"ana\",\"deltas\":[]}\n".write(toFile: path, atomically: true, encoding: .utf8)
        let (_, replay) = try Journal.open(path, fileBytes: nil, loaded: start)
        XCTAssertEqual(replay.entries.count, 0)
        XCTAssertNotNil(replay.setAside)
        XCTAssertTrue(replay.damage?.contains("set aside") == true, replay.damage ?? "")
        let header = try JSONMessage.parse(Array([UInt8](FileManager.default.contents(atPath: path)!).dropFirst(17).prefix { $0 != 0x0A }))
        XCTAssertEqual(header["journal"]?.int, Journal.version)
    }
}

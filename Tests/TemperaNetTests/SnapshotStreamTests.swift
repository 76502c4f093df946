import Foundation
import TemperaCore
@testable import TemperaNet
import TemperaTestSupport
import XCTest

/// A joining participant is sent the whole document streamed in short lines, made as the connection takes
/// them, and gathers it a run at a time: neither side ever holds the document as one text, so a document at the
/// marker limit can be joined. The protocol's version is in hello; another one is refused in one line.
final class SnapshotStreamTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = TestPaths.temporaryDirectory("snapshot-stream") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Three tracks (one empty), markers of every kind: clips, holds, rests, random, chance, ratchets, slices,
    /// equal times.
    static func document(markers n: Int) -> Document {
        let contents: [Content?] = [.clip(1), .clip(16), .hold, .rest, .random, nil]
        var big: [Marker] = []
        big.reserveCapacity(n)
        for k in 0..<n {
            var m = Marker(id: 0, time: Double(k / 2) * 0.001 + 0.000_000_1 * Double(k % 7), amp: Double(k % 11) / 10,
                           content: contents[k % contents.count])
            if k % 13 == 0 { m.p = 0.5 }
            if k % 17 == 0 { m.rep = 3 }
            if k % 19 == 0 { m.from = 0.125 }
            big.append(m)
        }
        let small = (0..<2_000).map { Marker(id: 0, time: Double($0) / 3, content: .clip(2)) }
        var doc = Document(tracks: [Track(name: "big", markers: MarkerList(big)), Track(name: "empty"),
                                    Track(name: "thirds", markers: MarkerList(small), gain: 0.5)])
        doc.transport.tempo = 1.25
        return doc
    }

    func testTheWriterAndReaderCarryADocumentWithItsIdsInShortLines() throws {
        var doc = SnapshotStreamTests.document(markers: 20_000)
        // Ids need not follow positions: markers moved keep theirs.
        doc.tracks[0].markers.apply(removing: [5, 6], upserting: [Marker(id: 6, time: 100, content: .clip(3))])
        _ = doc.makeMarkerID()
        var writer = DocumentSnapshot.Writer(doc, seq: 42)
        var lines: [[UInt8]] = []
        while let l = writer.next() { lines.append(l) }
        XCTAssertGreaterThan(lines.count, 40, "a part per run of markers")
        for l in lines {
            XCTAssertEqual(l.last, 0x0A)
            XCTAssertEqual(l.dropLast().firstIndex(of: 0x0A), nil, "one line each")
        }
        XCTAssertLessThan(lines.dropFirst().map(\.count).max()!, LineConnection.piece, "each part fits in a piece")
        XCTAssertEqual(Wire.snapshotSize(doc, seq: 42), lines.map(\.count).reduce(0, +))
        var reader = try DocumentSnapshot.Reader(header: JSONMessage.parse(Array(lines[0].dropLast())))
        XCTAssertEqual(reader.seq, 42)
        for l in lines.dropFirst() {
            XCTAssertFalse(reader.isComplete)
            try reader.add(part: JSONMessage.parse(Array(l.dropLast())))
        }
        XCTAssertTrue(reader.isComplete)
        let got = reader.finished()
        XCTAssertEqual(got, doc)
        XCTAssertEqual(got.nextMarkerID, doc.nextMarkerID)
        for t in got.tracks.indices {
            XCTAssertEqual(got.tracks[t].markers.map(\.id), doc.tracks[t].markers.map(\.id))
            try got.tracks[t].markers.checkInvariants()
        }
        XCTAssertEqual(DocumentFile.encodeBytes(got), DocumentFile.encodeBytes(doc))

        // A part out of order, or beyond its track's count, is refused in one line.
        var again = try DocumentSnapshot.Reader(header: JSONMessage.parse(Array(lines[0].dropLast())))
        try again.add(part: JSONMessage.parse(Array(lines[2].dropLast())))
        XCTAssertThrowsError(try again.add(part: JSONMessage.parse(Array(lines[1].dropLast())))) {
            XCTAssertEqual("\($0)", "a snapshot's markers of track 1 are out of order")
        }
        let tooMany = try JSONMessage.parse(Array("{\"part\":1,\"ids\":[1],\"markers\":[{\"t\": 1, \"amp\": 1}]}".utf8))
        XCTAssertThrowsError(try again.add(part: tooMany)) {
            XCTAssertEqual("\($0)", "a snapshot sends track 2 more than its 0 markers")
        }
    }

    /// A document of 150,000 markers (about 7 MB of text, over a hundred parts) is joined while another
    /// participant keeps changing it: the joiner ends with the host's document, ids and bytes, and every line the
    /// host wrote was at most a piece.
    func testASnapshotOfManyPiecesArrivesWholeWhileTheDocumentChanges() throws {
        var options = DocumentHost.Options()
        options.port = 0
        let h = try DocumentHost(session: Session(document: SnapshotStreamTests.document(markers: 150_000)), options: options)
        defer { h.stop() }
        let editor = Participant(host: "127.0.0.1", port: h.port, name: "editor")
        try editor.connect()
        XCTAssertTrue(waitUntil(30) { editor.sync { $0.connected && $0.seq == 0 } })
        for k in 0..<20 { editor.send("marker add \(k)") }
        let raw = try RawClient(port: h.port)
        raw.send(Wire.hello(name: "raw", token: nil, session: nil, replied: 0) + "\n")
        let joiner = Participant(host: "127.0.0.1", port: h.port, name: "joiner")
        let snapshots = Counter()
        joiner.onEvent = { if case .snapshot = $0 { snapshots.add() } }
        try joiner.connect()
        for k in 0..<20 { editor.send("marker add \(k).5 track=3") }
        editor.send("select all")
        editor.send("shift 1/1000")
        XCTAssertTrue(waitUntil(120) { editor.sync { $0.unanswered.isEmpty } })
        let final = h.seq
        XCTAssertTrue(waitUntil(60) { joiner.sync { $0.seq } == final && editor.sync { $0.seq } == final })
        let hostDoc = h.sync { $0.document }
        XCTAssertEqual(joiner.sync { $0.document }, hostDoc)
        XCTAssertEqual(DocumentFile.encodeBytes(joiner.sync { $0.document }), DocumentFile.encodeBytes(hostDoc))
        XCTAssertEqual(snapshots.value, 1)

        // What the raw client read: a header, parts adding up to its counts, every physical line short.
        var counts: [Int]?
        var parts = 0
        var markers = 0
        while counts == nil || markers < counts!.reduce(0, +), let l = raw.line(within: 30) {
            if l.hasPrefix("{\"snapshot\":") { counts = try JSONMessage.parse(Array(l.utf8))["counts"]?.array?.compactMap(\.int) }
            if l.hasPrefix("{\"part\":") {
                parts += 1
                markers += try XCTUnwrap(JSONMessage.parse(Array(l.utf8))["ids"]?.array).count
            }
        }
        // It joined while the first twenty markers were being added.
        XCTAssertEqual(counts?.count, 3)
        XCTAssertEqual(counts?[1...], [0, 2_000])
        XCTAssertTrue((150_000...150_020).contains(counts?[0] ?? 0), "\(counts ?? [])")
        XCTAssertEqual(markers, counts?.reduce(0, +))
        XCTAssertGreaterThan(parts, 100)
        XCTAssertLessThanOrEqual(raw.longestPhysicalLine, LineConnection.piece + 1)
        editor.cut()
        joiner.cut()
    }

    func testAnotherVersionOfTheProtocolIsRefusedInOneLine() throws {
        var options = DocumentHost.Options()
        options.port = 0
        let h = try DocumentHost(session: Session(document: Document(tracks: [Track(name: "one")])), options: options)
        defer { h.stop() }
        let old = try RawClient(port: h.port)
        old.send("{\"hello\":1,\"name\":\"old\"}\n")
        XCTAssertEqual(old.line(), "{\"error\":\"this host speaks protocol 2 and the participant 1: run the same version of "
            + "tempera on both sides\"}")
        XCTAssertTrue(old.closed(within: 2))
    }

    /// A host of the first version (a welcome without a protocol, the document as one line): the participant
    /// says so in one line and does not take the document.
    func testAParticipantRefusesAHostOfAnotherVersionInOneLine() throws {
        let (listener, port, _) = try Sockets.listen(host: "127.0.0.1", port: 0)
        defer { close(listener) }
        let old = Participant(host: "127.0.0.1", port: port, name: "new")
        let notices = LineList()
        old.onEvent = { if case .notice(let n) = $0 { notices.add(n) } }
        try old.connect()
        let fd = accept(listener, nil, nil)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let first = "{\"welcome\":\"new\",\"session\":\"k\",\"host\":\"old\",\"done\":0,\"results\":[]}\n"
            + "{\"delta\":0,\"snapshot\":true,\"change\":{\"next\":0,\"whole\":{}}}\n"
        _ = first.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        XCTAssertTrue(waitUntil(5) { old.sync { $0.endedBeforeWelcome } })
        XCTAssertEqual(notices.items.first, "the host speaks protocol 1 and this participant 2: run the same version of "
            + "tempera on both sides")
        XCTAssertFalse(old.sync { $0.connected })
        XCTAssertEqual(old.sync { $0.seq }, -1, "no document taken")
    }

    /// `tempera serve` of a file and `tempera join --script -o` of it: the joiner's copy is the file, byte for
    /// byte; the time and both peak memories are printed. TEMPERA_JOIN_MARKERS sets the size (10,000,000 by hand,
    /// with TEMPERA_JOIN_BINARY=.build/release/tempera for the figures that count).
    func testJoiningALargeDocumentThroughThePrograms() throws {
        let env = ProcessInfo.processInfo.environment
        let n = Int(env["TEMPERA_JOIN_MARKERS"] ?? "") ?? 200_000
        let binary = env["TEMPERA_JOIN_BINARY"] ?? TestPaths.binary
        let file = dir + "/big.tempera"
        let t0 = Date()
        var doc = Document(tracks: [Track(name: "big")])
        var list = MarkerList()
        var run: [Marker] = []
        for k in 0..<n {
            run.append(Marker(id: MarkerID(k), time: Double(k) * 0.0005, amp: 0.8, content: .clip(k % 16 + 1)))
            if run.count == 4096 || k == n - 1 {
                XCTAssertTrue(list.append(inOrder: run))
                run.removeAll(keepingCapacity: true)
            }
        }
        doc.tracks[0].markers = list
        doc.nextMarkerID = MarkerID(n)
        try DocumentFile.save(doc, to: file)
        doc = Document()
        list = MarkerList()
        print(String(format: "a document of %d markers written in %.1f s", n, Date().timeIntervalSince(t0)))
        let server = try ServeProcess([file], in: dir, binary: binary)
        defer { _ = server.stop() }
        let script = dir + "/none.txt"
        try "# nothing: the document only\n".write(toFile: script, atomically: true, encoding: .utf8)
        // The host's peak so far is its loading of the file: the join's is counted from here.
        let loaded = server.memory
        server.resetPeak()
        let r = Spawn.measured(binary, ["join", "127.0.0.1:\(server.port)", "--name", "joiner", "--script", script,
                                        "-o", dir + "/joined.tempera"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let host = server.memory
        print(String(format: "joined %d markers in %.1f s: participant peak %d MB (its save of the copy included); "
                     + "host %d MB before the join (peak %d MB loading the file), peak %d MB during the join",
                     n, r.seconds, r.peakBytes >> 20, loaded.now >> 20, loaded.peak >> 20, host.peak >> 20))
        XCTAssertEqual(FileManager.default.contents(atPath: dir + "/joined.tempera"),
                       FileManager.default.contents(atPath: file), "the joiner's copy is the file, byte for byte")
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.lock(); n += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return n }
}

import Foundation
import TemperaCore
import TemperaNet
import XCTest

/// Every fuzz target's entry function, run over its seed corpus (Fuzz/Corpus/TARGET): the ordinary test build
/// compiles each target's code, so a change elsewhere that breaks one fails here rather than at the next
/// `make fuzz`; and each seed passes the target's own checks (a failed check stops the test run).
final class FuzzTargetTests: XCTestCase {
    typealias Entry = (UnsafePointer<UInt8>, Int) -> CInt

    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Corpus").path

    /// Runs `entry` over every seed of `target`, and over `extra` inputs; returns how many inputs ran.
    @discardableResult
    func run(_ target: String, _ entry: Entry, extra: [[UInt8]] = [], file: StaticString = #filePath,
             line: UInt = #line) -> Int {
        let folder = FuzzTargetTests.corpus + "/" + target
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        XCTAssertFalse(names.isEmpty, "the seed corpus of \(target) (\(folder))", file: file, line: line)
        var inputs = extra
        for name in names.sorted() {
            guard let data = FileManager.default.contents(atPath: folder + "/" + name) else { continue }
            inputs.append([UInt8](data))
        }
        for input in inputs {
            // An empty input still gets a valid pointer, as libFuzzer gives.
            let bytes = input.isEmpty ? [0] : input
            let status = bytes.withUnsafeBufferPointer { entry($0.baseAddress!, input.count) }
            XCTAssertEqual(status, 0, file: file, line: line)
        }
        return inputs.count
    }

    func testDocument() { run("document", fuzzDocument) }
    func testScript() { run("script", fuzzScript) }
    func testPattern() { run("pattern", fuzzPattern) }
    func testKeyMap() { run("keymap", fuzzKeyMap) }
    func testTheme() { run("theme", fuzzTheme) }
    func testH2Song() { run("h2song", fuzzH2Song) }
    func testDrumkit() { run("drumkit", fuzzDrumkit) }
    func testMidi() { run("midi", fuzzMidi) }

    /// The protocol's seeds, and the lines a real host writes for a document (its welcome and streamed parts).
    func testProtocol() {
        let document = Document(tracks: [Track(name: "kick", markers: MarkerList((0..<300).map {
            Marker(id: 0, time: Double($0) / 100, amp: 0.5, content: .clip(1))
        }))])
        var writer = DocumentSnapshot.Writer(document, seq: 0)
        var stream: [UInt8] = Array((Wire.welcome(name: "bo", session: "k", host: "host", done: 0, results: []) + "\n").utf8)
        while let line = writer.next() { stream += line }
        XCTAssertTrue(stream.count > 1000)
        let hostile = Array(("{\"hello\":2,\"name\":\"аna\"}\n{\"view\":{\"cursor\":1e308,\"track\":0}}\n"
            + "{\"presence\":[{\"name\":\"x\",\"cursor\":-1e308,\"track\":0}]}\n"
            + "{\"transport\":{\"playing\":true,\"start\":1,\"at\":1e308,\"music\":0,\"rate\":1,\"span\":2}}\n").utf8)
        XCTAssertGreaterThan(run("protocol", fuzzProtocol, extra: [stream, hostile]), 2)
    }
}

import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// Converted samples are kept in the user's cache folder: read back bit for bit, converted again when the file
/// changes; and a render loads only the velocity layers it plays.
final class SampleCacheTests: XCTestCase {
    var dir = ""
    var previous: String?

    override func setUp() {
        dir = TestPaths.temporaryDirectory("samplecache")
        previous = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"]
        setenv("XDG_CACHE_HOME", dir + "/cache", 1)
    }

    override func tearDown() {
        if let previous { setenv("XDG_CACHE_HOME", previous, 1) } else { unsetenv("XDG_CACHE_HOME") }
        try? FileManager.default.removeItem(atPath: dir)
    }

    var entries: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir + "/cache/tempera/samples")) ?? []).sorted()
    }

    func testTheCacheFollowsXDGAndElseHome() {
        XCTAssertEqual(SampleCache.directory(environment: ["XDG_CACHE_HOME": "/x", "HOME": "/h"]), "/x/tempera/samples")
        XCTAssertEqual(SampleCache.directory(environment: ["HOME": "/h"]), "/h/.cache/tempera/samples")
        // A relative XDG_CACHE_HOME is ignored, as the specification says.
        XCTAssertEqual(SampleCache.directory(environment: ["XDG_CACHE_HOME": "rel", "HOME": "/h"]), "/h/.cache/tempera/samples")
        XCTAssertNil(SampleCache.directory(environment: [:]))
    }

    func testAConvertedSampleIsKeptAndReadBackInsteadOfConvertedAgain() throws {
        let path = try Fixture.wav(Fixture.sine(hz: 441, seconds: 0.5, rate: 44_100), in: dir, name: "cd.wav", rate: 44_100)
        let first = try SampleLoader.load(path: path, sampleRate: 48_000)
        XCTAssertEqual(entries.count, 1, "the conversion is kept")
        let again = try SampleLoader.load(path: path, sampleRate: 48_000)
        XCTAssertEqual(again.frames, first.frames)
        XCTAssertEqual(Array(UnsafeBufferPointer(start: again.data, count: 2 * again.frames)),
                       Array(UnsafeBufferPointer(start: first.data, count: 2 * first.frames)), "bit for bit")
        // Read from the entry, not converted: an entry altered in place is what comes back.
        let entry = dir + "/cache/tempera/samples/" + entries[0]
        var bytes = try Data(contentsOf: URL(fileURLWithPath: entry))
        bytes.withUnsafeMutableBytes { raw in
            let floats = raw.baseAddress!.advanced(by: raw.count - 8).assumingMemoryBound(to: Float.self)
            floats[0] = 0.125
            floats[1] = -0.125
        }
        try bytes.write(to: URL(fileURLWithPath: entry))
        let altered = try SampleLoader.load(path: path, sampleRate: 48_000)
        XCTAssertEqual(altered.data[2 * altered.frames - 1], -0.125)
        // Another rate is another conversion, kept beside it; a file read at its own rate is kept too (reading the
        // floats back is faster than decoding the file again), and read back from its entry.
        _ = try SampleLoader.load(path: path, sampleRate: 96_000)
        XCTAssertEqual(entries.count, 2)
        let atRate = try SampleLoader.load(path: path, sampleRate: 44_100)
        XCTAssertEqual(entries.count, 3)
        let sameRate = try XCTUnwrap(SampleCache.Key(path: path, sampleRate: 44_100, note: nil, pitch: 0)).file
        var written = try Data(contentsOf: URL(fileURLWithPath: sameRate))
        written.withUnsafeMutableBytes { raw in
            raw.baseAddress!.advanced(by: raw.count - 4).assumingMemoryBound(to: Float.self)[0] = 0.25
        }
        try written.write(to: URL(fileURLWithPath: sameRate))
        XCTAssertEqual(try SampleLoader.load(path: path, sampleRate: 44_100).data[2 * atRate.frames - 1], 0.25,
                       "read from the entry")
    }

    func testAChangedSampleFileIsConvertedAgain() throws {
        let path = try Fixture.wav(Fixture.sine(hz: 441, seconds: 0.5, rate: 44_100), in: dir, name: "cd.wav", rate: 44_100)
        let old = try SampleLoader.load(path: path, sampleRate: 48_000)
        // The same name and size, another sound: a quieter tone written over it.
        try Fixture.wav(Fixture.sine(hz: 441, seconds: 0.5, amp: 0.25, rate: 44_100), in: dir, name: "cd.wav", rate: 44_100)
        let stamp = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as! Date
        try FileManager.default.setAttributes([.modificationDate: stamp.addingTimeInterval(5)], ofItemAtPath: path)
        let new = try SampleLoader.load(path: path, sampleRate: 48_000)
        XCTAssertEqual(new.frames, old.frames)
        let peakOld = (0..<old.frames).map { abs(old.data[2 * $0]) }.max()!
        let peakNew = (0..<new.frames).map { abs(new.data[2 * $0]) }.max()!
        XCTAssertEqual(peakOld, 0.5, accuracy: 0.01)
        XCTAssertEqual(peakNew, 0.25, accuracy: 0.01, "the new file, converted again")
        XCTAssertEqual(entries.count, 2)
    }

    func testTheCacheReadsItsThreeVariablesAsTheyAreNow() {
        setenv("TEMPERA_SAMPLE_CACHE_MB", "12", 1)
        defer { unsetenv("TEMPERA_SAMPLE_CACHE_MB") }
        let e = SampleCache.environment
        XCTAssertEqual(e["TEMPERA_SAMPLE_CACHE_MB"], "12")
        XCTAssertEqual(e["XDG_CACHE_HOME"], dir + "/cache")
        XCTAssertEqual(e["HOME"], ProcessInfo.processInfo.environment["HOME"])
        XCTAssertEqual(Set(e.keys).subtracting(["TEMPERA_SAMPLE_CACHE_MB", "XDG_CACHE_HOME", "HOME"]), [])
        XCTAssertEqual(SampleCache.limit(), 12 << 20)
        XCTAssertEqual(SampleCache.directory(), dir + "/cache/tempera/samples")
    }

    func testTheBoundComesFromTheEnvironmentElseAGigabyte() {
        XCTAssertEqual(SampleCache.limit(environment: [:]), 1 << 30)
        XCTAssertEqual(SampleCache.limit(environment: ["TEMPERA_SAMPLE_CACHE_MB": "64"]), 64 << 20)
        XCTAssertEqual(SampleCache.limit(environment: ["TEMPERA_SAMPLE_CACHE_MB": "0"]), 0)
        XCTAssertEqual(SampleCache.limit(environment: ["TEMPERA_SAMPLE_CACHE_MB": "lots"]), 1 << 30)
        XCTAssertEqual(SampleCache.limit(environment: ["TEMPERA_SAMPLE_CACHE_MB": "-5"]), 1 << 30)
    }

    func testTheCacheKeepsToItsBoundRemovingTheEntriesUsedLongestAgo() throws {
        setenv("TEMPERA_SAMPLE_CACHE_MB", "1", 1)
        defer { unsetenv("TEMPERA_SAMPLE_CACHE_MB") }
        // Half a second at 48 kHz, stereo floats: 192,000 bytes an entry, so five fit in a megabyte and six do not.
        var paths: [String] = []
        for k in 0..<6 {
            paths.append(try Fixture.wav(Fixture.sine(hz: 441, seconds: 0.5, rate: 44_100), in: dir, name: "s\(k).wav", rate: 44_100))
        }
        func cached(_ k: Int) -> Bool {
            FileManager.default.fileExists(atPath: SampleCache.Key(path: paths[k], sampleRate: 48_000, note: nil, pitch: 0)!.file)
        }
        for k in 0..<5 {
            _ = try SampleLoader.load(path: paths[k], sampleRate: 48_000)
            usleep(20_000)
        }
        XCTAssertEqual(entries.count, 5)
        // The first is used again (read back, not converted): the second is now the one used longest ago.
        _ = try SampleLoader.load(path: paths[0], sampleRate: 48_000)
        usleep(20_000)
        _ = try SampleLoader.load(path: paths[5], sampleRate: 48_000)
        XCTAssertEqual(entries.count, 5, "\(entries)")
        XCTAssertFalse(cached(1), "the entry used longest ago is removed")
        XCTAssertTrue(cached(0), "the entry read again stays")
        XCTAssertTrue(cached(5))
        // Files that are not entries are never removed.
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/cache/tempera/samples/notes.txt", contents: Data(count: 2 << 20)))
        _ = try SampleLoader.load(path: paths[1], sampleRate: 48_000)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/cache/tempera/samples/notes.txt"))
    }

    func testABoundOfZeroKeepsNothing() throws {
        setenv("TEMPERA_SAMPLE_CACHE_MB", "0", 1)
        defer { unsetenv("TEMPERA_SAMPLE_CACHE_MB") }
        let path = try Fixture.wav(Fixture.sine(hz: 441, seconds: 0.5, rate: 44_100), in: dir, name: "cd.wav", rate: 44_100)
        let buffer = try SampleLoader.load(path: path, sampleRate: 48_000)
        XCTAssertEqual(buffer.frames, 24_000)
        XCTAssertEqual(entries, [])
    }

    func testARenderLoadsOnlyTheLayersItPlays() throws {
        let hard = try Fixture.wav(Fixture.block(frames: 480, level: 0.5), in: dir, name: "hard.wav")
        // The soft layer's file is missing: a render that never plays it says nothing about it.
        let slot = ClipSlot(layers: [.init(file: dir + "/missing.wav", min: 0, max: 0.5), .init(file: hard, min: 0.5, max: 1)])
        let doc = Fixture.document(tracks: [[(0, .clip(1)), (0.5, .clip(1))]], slots: [slot], amp: 0.9)
        let quiet = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0)
        XCTAssertEqual(quiet.warnings, [])
        XCTAssertEqual(quiet.renderAll()[2 * 24_100], 0.45, accuracy: 1e-6)
        // Played softly, the missing layer is loaded, and said to be missing.
        let soft = OfflineRenderer(document: Fixture.document(tracks: [[(0, .clip(1))]], slots: [slot], amp: 0.3),
                                   baseDirectory: dir, loops: 1, maxTail: 0)
        XCTAssertEqual(soft.warnings.count, 1)
        XCTAssertTrue(soft.warnings.first?.contains("missing.wav") ?? false, "\(soft.warnings)")
    }

    func testARenderMapsCachedSamplesAndAPlayerReadsThem() throws {
        let path = try Fixture.wav(Fixture.sine(hz: 441, seconds: 0.5, rate: 44_100), in: dir, name: "cd.wav", rate: 44_100)
        let converted = try SampleLoader.load(path: path, sampleRate: 48_000, mapped: true)
        XCTAssertFalse(converted.isMapped, "converted now: memory of its own")
        let mapped = try SampleLoader.load(path: path, sampleRate: 48_000, mapped: true)
        let read = try SampleLoader.load(path: path, sampleRate: 48_000)
        XCTAssertTrue(mapped.isMapped)
        XCTAssertFalse(read.isMapped)
        XCTAssertEqual(Int(bitPattern: mapped.data) % 64, 0, "the entry's samples start aligned")
        for b in [mapped, read] {
            XCTAssertEqual(b.frames, converted.frames)
            XCTAssertEqual(Array(UnsafeBufferPointer(start: b.data, count: 2 * b.frames)),
                           Array(UnsafeBufferPointer(start: converted.data, count: 2 * converted.frames)), "bit for bit")
        }
        // A render's bank maps; a player's reads into memory of its own (the audio thread never waits on a disk).
        let slots = [ClipSlot(file: path)]
        XCTAssertTrue(try XCTUnwrap(SampleBank(sampleRate: 48_000, mapsCachedSamples: true)
            .samples(for: slots, baseDirectory: dir).0[0][0]).isMapped)
        XCTAssertFalse(try XCTUnwrap(SampleBank(sampleRate: 48_000).samples(for: slots, baseDirectory: dir).0[0][0]).isMapped)
        // A render from mapped samples is the render from converted ones.
        let doc = Fixture.document(tracks: [[(0, .clip(1)), (0.25, .clip(1))]], slots: slots)
        let again = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0).renderAll()
        try FileManager.default.removeItem(atPath: dir + "/cache")
        XCTAssertEqual(OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0).renderAll(), again)
    }

    func testAnEntryCutShortIsConvertedAgainWhenMapped() throws {
        let path = try Fixture.wav(Fixture.sine(hz: 441, seconds: 0.5, rate: 44_100), in: dir, name: "cd.wav", rate: 44_100)
        let first = try SampleLoader.load(path: path, sampleRate: 48_000)
        let entry = dir + "/cache/tempera/samples/" + entries[0]
        let whole = try Data(contentsOf: URL(fileURLWithPath: entry))
        try whole.prefix(whole.count - 4).write(to: URL(fileURLWithPath: entry))
        let again = try SampleLoader.load(path: path, sampleRate: 48_000, mapped: true)
        XCTAssertFalse(again.isMapped, "not taken from the damaged entry")
        XCTAssertEqual(Array(UnsafeBufferPointer(start: again.data, count: 2 * again.frames)),
                       Array(UnsafeBufferPointer(start: first.data, count: 2 * first.frames)))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: entry)).count, whole.count, "the entry written again")
    }
}

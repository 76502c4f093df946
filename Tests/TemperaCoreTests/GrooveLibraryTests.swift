import Foundation
import XCTest
@testable import TemperaCore

/// A groove's period is the loop (or `span=`), `groove apply` moves every selected track, and `groove save` /
/// `groove load` keep grooves in the user's data folder across documents.
final class GrooveLibraryTests: XCTestCase {
    var dir = ""
    var savedData: String?

    override func setUp() {
        dir = NSTemporaryDirectory() + "tempera-grooves-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        savedData = getenv("XDG_DATA_HOME").map { String(cString: $0) }
        // Never the real home folder: the user's library is under this folder for the test.
        setenv("XDG_DATA_HOME", dir, 1)
    }

    override func tearDown() {
        if let savedData { setenv("XDG_DATA_HOME", savedData, 1) } else { unsetenv("XDG_DATA_HOME") }
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// A small offset for step k of a groove: a few milliseconds, each step its own.
    static func offset(_ k: Int) -> Double { 0.001 * Double(k % 7) - 0.002 }

    /// A loop of 64 sixteenths (8 s at 120 BPM): track 1 plays steps 4...63 off the grid by `offset`, step 63
    /// 20 ms late; track 2 every step on the grid; track 3 every step on the grid too.
    func loopSession() -> Session {
        let grooved = (4..<64).map { k in Double(k) * 0.125 + (k == 63 ? 0.02 : Self.offset(k)) }
        let straight = (0..<64).map { Double($0) * 0.125 }
        var doc = Fixture.document([grooved, straight, straight])
        doc.transport.loopStart = 0
        doc.transport.loopEnd = 8
        doc.transport.length = 8
        let s = Session(document: doc)
        s.selection[0] = Set(doc.tracks[0].markers.map(\.id))
        return s
    }

    func testTheGroovesPeriodIsTheLoopSoItsLastStepGetsItsOffset() throws {
        let s = loopSession()
        XCTAssertEqual(try s.run(try CommandParser.parse("groove extract 1 grid=4")!),
                       "group 1: groove of 64 steps (60 with markers), 1/4 beat")
        let groove = try XCTUnwrap(s.document.groups[1].groove)
        XCTAssertEqual(groove.offsets.count, 64)
        XCTAssertNil(groove.offsets[0])
        XCTAssertEqual(try XCTUnwrap(groove.offsets[63]), 0.02, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(groove.offsets[4]), Self.offset(4), accuracy: 1e-12)
        // Applied to the straight tracks 2 and 3 together: both follow, step for step, the last one included.
        s.selection = [1: Set(s.document.tracks[1].markers.map(\.id)), 2: Set(s.document.tracks[2].markers.map(\.id))]
        XCTAssertEqual(try s.run(try CommandParser.parse("groove apply 1")!), "grooved 120 markers on 2 tracks by group 1")
        for track in [1, 2] {
            let times = s.times(track)
            for k in 0..<64 {
                let want = Double(k) * 0.125 + (k < 4 ? 0 : k == 63 ? 0.02 : Self.offset(k))
                XCTAssertEqual(times[k], want, accuracy: 1e-12, "track \(track + 1), step \(k + 1)")
            }
        }
        XCTAssertEqual(s.undoName, "groove apply 1")
    }

    func testASpanShorterThanTheLoopFoldsThePeriodsTogether() throws {
        let s = loopSession()
        // Over one bar (2 s, 16 steps): each step the mean of its four bars' offsets.
        XCTAssertEqual(try s.run(.grooveExtract(2, grid: 4, span: 2)), "group 2: groove of 16 steps (16 with markers), 1/4 beat")
        let groove = try XCTUnwrap(s.document.groups[2].groove)
        for j in 0..<16 {
            let ks = [j, j + 16, j + 32, j + 48].filter { $0 >= 4 }
            let mean = ks.map { $0 == 63 ? 0.02 : Self.offset($0) }.reduce(0, +) / Double(ks.count)
            XCTAssertEqual(try XCTUnwrap(groove.offsets[j]), mean, accuracy: 1e-12, "step \(j + 1)")
        }
        XCTAssertEqual(try CommandParser.parse("groove extract 2 grid=4 span=2"), .grooveExtract(2, grid: 4, span: 2))
        XCTAssertThrowsError(try s.run(.grooveExtract(2, grid: 4, span: 0.01))) {
            XCTAssertEqual(($0 as? CommandError)?.message, "the groove's span (0.01 s) is shorter than a grid step")
        }
    }

    func testSaveAndLoadKeepAGrooveInTheDataFolderAcrossDocuments() throws {
        let s = loopSession()
        try s.run(try CommandParser.parse("groove extract 3 grid=4")!)
        let folder = dir + "/tempera/grooves"
        let undoBefore = s.undoName
        XCTAssertEqual(try s.run(try CommandParser.parse("groove save mpc.64")!),
                       "groove mpc.64 kept (group 3, 64 steps) in \(folder)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["mpc.64.json"], "no temporary file left")
        let text = try String(contentsOfFile: folder + "/mpc.64.json", encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("{\"grid\": 4, \"step\": 0.125, \"offsets\": [null, null, null, null, "), text)
        XCTAssertEqual(s.undoName, undoBefore, "keeping a groove is no edit of the document")

        // Another document, another session: the groove comes back whole, into the first empty group.
        let other = Session(document: Fixture.document([(0..<16).map { Double($0) * 0.125 }]))
        XCTAssertEqual(try other.run(try CommandParser.parse("groove load mpc.64")!), "group 1: groove mpc.64, 64 steps of 1/4 beat")
        XCTAssertEqual(other.document.groups[1].groove, s.document.groups[3].groove)
        XCTAssertEqual(other.undoName, "groove load mpc.64")
        try other.run(try CommandParser.parse("groove load mpc.64 7")!)
        XCTAssertEqual(other.document.groups[7].groove, s.document.groups[3].groove)
        try other.run(.undo(1))
        XCTAssertTrue(other.document.groups[7].isEmpty)

        // Saving again replaces it; a second name lists beside it.
        try s.run(try CommandParser.parse("groove save swing_2 3")!)
        XCTAssertThrowsError(try other.run(.grooveLoad("nope"))) {
            XCTAssertEqual(($0 as? CommandError)?.message, "no groove nope in \(folder) (kept: mpc.64, swing_2)")
        }
    }

    func testABadGrooveFileOrNameIsOneClearLine() throws {
        let folder = dir + "/tempera/grooves"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "{\"grid\": 4, \"step\": 0.125}\n".write(toFile: folder + "/half.json", atomically: true, encoding: .utf8)
        try "not json".write(toFile: folder + "/junk.json", atomically: true, encoding: .utf8)
        let s = Session(document: Fixture.document([[0]]))
        for name in ["half", "junk"] {
            XCTAssertThrowsError(try s.run(.grooveLoad(name))) { e in
                let message = (e as? CommandError)?.message ?? "\(e)"
                XCTAssertTrue(message.hasPrefix("groove \(name): \(folder)/\(name).json is not a groove: "), message)
                XCTAssertFalse(message.contains("\n"), message)
            }
        }
        XCTAssertTrue(s.document.groups[1].isEmpty)
        XCTAssertThrowsError(try CommandParser.parse("groove save ../escape")) { e in
            XCTAssertEqual((e as? CommandError)?.message,
                           "a groove's name is letters, digits, '-', '_' and '.' (at most 100, not starting with '.'), not '../escape'")
        }
        XCTAssertThrowsError(try s.run(.grooveSave("kept"))) {
            XCTAssertEqual(($0 as? CommandError)?.message, "no group holds a groove (take one with 'groove extract N')")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), ["half.json", "junk.json"])
    }

    func testTheUserLibraryFollowsTheDataHome() {
        XCTAssertEqual(GrooveLibrary.user(environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/u"]).folder, "/data/tempera/grooves")
        XCTAssertEqual(GrooveLibrary.user(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/u"]).folder,
                       "/home/u/.local/share/tempera/grooves")
        XCTAssertEqual(GrooveLibrary.user(environment: ["HOME": "/home/u"]).folder, "/home/u/.local/share/tempera/grooves")
        XCTAssertEqual(GrooveLibrary.user().folder, dir + "/tempera/grooves")
    }
}

/// `temper fit` with the designer's own rows, the loop's span, and a slider outside 0..1.
final class TemperFitTests: XCTestCase {
    /// The swing preset (2 against 3:0,2 over half a second) stamped at `slider`, from `at`.
    func swung(_ slider: Double, at start: Double = 0) -> [Double] {
        var t = TemperamentPreset.swing.temperament
        t.slider = slider
        return t.stampMarkers(at: start, sliders: [slider], content: nil).map(\.time)
    }

    func fit(_ times: [Double], preset: String, loop: Double = 2, span: String = "") throws -> (String?, Session) {
        var doc = Fixture.document([times])
        doc.transport.loopStart = 0
        doc.transport.loopEnd = loop
        let s = Session(document: doc)
        s.selection[0] = Set(doc.tracks[0].markers.map(\.id))
        try s.run(.temperPreset(preset))
        return (try s.run(try CommandParser.parse("temper fit" + span)!), s)
    }

    func testSwungMarkersFitTheDesignersOwnBeats() throws {
        let (said, s) = try fit(swung(0.4), preset: "swing")
        XCTAssertEqual(said, "fit 2 -> 3:0,2, slider 0.4, rms 0 ms")
        XCTAssertEqual(s.document.designer.bottom.beats, [0, 2])
        XCTAssertEqual(s.document.designer.slider, 0.4, accuracy: 1e-9)
        // Played back, the designer's dots are the markers.
        XCTAssertEqual(s.document.designer.result().map(\.time), swung(0.4), accuracy: 1e-12)
    }

    func testASliderOutsideZeroToOneIsSaid() throws {
        let (late, _) = try fit(swung(1.3), preset: "swing")
        XCTAssertEqual(late, "fit 2 -> 3:0,2, slider 1.3 (outside 0..1: beyond the bottom row), rms 0 ms")
        let (early, _) = try fit(swung(-0.3), preset: "swing")
        XCTAssertEqual(early, "fit 2 -> 3:0,2, slider -0.3 (outside 0..1: beyond the top row), rms 0 ms")
    }

    func testTheLoopsSpanIsTakenWhenTheDesignersDoesNotCoverTheSelection() throws {
        // Tigrigna's five over one second, in a loop of one second; the designer still holds swing's half second.
        var t = TemperamentPreset.tigrigna.temperament
        t.slider = 0.37
        let times = t.stampMarkers(at: 0, sliders: [0.37], content: nil).map(\.time)
        let (said, s) = try fit(times, preset: "swing", loop: 1)
        XCTAssertTrue(said?.hasSuffix(", rms 0 ms, span 1 s (the loop)") == true, said ?? "")
        XCTAssertEqual(s.document.designer.span, 1)
        XCTAssertEqual(s.document.designer.result().map(\.time), times, accuracy: 1e-9)
        // A span given is kept: over half a second the selection does not fit.
        XCTAssertThrowsError(try fit(times, preset: "swing", loop: 1, span: " span=0.5"))
    }
}

private func XCTAssertEqual(_ a: [Double], _ b: [Double], accuracy: Double, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a.count, b.count, "\(a) vs \(b)", file: file, line: line)
    for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: accuracy, "\(a) vs \(b)", file: file, line: line) }
}

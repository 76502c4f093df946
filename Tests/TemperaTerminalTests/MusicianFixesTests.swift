import XCTest
@testable import TemperaTerminal
import TemperaCore

/// What a musician met composing a whole piece, each fixed and held here: a tab's own keys, the session's
/// clipboard, `save PATH` as a copy, the Song tab's columns, the Euclid line, one spelling for clips 10-16, and
/// what `-` and `.` do in a code.
final class MusicianFixesTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "tempera-musician-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    // MARK: A tab's own keys

    func testATabsOwnKeyWinsOverTheGlobalOne() {
        let d = make()
        keys(d, "F4 E")
        XCTAssertEqual(d.view.commandLine.map { String($0.prefix(7)) }, "temper ", "E edits the designer's definition")
        keys(d, "esc")
        keys(d, "F2")
        let before = d.session.document.slot(1).release
        keys(d, "E")
        XCTAssertNil(d.view.commandLine, "not the ratchet line")
        XCTAssertGreaterThan(d.session.document.slot(1).release, before, "E in the Clips tab lengthens the release")
        // Where no tab binds it, E is still the ratchet line, and the global keys a tab leaves alone still work.
        keys(d, "esc E")
        XCTAssertEqual(d.view.commandLine, "ratchet")
        keys(d, "esc F4 ?")
        XCTAssertNotNil(d.view.helpOffset)
    }

    // MARK: The clipboard belongs to the session

    func testTheClipboardSurvivesOpeningAnotherFile() throws {
        let other = dir + "/other.tempera"
        try DocumentFile.save(.newDocument(), to: other)
        let d = make()
        keys(d, "1 right a s enter y")
        XCTAssertNotNil(d.session.view.clipboard)
        try d.runLine("e! \(other)")
        XCTAssertEqual(d.session.path, other)
        let before = d.session.document.tracks[0].markers.filter { $0.content == .clip(1) }.count
        try d.runLine("paste")
        XCTAssertEqual(d.session.document.tracks[0].markers.filter { $0.content == .clip(1) }.count, before + 1)
    }

    // MARK: save PATH writes a copy

    func testSavePathWritesACopyAndTheEditorStaysOnItsFile() throws {
        let own = dir + "/song.tempera", copy = dir + "/copy.tempera", renamed = dir + "/renamed.tempera"
        try DocumentFile.save(.newDocument(), to: own)
        let d = Dispatcher(session: Session(document: try DocumentFile.load(own), path: own), width: 120, height: 40, clock: { 0 })
        try d.runLine("tempo 1.5")
        try d.runLine("save \(copy)")
        XCTAssertEqual(d.session.path, own, "still editing its own file")
        XCTAssertTrue(d.session.isModified, "the own file was not saved")
        XCTAssertEqual(d.view.message, "wrote a copy to \(copy) (still editing \(own))")
        XCTAssertEqual(try DocumentFile.load(copy).transport.tempo, 1.5)
        XCTAssertEqual(try DocumentFile.load(own).transport.tempo, 1)
        // `w FILE` is the same; S opens `saveas`, which switches.
        keys(d, "S")
        XCTAssertEqual(d.view.commandLine, "saveas \(own)")
        keys(d, "C-u")
        XCTAssertEqual(d.view.commandLine, "saveas ")
        type(d, renamed)
        keys(d, "enter")
        XCTAssertEqual(d.session.path, renamed)
        XCTAssertFalse(d.session.isModified)
        XCTAssertEqual(try DocumentFile.load(renamed).transport.tempo, 1.5)
        // Without a file yet, save PATH names the document.
        let fresh = make()
        try fresh.runLine("save \(dir)/named.tempera")
        XCTAssertEqual(fresh.session.path, dir + "/named.tempera")
    }

    // MARK: The Song tab's columns

    func testTheSongTabsColumnsNeverRunTogether() throws {
        let s = Session(document: .demo())
        // BPM = 100 x tempo at a beat of 0.6 s: a ramp from 100 to 140 BPM over 300 passes, some 500 s long.
        for line in ["beat 0.6", "section add A 0 2 x300", "section 1 tempo 1..1.4", "section add B 0 2 x2"] {
            try s.run(line: line)
        }
        var view = ViewState()
        view.tab = .song
        let c = render(s, view, width: 200, height: 40)
        let y = try XCTUnwrap((0..<40).first { c.line($0).contains("1  A") })
        let header = try XCTUnwrap((0..<40).first { c.line($0).contains("length") })
        let row = c.line(y)
        XCTAssertTrue(row.contains("100→140 "), row)
        let seconds = try XCTUnwrap(row.range(of: #"[0-9]+\.[0-9]{3} s"#, options: .regularExpression))
        XCTAssertEqual(row[row.index(before: seconds.lowerBound)], " ", row)
        // The length stands under its title, as every other column.
        XCTAssertEqual(column(of: String(row[seconds]), inRow: y, c), column(of: "length", inRow: header, c))
        XCTAssertEqual(column(of: "100→140", inRow: y, c), column(of: "bpm", inRow: header, c))
    }

    // MARK: The Euclid line

    func testTheEuclidLineReplacesTheOldCountWithTheDigitsTyped() throws {
        let d = make()
        try d.runLine("temper span=2 top=12:0,3,6,9 bottom=16:all s=0")
        keys(d, "F4 down e 7 enter")
        XCTAssertEqual(d.session.document.designer.top.beats, try Euclid.beats(k: 7, n: 12))
        // Two digits go too: the bottom row's 16 becomes 5.
        keys(d, "down e 5")
        XCTAssertTrue(d.view.commandLine?.contains("bottom=16:euclid(5)") == true, d.view.commandLine ?? "")
        keys(d, "enter")
        XCTAssertEqual(d.session.document.designer.bottom.beats, try Euclid.beats(k: 5, n: 16))
    }

    // MARK: One spelling for clips 10 to 16

    func testClipTwelveIsSpelledAtEverywhere() throws {
        XCTAssertEqual(Glyphs.utf8.label(.clip(12)), "@")
        XCTAssertEqual(Glyphs.utf8.label(.clip(10)), "0")
        XCTAssertEqual(Glyphs.ascii.label(.clip(16)), "^")
        XCTAssertEqual(try PatternParser.parse("1 . @ .").symbols, [.clip(1), .skip, .clip(12), .skip])
        XCTAssertEqual(try PatternParser.parse("0!@#$%^~").symbols,
                       [.clip(10), .clip(11), .clip(12), .clip(13), .clip(14), .clip(15), .clip(16), .random])
        XCTAssertEqual(try PatternParser.parse("@x3").symbols, [.clip(12), .clip(12), .clip(12)])
        let d = make()
        keys(d, "@")
        XCTAssertEqual(d.session.chosenClip, .clip(12))
        try d.runLine("clip 1")
        try d.runLine("clip @")
        XCTAssertEqual(d.session.chosenClip, .clip(12))
        try d.runLine("spread \"1 . @ .\"")
        let track = d.session.document.tracks[d.session.currentTrack]
        XCTAssertEqual(track.markers.first { abs($0.time - 1) < 1e-9 }?.content, .clip(12))
    }

    // MARK: - cuts, . rests

    func testTheHelpSaysADashCutsAndOffersTheDotAsARest() throws {
        let spread = try XCTUnwrap(CommandTable.entries.map { $0.spec }.first { $0.head == "spread" })
        XCTAssertTrue(spread.help.contains("- rests, cutting the sound before it; . leaves a step empty"), spread.help)
        let d = make()
        keys(d, "F")
        XCTAssertTrue(d.view.message?.contains("- a rest that cuts the sound before it, . an empty step") == true)
        // And so they do: `.` leaves a step without a clip, `-` puts a rest there.
        try d.runLine("spread \"1 - 1 .\"")
        let markers = d.session.document.tracks[d.session.currentTrack].markers
        XCTAssertEqual(markers.first { abs($0.time - 0.5) < 1e-9 }?.content, .rest)
        XCTAssertNil(markers.first { abs($0.time - 1.5) < 1e-9 }?.content)
    }
}

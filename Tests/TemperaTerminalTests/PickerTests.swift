import Foundation
import XCTest
import TemperaAudio
import TemperaTestSupport
@testable import TemperaCore
@testable import TemperaTerminal

/// The Clips tab's file picker: Enter on a slot opens it, folders open, Enter chooses (one undo step), Space
/// previews on the output, Backspace goes up, and it opens again in the folder it last showed.
final class PickerTests: XCTestCase {
    var dir = ""

    override func setUp() {
        dir = TestPaths.temporaryDirectory("picker")
        try? FileManager.default.createDirectory(atPath: dir + "/drums", withIntermediateDirectories: true)
        try? FileManager.default.createDirectory(atPath: dir + "/.hidden", withIntermediateDirectories: true)
        for name in ["b.wav", "a.flac", "drums/kick.wav"] {
            try? AudioFile.write([Float](repeating: 0.25, count: 4_800), sampleRate: 48_000, to: dir + "/" + name,
                                 as: .wavFloat)
        }
        _ = FileManager.default.createFile(atPath: dir + "/notes.txt", contents: Data("x".utf8))
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// The editor on the Clips tab with the keys there and slot 3 chosen.
    func clips() -> Dispatcher {
        let d = make()
        d.view.tab = .clips
        d.view.focus = .tab
        d.session.chosenClip = .clip(3)
        d.pickerFolder = dir
        return d
    }

    func testTheFolderListsFoldersThenAudioFilesAndHidesTheRest() {
        let p = Picker.files(in: dir, slot: 3)
        XCTAssertEqual(p.entries.map(\.name), ["..", "drums", "a.flac", "b.wav"])
        XCTAssertEqual(p.entries.map(\.isFolder), [true, true, false, false])
    }

    func testEnterOnASlotOpensThePickerAndEnterChoosesTheFileAsOneUndoStep() {
        let d = clips()
        keys(d, "enter")
        XCTAssertEqual(d.view.picker?.folder, dir)
        XCTAssertEqual(d.view.picker?.purpose, .file(slot: 3))
        keys(d, "down down down enter")
        XCTAssertNil(d.view.picker)
        XCTAssertEqual(d.session.document.slot(3).file, dir + "/b.wav")
        XCTAssertEqual(d.session.document.slot(3).name, "b")
        XCTAssertEqual(d.view.message, "slot 3: b.wav")
        keys(d, "u")
        XCTAssertEqual(d.session.document.slot(3).file, "kit/closed-hat.wav")
    }

    func testFoldersOpenBackspaceGoesUpAndThePickerRemembersTheLastFolder() {
        let d = clips()
        keys(d, "enter down enter")
        XCTAssertEqual(d.view.picker?.folder, dir + "/drums")
        XCTAssertEqual(d.view.picker?.entries.map(\.name), ["..", "kick.wav"])
        keys(d, "backspace")
        XCTAssertEqual(d.view.picker?.folder, dir)
        XCTAssertEqual(d.view.picker?.selected?.name, "drums", "back on the folder it came from")
        keys(d, "enter down enter")
        XCTAssertEqual(d.session.document.slot(3).file, dir + "/drums/kick.wav")
        keys(d, "enter")
        XCTAssertEqual(d.view.picker?.folder, dir + "/drums", "it opens where it was last")
        keys(d, "esc")
        XCTAssertNil(d.view.picker)
        XCTAssertEqual(d.view.message, "nothing chosen")
    }

    func testSpacePreviewsTheFileOnTheOutputWhateverTheTransport() {
        let d = clips()
        let engine = AudioEngine(output: .null)
        engine.load(document: d.session.document, baseDirectory: dir)
        engine.start()
        d.player = engine
        // A first block with nothing sounding settles the master volume (it takes it at once then).
        _ = engine.pump(frames: 480)
        keys(d, "enter down down down space")
        XCTAssertEqual(d.view.message, "preview: b.wav")
        XCTAssertNotNil(d.view.picker, "a preview leaves the picker open")
        let out = engine.pump(frames: 2_400)
        // After the 1 ms start fade, the file at full level through the master volume (0.8).
        XCTAssertEqual(out[2 * 100], 0.25 * 0.8, accuracy: 1e-6)
        XCTAssertEqual(out[2 * 100 + 1], 0.25 * 0.8, accuracy: 1e-6)
        XCTAssertEqual(out[0], 0.25 * 0.8 / 48, accuracy: 1e-6)
        XCTAssertFalse(engine.isPlaying, "the transport stays stopped")
        engine.stop()
    }

    func testThePickerDrawsOverTheScreen() {
        let d = clips()
        keys(d, "enter down")
        var canvas = Canvas(width: 80, height: 24)
        PickerView.draw(d.view.picker!, ascii: false, into: &canvas)
        XCTAssertTrue(canvas.line(0).hasPrefix(" slot 3: choose a file in "), canvas.line(0))
        XCTAssertTrue(canvas.line(3).hasPrefix("   .."), canvas.line(3))
        XCTAssertTrue(canvas.line(4).hasPrefix(" ▸ drums/"), canvas.line(4))
        XCTAssertTrue(canvas.line(5).hasPrefix("   a.flac"), canvas.line(5))
        XCTAssertEqual(canvas.role(of: "▸ drums/", inRow: 4), .toolActive)
    }
}

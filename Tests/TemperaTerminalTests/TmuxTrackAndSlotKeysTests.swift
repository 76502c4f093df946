import Foundation
import XCTest
@testable import TemperaCore
@testable import TemperaTerminal

/// The track and Clips tab keys as a real terminal sends them (Ctrl, Alt and Shift arrows included), saved
/// to a file and read back.
extension TmuxTests {
    func testTrackAndClipSlotKeysInARealTerminalAreSaved() throws {
        let path = home + "/keys.tempera"
        launch([path])
        waitFor("new file")
        // Track 2: muted, soloed, 2 dB down (Ctrl and Alt arrows), renamed.
        keys("Down", "M", "O", "C-Down", "M-Down")
        waitFor("M S -2dB")
        keys("R")
        type("low tom")
        keys("Enter")
        waitFor("low tom")
        // Clips tab, slot 5: gate, a semitone and an octave up, 1 dB down.
        keys("5", "F2", "g", "S-Right", "C-Right", "S-Down")
        waitFor("gain 0.891")
        keys("C-s")
        waitFor("saved")
        let saved = try DocumentFile.load(path)
        XCTAssertEqual(saved.tracks[1].name, "low tom")
        XCTAssertTrue(saved.tracks[1].mute)
        XCTAssertTrue(saved.tracks[1].solo)
        XCTAssertEqual(saved.tracks[1].gain, pow(10, -2.0 / 20), accuracy: 1e-9)
        XCTAssertEqual(saved.slots[4].mode, .gate)
        XCTAssertEqual(saved.slots[4].note, 73)
        XCTAssertEqual(saved.slots[4].gain, pow(10, -1.0 / 20), accuracy: 1e-9)
        keys("q")
        waitFor("tempera-exited-0")
    }
}

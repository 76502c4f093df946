import XCTest
@testable import TemperaCore

/// `slot N midi=CH[:NOTE]`: a slot's onsets sent to MIDI out; its forms, the note it sends, the file, undo.
final class SlotMidiTests: XCTestCase {
    func parse(_ text: String) throws -> Command? { try CommandParser.parse(text) }

    func testMidiFormsReadAsChannelAndNote() throws {
        XCTAssertEqual(try parse("slot 3 midi=10"), .slot(3, .init(midiChannel: 10)))
        XCTAssertEqual(try parse("slot 3 midi=2:40"), .slot(3, .init(midiChannel: 2, midiNote: 40)))
        XCTAssertEqual(try parse("slot 3 midi=none"), .slot(3, .init(midiChannel: 0)))
        for c: Command in [.slot(3, .init(midiChannel: 10)), .slot(1, .init(midiChannel: 2, midiNote: 40)),
                           .slot(16, .init(midiChannel: 0))] {
            XCTAssertEqual(try parse(c.text), c, c.text)
        }
        func error(_ text: String) -> String? {
            do { _ = try parse(text); return nil } catch { return (error as? CommandError)?.message }
        }
        XCTAssertEqual(error("slot 1 midi=17"), "midi= is a channel 1-16, optionally :NOTE (0-127), or none; not '17'")
        XCTAssertEqual(error("slot 1 midi=1:128"), "midi=CH:NOTE takes a note 0-127, not '128'")
    }

    func testTheNoteSentIsTheMidiNoteElseTheSlotsNoteElseTheGeneralMidiDrum() {
        var s = ClipSlot(name: "snare", file: "s.wav")
        XCTAssertEqual(s.midiOutNote, 38)
        s.note = 50
        XCTAssertEqual(s.midiOutNote, 50)
        s.midiNote = 41
        XCTAssertEqual(s.midiOutNote, 41)
        XCTAssertEqual(ClipSlot(name: "mystery").midiOutNote, 60)
    }

    func testAMidiOnlySlotIsNotEmptyButSilentAndTheSettingIsOneUndoableStep() throws {
        let s = Session(document: Document(tracks: [], slots: Array(repeating: ClipSlot(), count: 16)))
        let before = s.document.slot(5)
        XCTAssertTrue(before.isEmpty)
        _ = try s.run(line: "slot 5 midi=10:38")
        XCTAssertEqual(s.document.slot(5).midiChannel, 10)
        XCTAssertEqual(s.document.slot(5).midiNote, 38)
        XCTAssertFalse(s.document.slot(5).isEmpty)
        XCTAssertTrue(s.document.slot(5).isSilentMidi)
        _ = try s.run(line: "slot 5 midi=none")
        XCTAssertNil(s.document.slot(5).midiChannel)
        XCTAssertNil(s.document.slot(5).midiNote)
        _ = try s.run(line: "undo 2")
        XCTAssertEqual(s.document.slot(5), before)
    }

    func testMidiRoundTripsInTheFile() throws {
        var doc = Document.newDocument()
        doc.slots[2].midiChannel = 10
        doc.slots[3].midiChannel = 2
        doc.slots[3].midiNote = 40
        let text = DocumentFile.encode(doc)
        XCTAssertTrue(text.contains("\"midi\": 10}"), text)
        XCTAssertTrue(text.contains("\"midi\": 2, \"midi_note\": 40}"), text)
        XCTAssertEqual(try DocumentFile.decode(text), doc)
        XCTAssertThrowsError(try DocumentFile.decode(
            "{\"tempera\": 1, \"slots\": [{\"slot\": 1, \"midi\": 17}]}"))
    }
}

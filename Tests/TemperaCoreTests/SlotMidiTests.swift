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

    func testMidiMapGivesANoteToOneSlotAndNoneGivesItBackAsOneUndoStepEach() throws {
        var slots = Array(repeating: ClipSlot(), count: 16)
        slots[0] = ClipSlot(name: "kick", file: "k.wav")
        slots[1] = ClipSlot(name: "snare", file: "s.wav")
        slots[2] = ClipSlot(name: "tone", file: "b.wav", note: 72)
        let s = Session(document: Document(tracks: [], slots: slots))
        // The default: a slot's note, else the General MIDI drum of its name.
        var table = ClipSlot.midiInSlots(s.document.slots)
        XCTAssertEqual(table[36], 1)
        XCTAssertEqual(table[38], 2)
        XCTAssertEqual(table[72], 3)
        XCTAssertEqual(table.compactMap { $0 }.count, 3)
        XCTAssertEqual(try CommandParser.parse("midi map 38 3"), .midiMap(note: 38, slot: 3))
        _ = try s.run(line: "midi map 38 3")
        _ = try s.run(line: "midi map 38 1")
        table = ClipSlot.midiInSlots(s.document.slots)
        XCTAssertEqual(table[38], 1, "a note plays one slot: the last mapped")
        XCTAssertEqual(table[36], 1, "and the kick keeps its own drum")
        XCTAssertNil(s.document.slot(3).midiInNote)
        XCTAssertTrue(DocumentFile.encode(s.document).contains("\"midi_in\": 38"))
        XCTAssertEqual(try DocumentFile.decode(DocumentFile.encode(s.document)), s.document)
        _ = try s.run(line: "midi map 38 none")
        XCTAssertEqual(ClipSlot.midiInSlots(s.document.slots)[38], 2, "back to the snare")
        _ = try s.run(line: "undo")
        XCTAssertEqual(ClipSlot.midiInSlots(s.document.slots)[38], 1)
        XCTAssertThrowsError(try CommandParser.parse("midi map 128 1"))
        XCTAssertThrowsError(try CommandParser.parse("midi map 38 17"))
    }
}

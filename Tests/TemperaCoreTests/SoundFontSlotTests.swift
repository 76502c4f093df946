import XCTest
@testable import TemperaCore

/// `slot N sf2=PATH [program=P] [bank=B] note=MIDI`: parsed, printed, applied, saved.
final class SoundFontSlotTests: XCTestCase {
    func testTheSlotCommandTakesAFontAProgramABankAndANote() throws {
        let c = try CommandParser.parse("slot 4 sf2=default program=33 bank=0 note=40 mode=gate")
        XCTAssertEqual(c, .slot(4, .init(note: 40, mode: .gate, soundFont: "default", program: 33, bank: 0)))
        XCTAssertEqual(c?.text, "slot 4 sf2=default program=33 bank=0 note=40 mode=gate")
        XCTAssertEqual(try CommandParser.parse(c!.text), c)
        XCTAssertThrowsError(try CommandParser.parse("slot 4 sf2=x.sf2 program=128 note=1")) {
            XCTAssertEqual(($0 as? CommandError)?.message, "program must be a whole number from 0 to 127, not 128")
        }
    }

    func testASoundFontSlotIsNamedAfterItsPresetAndAFileReplacesIt() throws {
        let s = Session(document: Document.newDocument())
        try s.run(.slot(2, .init(note: 38, soundFont: "fonts/gm.sf2", bank: 128)))
        var slot = s.document.slot(2)
        XCTAssertEqual([slot.soundFont, slot.file], ["fonts/gm.sf2", nil])
        XCTAssertEqual(slot.bank, 128)
        XCTAssertEqual(slot.name, "snare")
        try s.run(.slot(2, .init(note: 69, program: 0, bank: 0)))
        XCTAssertEqual(s.document.slot(2).name, "p0 A4")
        try s.run(.slot(2, .init(file: "kit/rim.wav")))
        slot = s.document.slot(2)
        XCTAssertEqual([slot.soundFont, slot.file], [nil, "kit/rim.wav"])
        _ = try s.run(.undo(1))
        XCTAssertEqual(s.document.slot(2).soundFont, "fonts/gm.sf2")
    }

    func testASoundFontNeedsANoteAndAProgramNeedsAFont() {
        let s = Session(document: Document.newDocument())
        XCTAssertThrowsError(try s.run(.slot(5, .init(soundFont: "gm.sf2")))) {
            XCTAssertEqual(($0 as? CommandError)?.message,
                           "a SoundFont slot needs note=MIDI (for example: slot 5 sf2=gm.sf2 note=60)")
        }
        XCTAssertThrowsError(try s.run(.slot(5, .init(program: 3)))) {
            XCTAssertEqual(($0 as? CommandError)?.message, "program and bank choose a SoundFont's preset: give sf2=PATH too")
        }
        XCTAssertEqual(s.document.slot(5), Document.defaultKit[4])
    }

    func testASoundFontSlotIsSavedAndReadBackAndOlderFilesHaveNone() throws {
        var doc = Document.newDocument()
        doc.slots[6] = ClipSlot(name: "bass", note: 40, mode: .gate)
        doc.slots[6].soundFont = "/usr/share/sounds/sf2/TimGM6mb.sf2"
        doc.slots[6].program = 33
        doc.slots[6].bank = 8
        let text = DocumentFile.encode(doc)
        XCTAssertTrue(text.contains(#""note": 40, "sf2": "/usr/share/sounds/sf2/TimGM6mb.sf2", "program": 33, "bank": 8"#))
        XCTAssertEqual(try DocumentFile.decode(text).slots, doc.slots)
        XCTAssertFalse(DocumentFile.encode(Document.newDocument()).contains("sf2"))
        let noNote = text.replacingOccurrences(of: #""note": 40, "#, with: "")
        XCTAssertThrowsError(try DocumentFile.decode(noNote)) {
            XCTAssertTrue(($0 as? CommandError)?.message.contains("a SoundFont slot needs a \"note\"") == true, "\($0)")
        }
    }
}

import XCTest
@testable import TemperaCore

/// Velocity layers, pan and choke groups: the `slot` command's forms, the file, undo.
final class SlotLayerTests: XCTestCase {
    func parse(_ text: String) throws -> Command? { try CommandParser.parse(text) }

    func testLayerFormsReadAsTheirLayers() throws {
        XCTAssertEqual(try parse("slot 2 layer=0:0.5:soft.wav layer=0.5:1:0.8:-2:\"my kit/hard.wav\" pan=-0.25 choke=3"),
                       .slot(2, .init(layers: [ClipSlot.Layer(file: "soft.wav", min: 0, max: 0.5),
                                               ClipSlot.Layer(file: "my kit/hard.wav", min: 0.5, max: 1, gain: 0.8, pitch: -2)],
                                      pan: -0.25, choke: 3)))
        XCTAssertEqual(try parse("slot 1 layer=1/3:2/3:c:/x.wav"),
                       .slot(1, .init(layers: [ClipSlot.Layer(file: "c:/x.wav", min: 1.0 / 3, max: 2.0 / 3)])))
        XCTAssertEqual(try parse("slot 1 layers=none choke=none"), .slot(1, .init(layers: [], choke: 0)))
    }

    func testBadLayerFormsSayWhyAndWhere() {
        func error(_ text: String) -> CommandError? {
            do { _ = try parse(text); return nil } catch { return error as? CommandError }
        }
        XCTAssertEqual(error("slot 1 layer=0.5:0.2:a.wav"),
                       CommandError("a layer's amplitudes must be 0 <= MIN <= MAX <= 1, not 0.5-0.2", column: 14))
        XCTAssertEqual(error("slot 1 layer=a.wav")?.message,
                       "a layer is layer=MIN:MAX:PATH or layer=MIN:MAX:GAIN:PITCH:PATH, not 'a.wav'")
        XCTAssertEqual(error("slot 1 pan=2"), CommandError("pan must be from -1 to 1, not 2", column: 12))
        XCTAssertEqual(error("slot 1 choke=65")?.message, "choke must be a whole number from 0 to 64, not 65")
        XCTAssertEqual(error("slot 1 file=a.wav layer=0:1:b.wav")?.message, "a slot plays either file= or layer=, not both")
        XCTAssertEqual(error("slot 1 pan=0 pan=1")?.message, "'pan' is given twice")
        XCTAssertEqual(error("slot 1 layers=all")?.message,
                       "layers= takes only none (to drop every layer); give layers one by one with layer=")
    }

    func testEverySlotFormRoundTripsThroughItsText() throws {
        let commands: [Command] = [
            .slot(4, .init(layers: [ClipSlot.Layer(file: "a b.wav", min: 0, max: 0.25),
                                    ClipSlot.Layer(file: "x:y.wav", min: 0.25, max: 1),
                                    ClipSlot.Layer(file: "c.wav", min: 0.1, max: 0.9, gain: 1.5, pitch: 0.5)],
                           pan: 0.75, choke: 12)),
            .slot(1, .init(layers: [], choke: 0)),
            .slot(9, .init(file: "k.wav", pan: -1)),
        ]
        for c in commands { XCTAssertEqual(try parse(c.text), c, c.text) }
        XCTAssertEqual(Command.slot(1, .init(layers: [ClipSlot.Layer(file: "s.wav", min: 0, max: 0.5)], pan: -0.5,
                                             choke: 2)).text,
                       "slot 1 layer=0:0.5:s.wav pan=-0.5 choke=2")
    }

    func testTheSlotCommandSetsLayersPanAndChokeAsOneUndoableStep() throws {
        let s = Session(document: Document(tracks: []))
        let before = s.document.slot(5)
        _ = try s.run(line: "slot 5 layer=0:0.5:soft.wav layer=0.5:1:hard.wav pan=0.5 choke=2")
        XCTAssertEqual(s.document.slot(5).layers.map(\.file), ["soft.wav", "hard.wav"])
        XCTAssertEqual(s.document.slot(5).pan, 0.5)
        XCTAssertEqual(s.document.slot(5).choke, 2)
        XCTAssertEqual(s.document.slot(5).file, before.file, "layers leave the file reference as it was")
        _ = try s.run(line: "slot 5 file=one.wav")
        XCTAssertEqual(s.document.slot(5).layers, [], "a file replaces the layers")
        XCTAssertEqual(s.document.slot(5).choke, 2)
        _ = try s.run(line: "undo 2")
        XCTAssertEqual(s.document.slot(5), before)
    }

    func testLayersPanAndChokeRoundTripInTheFileAndOlderFilesStillLoad() throws {
        var doc = Document.newDocument()
        doc.slots[2] = ClipSlot(name: "snare", gain: 0.9, layers: [
            ClipSlot.Layer(file: "/kits/s1.wav", min: 0, max: 0.333),
            ClipSlot.Layer(file: "s2.flac", min: 0.333, max: 1, gain: 1.25, pitch: -0.5)], pan: -0.3, choke: 7)
        let text = DocumentFile.encode(doc)
        XCTAssertTrue(text.contains("\"pan\": -0.3, \"choke\": 7, \"layers\": [{\"file\": \"/kits/s1.wav\", \"min\": 0, "
            + "\"max\": 0.333, \"gain\": 1, \"pitch\": 0}, {\"file\": \"s2.flac\", \"min\": 0.333, \"max\": 1, "
            + "\"gain\": 1.25, \"pitch\": -0.5}]}"), text)
        XCTAssertEqual(try DocumentFile.decode(text), doc)
        // A slot without the new keys reads as centred, unchoked, without layers (and writes none of them).
        XCTAssertFalse(DocumentFile.encode(Document.newDocument()).contains("\"pan\""))
        let old = try DocumentFile.decode("{\"tempera\": 1, \"slots\": [{\"slot\": 1, \"file\": \"a.wav\"}]}")
        XCTAssertEqual(old.slot(1).pan, 0)
        XCTAssertEqual(old.slot(1).choke, 0)
        XCTAssertEqual(old.slot(1).layers, [])
        XCTAssertThrowsError(try DocumentFile.decode(
            "{\"tempera\": 1, \"slots\": [{\"slot\": 1, \"layers\": [{\"file\": \"a\", \"min\": 0.6, \"max\": 0.5}]}]}"))
    }
}

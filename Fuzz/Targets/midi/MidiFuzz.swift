import TemperaCore

/// The Standard MIDI File reader and importer: any bytes read and import or are refused with an error; whatever
/// imports saves and, reopened, saves the same bytes again; a file that reads writes
/// back as one that reads.
public func fuzzMidi(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let file = try? MidiFile.parse(bytes) else { return 0 }
    do {
        _ = try MidiFile.parse(file.bytes())
    } catch {
        fatalError("a MIDI file that reads writes one that does not: \(error)")
    }
    guard let (document, _) = try? MidiImport.document(from: file) else { return 0 }
    let saved = DocumentFile.encodeBytes(document)
    let reopened: Document
    do {
        reopened = try DocumentFile.decode(bytes: saved)
    } catch {
        fatalError("an imported MIDI file saves as a document that does not open: \(error)")
    }
    if DocumentFile.encodeBytes(reopened) != saved {
        fatalError("an imported MIDI file saves differently once reopened")
    }
    _ = Schedule(document: document, sampleRate: 48_000)
    return 0
}

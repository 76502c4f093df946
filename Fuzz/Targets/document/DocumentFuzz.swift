import TemperaCore

/// The document reader: any bytes either load or are refused with a `CommandError`, and whatever loads saves
/// and, reopened, saves the same bytes again.
public func fuzzDocument(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let document = try? DocumentFile.decode(bytes: bytes) else { return 0 }
    let saved = DocumentFile.encodeBytes(document)
    let reopened: Document
    do {
        reopened = try DocumentFile.decode(bytes: saved)
    } catch {
        fatalError("a loaded document saves as a file that does not open: \(error)")
    }
    if DocumentFile.encodeBytes(reopened) != saved {
        fatalError("a loaded document saves differently once reopened")
    }
    _ = Schedule(document: document, sampleRate: 48_000)
    return 0
}

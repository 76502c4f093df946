import TemperaCore

/// A small document, so that an input's time goes to its commands: two tracks of four markers over two seconds,
/// the default kit, the new document's settings.
let scriptStart: Document = {
    let tracks: [Track] = ["kick", "hat"].map { (name: String) -> Track in
        let markers: [Marker] = (0..<4).map { (i: Int) -> Marker in
            Marker(id: MarkerID(i), time: Double(i) * 0.5, amp: i == 0 ? 0.9 : 0.6, content: .clip(i + 1))
        }
        return Track(name: name, markers: MarkerList(markers))
    }
    var doc = Document(tracks: tracks)
    doc.transport.grid = 4
    return doc
}()

/// The command language on a session: each line of the input is parsed and run on the small document, as
/// `tempera script` runs a script, going on past refused lines to reach more states. A refused line must change
/// nothing; the result must save and, reopened, save the same bytes again.
public func fuzzScript(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let session = Session(document: scriptStart)
    for line in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
        let command: Command
        do {
            guard let parsed = try CommandParser.parse(String(String.UnicodeScalarView(line))) else { continue }
            command = parsed
        } catch is CommandError {
            continue
        } catch {
            fatalError("the parser threw something other than a CommandError: \(error)")
        }
        // Saving writes files; `tempera script` defers it to the end, so it is left out here.
        if command.as(Command.Save.self) != nil { continue }
        let before = session.document
        do {
            _ = try session.run(command)
        } catch is CommandError {
            if session.document != before { fatalError("a refused command changed the document: \(command)") }
        } catch {
            fatalError("a command threw something other than a CommandError: \(error)")
        }
    }
    // The starting document is known to save and open; reading a file back is most of an input's time.
    if session.document == scriptStart { return 0 }
    let saved = DocumentFile.encodeBytes(session.document)
    let reopened: Document
    do {
        reopened = try DocumentFile.decode(bytes: saved)
    } catch {
        fatalError("a script's document saves as a file that does not open: \(error)")
    }
    if DocumentFile.encodeBytes(reopened) != saved {
        fatalError("a script's document saves differently once reopened")
    }
    _ = Schedule(document: session.document, sampleRate: 48_000)
    return 0
}

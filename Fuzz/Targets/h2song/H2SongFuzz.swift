import Foundation
import TemperaCore
import TemperaKits

/// The Hydrogen song reader: any bytes, as a `.h2song` file beside which one small kit is installed, import or
/// are refused with an error; whatever imports saves and, reopened, saves the same bytes again.
let h2songFolder: String = {
    var template = Array((NSTemporaryDirectory() + "/tempera-fuzz-h2song-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("cannot make a temporary folder") }
    let path = String(cString: made)
    let kit = path + "/kits/fuzzkit"
    try! FileManager.default.createDirectory(atPath: kit, withIntermediateDirectories: true)
    try! """
        <?xml version="1.0" encoding="UTF-8"?>
        <drumkit_info><name>fuzzkit</name><instrumentList>
        <instrument><id>0</id><name>kick</name><layer><filename>kick.wav</filename></layer></instrument>
        <instrument><id>1</id><name>snare</name><instrumentComponent><layer><filename>snare.wav</filename>
        <min>0</min><max>1</max></layer></instrumentComponent></instrument>
        </instrumentList></drumkit_info>
        """.write(toFile: kit + "/drumkit.xml", atomically: false, encoding: .utf8)
    atexit { try? FileManager.default.removeItem(atPath: h2songFolder) }
    return path
}()
nonisolated(unsafe) let h2songKits = HydrogenKits(roots: [h2songFolder + "/kits"])

public func fuzzH2Song(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let path = h2songFolder + "/song.h2song"
    guard let file = fopen(path, "wb") else { fatalError("cannot write \(path)") }
    if size > 0 { fwrite(data, 1, size, file) }
    fclose(file)
    guard let (document, _) = try? HydrogenSong.document(path: path, kits: h2songKits) else { return 0 }
    let saved = DocumentFile.encodeBytes(document)
    let reopened: Document
    do {
        reopened = try DocumentFile.decode(bytes: saved)
    } catch {
        fatalError("an imported song saves as a file that does not open: \(error)")
    }
    if DocumentFile.encodeBytes(reopened) != saved {
        fatalError("an imported song saves differently once reopened")
    }
    _ = Schedule(document: document, sampleRate: 48_000)
    return 0
}

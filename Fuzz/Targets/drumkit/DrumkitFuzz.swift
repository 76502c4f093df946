import Foundation
import TemperaCore
import TemperaKits

/// The Hydrogen drumkit reader: any bytes, as a kit folder's `drumkit.xml`, read as a kit (and its slots) or
/// are refused with an error.
let drumkitFolder: String = {
    var template = Array((NSTemporaryDirectory() + "/tempera-fuzz-drumkit-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("cannot make a temporary folder") }
    let path = String(cString: made)
    atexit { try? FileManager.default.removeItem(atPath: drumkitFolder) }
    return path
}()

public func fuzzDrumkit(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let path = drumkitFolder + "/drumkit.xml"
    guard let file = fopen(path, "wb") else { fatalError("cannot write \(path)") }
    if size > 0 { fwrite(data, 1, size, file) }
    fclose(file)
    guard let kit = try? HydrogenKit.read(folder: drumkitFolder) else { return 0 }
    _ = kit.kit
    return 0
}

import TemperaTerminal

/// The key-map reader: any text is read into a key map or refused with a `ConfigError`.
public func fuzzKeyMap(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        _ = try KeyMap().merging(text, file: "keys")
    } catch is ConfigError {
    } catch {
        fatalError("the key-map reader threw something other than a ConfigError: \(error)")
    }
    return 0
}

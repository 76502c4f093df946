import TemperaTerminal

/// The theme reader: any text is read (with `base = NAME` resolving the shipped themes) or refused with a
/// `ConfigError`.
public func fuzzTheme(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        _ = try Theme.parse(text, name: "fuzz", file: "fuzz.theme")
    } catch is ConfigError {
    } catch {
        fatalError("the theme reader threw something other than a ConfigError: \(error)")
    }
    return 0
}

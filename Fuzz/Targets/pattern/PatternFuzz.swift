import TemperaCore

/// The pattern-code parser: any text parses or is refused with a `CommandError`.
public func fuzzPattern(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        _ = try PatternParser.parse(text)
    } catch is CommandError {
    } catch {
        fatalError("the pattern parser threw something other than a CommandError: \(error)")
    }
    return 0
}

extension DocumentFile.Decoder {
    /// A meter: a whole number of beats a bar (N/4, as every file before meters had a unit), or the command's
    /// spelling as a string (`"7/8 groups=2+2+3"`).
    static func meter(_ v: JSONValue) throws -> Meter {
        if case .string(let text) = v.kind {
            let parts = text.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count <= 2, parts.count == 1 || parts[1].hasPrefix("groups=") else {
                throw v.error("meter '\(Limits.echo(text))' is not N/D [groups=A+B+...]")
            }
            do {
                return try Meter.parse(String(parts[0]), groups: parts.count == 2 ? String(parts[1].dropFirst(7)) : nil)
            } catch let e as CommandError {
                throw v.error(e.message)
            }
        }
        return Meter(try int(v, "meter", Transport.meterRange))
    }
}

/// Reading a time signature on a command line: `N` or `N/D`, then `groups=A+B+...` (the `meter` and
/// `section N meter` commands).
extension LineParser {
    /// `N[/D] [groups=A+B+...]` to the end of the line; an error names the word at fault.
    mutating func meter(usage: String) throws -> Meter {
        let word = try next("N/D", usage: usage)
        if word.key != nil { throw fail("the meter comes before its groups (\(usage))", at: word) }
        var meter: Meter
        do {
            meter = try Meter.parse(word.text)
        } catch let e as CommandError {
            throw fail(e.message, at: word)
        }
        let opts = try options(["groups"], usage: usage)
        if let g = opts["groups"] {
            do {
                try meter.setGroups(text: g.text)
            } catch let e as CommandError {
                throw fail(e.message, at: g)
            }
        }
        return meter
    }
}

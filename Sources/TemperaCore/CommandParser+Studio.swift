extension LineParser {
    /// `midi=CH[:NOTE]` of a slot: the channel (1...16) and the note (0...127, nil: the slot's own); `midi=none`
    /// gives channel 0 (MIDI out off).
    func midiOut(_ w: Word) throws -> (Int, Int?) {
        if w.text == "none" && !w.quoted { return (0, nil) }
        let parts = w.text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let ch = Int(parts[0]), (1...16).contains(ch) else {
            throw fail("midi= is a channel 1-16, optionally :NOTE (0-127), or none; not '\(Limits.echo(w.text))'", at: w)
        }
        guard parts.count == 2 else { return (ch, nil) }
        guard let note = Int(parts[1]), (0...127).contains(note) else {
            throw fail("midi=CH:NOTE takes a note 0-127, not '\(Limits.echo(String(parts[1])))'", at: w)
        }
        return (ch, note)
    }
}


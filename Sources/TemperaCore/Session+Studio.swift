extension Session {
    /// `midi map NOTE SLOT`: the note plays the slot from MIDI in (no other slot keeps it); `none` gives the note
    /// back to the default (a slot's note, else the General MIDI drum of its name). One undo step.
    func runMidiMap(note: Int, slot: Int?) throws -> String? {
        guard (0...127).contains(note) else { throw CommandError("MIDI note must be 0-127") }
        if let slot, !ClipSlot.range.contains(slot) { throw CommandError("no slot \(slot) (slots are 1-16)") }
        var changed: [(Int, ClipSlot)] = []
        for n in ClipSlot.range {
            var s = document.slot(n)
            let wanted = n == slot ? note : (s.midiInNote == note ? nil : s.midiInNote)
            if s.midiInNote != wanted {
                s.midiInNote = wanted
                changed.append((n, s))
            }
        }
        guard !changed.isEmpty else { return nil }
        try perform("midi map \(note)") { edit in
            for (n, s) in changed { edit.setSlot(n, s) }
        }
        return nil
    }
}

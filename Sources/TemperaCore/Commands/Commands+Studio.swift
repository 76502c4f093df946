/// The studio: MIDI in's map of notes to slots. MIDI out is a slot setting (`slot N midi=CH[:NOTE]`).
extension Command {
    /// `midi map NOTE SLOT|none`: MIDI in's note NOTE plays slot SLOT; `none` gives the note back to the default.
    public struct MidiMap: CommandBody {
        public var note: Int
        /// 1...16; nil: the default (a slot's note, else the General MIDI drum of its name).
        public var slot: Int?
        public static let spec = CommandSpec(
            "midi map", usage: "midi map NOTE SLOT|none",
            help: "MIDI in's note NOTE (0-127) plays slot SLOT (default: a slot's note, else its General MIDI drum)")
        public static let examples = [MidiMap(note: 38, slot: 2), MidiMap(note: 36, slot: nil)]
        public static func parse(_ p: inout LineParser) throws -> MidiMap {
            let usage = spec.usage
            let note = try p.integer(try p.next("NOTE", usage: usage), "note", 0...127)
            let target = try p.next("SLOT", usage: usage)
            let slot: Int? = target.text == "none" && !target.quoted ? nil : try p.integer(target, "slot", ClipSlot.range)
            try p.end(usage: usage)
            return MidiMap(note: note, slot: slot)
        }
        public var text: String { "midi map \(note) " + (slot.map(String.init) ?? "none") }
        public func run(in session: Session) throws -> String? { try session.runMidiMap(note: note, slot: slot) }
    }

    /// `midi map NOTE SLOT|none`, for code and tests.
    public static func midiMap(note: Int, slot: Int?) -> Command { Command(MidiMap(note: note, slot: slot)) }
}

/// Sounds: the clip slots and the drumkits that fill them.
extension Command {
    /// `slot N file=... note=... gain=... mode=... attack=... release=...`: only the given settings change.
    public struct Slot: CommandBody {
        public var slot: Int
        public var settings: SlotSettings
        public static let spec = CommandSpec(
            "slot",
            usage: "slot N file=PATH|note=MIDI|none|sf2=PATH|default|layer=MIN:MAX[:GAIN:PITCH]:PATH... [program=P] [bank=B] "
                + "[gain=G] [pan=P] [choke=G|none] [mode=oneshot|gate] [attack=MS] [decay=MS] [release=MS] [name=NAME] [layers=none] [midi=CH[:NOTE]|none]",
            help: "set slot N's sound (1..16): a file, a pitched note, a SoundFont preset or velocity layers, how it plays, its MIDI out")
        public static let examples = [
            Slot(slot: 1, settings: SlotSettings(file: "kick.wav", gain: 0.8, mode: .gate, attack: 2, release: 40)),
            Slot(slot: 3, settings: SlotSettings(note: 64, decay: 120, name: "bell", pan: -0.5, choke: 2)),
            Slot(slot: 4, settings: SlotSettings(soundFont: "default", program: 0, bank: 128)),
            Slot(slot: 2, settings: SlotSettings(clearNote: true, layers: [], choke: 0)),
            Slot(slot: 6, settings: SlotSettings(midiChannel: 10, midiNote: 36)),
            Slot(slot: 7, settings: SlotSettings(midiChannel: 0)),
            Slot(slot: 5, settings: SlotSettings(layers: [ClipSlot.Layer(file: "soft.wav", min: 0, max: 0.5, gain: 1, pitch: 0),
                                                           ClipSlot.Layer(file: "a:b.wav", min: 0.5, max: 1, gain: 2, pitch: -3)])),
        ]
        public static func parse(_ p: inout LineParser) throws -> Slot { try p.parseSlot() }
        public var text: String {
            let s = settings
            func n(_ v: Double) -> String { Command.number(v) }
            func q(_ s: String) -> String { Command.quote(s) }
            var out = "slot \(slot)"
            if let file = s.file { out += " file=\(q(file))" }
            if let font = s.soundFont { out += " sf2=\(q(font))" }
            if let program = s.program { out += " program=\(program)" }
            if let bank = s.bank { out += " bank=\(bank)" }
            if s.clearNote { out += " note=none" } else if let note = s.note { out += " note=\(note)" }
            if let gain = s.gain { out += " gain=\(n(gain))" }
            if let mode = s.mode { out += " mode=\(mode.rawValue)" }
            if let attack = s.attack { out += " attack=\(n(attack))" }
            if let decay = s.decay { out += " decay=\(n(decay))" }
            if let release = s.release { out += " release=\(n(release))" }
            if let name = s.name { out += " name=\(q(name))" }
            if let layers = s.layers {
                if layers.isEmpty { out += " layers=none" }
                for l in layers {
                    let long = l.gain != 1 || l.pitch != 0 || l.file.contains(":")
                    out += " layer=" + q("\(n(l.min)):\(n(l.max)):" + (long ? "\(n(l.gain)):\(n(l.pitch)):" : "") + l.file)
                }
            }
            if let pan = s.pan { out += " pan=\(n(pan))" }
            if let choke = s.choke { out += choke == 0 ? " choke=none" : " choke=\(choke)" }
            if let ch = s.midiChannel { out += ch == 0 ? " midi=none" : " midi=\(ch)" + (s.midiNote.map { ":\($0)" } ?? "") }
            return out
        }
        public func run(in session: Session) throws -> String? { try session.runSlot(slot, settings) }
    }

    /// `kit list`: the kits installed, named in one line.
    struct KitList: CommandBody {
        static let spec = CommandSpec("kit list", usage: "kit list", help: "name the Hydrogen drumkits installed")
        static let examples = [KitList()]
        static func parse(_ p: inout LineParser) throws -> KitList {
            try p.end(usage: "kit list | kit load NAME|PATH [from=N]")
            return KitList()
        }
        var text: String { "kit list" }
        func run(in session: Session) throws -> String? { try session.runKitList() }
    }

    /// `kit load NAME|PATH [from=N]`: the kit's instruments onto slots N, N+1, ... (at most up to 16).
    public struct KitLoad: CommandBody {
        public var name: String
        public var from: Int
        public static let spec = CommandSpec("kit load", usage: "kit load NAME|PATH [from=N]",
                                      help: "a Hydrogen drumkit's instruments onto slots N, N+1, ... (from slot 1)")
        public static let examples = [KitLoad(name: "GMRockKit", from: 1), KitLoad(name: "my kits/jazz", from: 9)]
        public static func parse(_ p: inout LineParser) throws -> KitLoad {
            let usage = "kit list | kit load NAME|PATH [from=N]"
            let name = try p.next("NAME or PATH", usage: usage)
            if name.equals != nil && !name.quoted { throw p.fail("missing NAME or PATH before '\(name.text)' (\(usage))", at: name) }
            let opts = try p.options(["from"], usage: usage)
            let from = try opts["from"].map { try p.integer($0, "from", ClipSlot.range) } ?? 1
            return KitLoad(name: name.text, from: from)
        }
        public var text: String { "kit load \(Command.quote(name))" + (from == 1 ? "" : " from=\(from)") }
        public func run(in session: Session) throws -> String? { try session.runKitLoad(name, from: from) }
    }

    public static func slot(_ slot: Int, _ settings: SlotSettings) -> Command { Command(Slot(slot: slot, settings: settings)) }
    public static var kitList: Command { Command(KitList()) }
    public static func kitLoad(_ name: String, from: Int) -> Command { Command(KitLoad(name: name, from: from)) }

    /// The settings a `slot` command may carry; nil leaves a setting as it is.
    public struct SlotSettings: Hashable, Sendable {
        public var file: String?
        public var note: Int?
        public var gain: Double?
        public var mode: ClipSlot.Mode?
        public var attack: Double?
        public var decay: Double?
        public var release: Double?
        public var name: String?
        /// The slot's velocity layers, replacing all it had (`[]`: none, the slot plays its file again).
        public var layers: [ClipSlot.Layer]?
        public var pan: Double?
        /// A choke group, 0 for none.
        public var choke: Int?
        /// `note=none`: the slot plays its sample as recorded again (wins over `note`).
        public var clearNote = false
        /// `sf2=PATH`: play `note` through a SoundFont; `program=` and `bank=` choose its preset.
        public var soundFont: String?
        public var program: Int?
        public var bank: Int?
        /// `midi=CH[:NOTE]`: MIDI out on channel CH (1...16), 0 for `midi=none`; the note it sends (nil: the slot's).
        public var midiChannel: Int?
        public var midiNote: Int?

        public init(file: String? = nil, note: Int? = nil, gain: Double? = nil, mode: ClipSlot.Mode? = nil,
                    attack: Double? = nil, decay: Double? = nil, release: Double? = nil, name: String? = nil,
                    soundFont: String? = nil, program: Int? = nil, bank: Int? = nil, clearNote: Bool = false,
                    layers: [ClipSlot.Layer]? = nil, pan: Double? = nil, choke: Int? = nil, midiChannel: Int? = nil,
                    midiNote: Int? = nil) {
            self.midiChannel = midiChannel
            self.midiNote = midiNote
            self.clearNote = clearNote
            self.layers = layers
            self.pan = pan
            self.choke = choke
            self.soundFont = soundFont
            self.program = program
            self.bank = bank
            self.file = file
            self.note = note
            self.gain = gain
            self.mode = mode
            self.attack = attack
            self.decay = decay
            self.release = release
            self.name = name
        }
    }
}

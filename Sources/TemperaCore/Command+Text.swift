extension Command {
    /// The command's textual form, as the `:` line and scripts take it: `CommandParser.parse(c.text) == c` for
    /// every command (numbers are written shortest-round-trip, so times come back exactly). Key bindings use it
    /// to show what a key does, and the editor to record what was run.
    public var text: String {
        func n(_ v: Double) -> String { DocumentFile.number(v) }
        func q(_ s: String) -> String { Command.quote(s) }
        switch self {
        case .trackAdd(let name): return name.map { "track add \(q($0))" } ?? "track add"
        case .trackSelect(let n): return "track \(n)"
        case .trackMute(let t, let on): return Command.trackPrefix(t) + "mute" + Command.onOff(on)
        case .trackSolo(let t, let on): return Command.trackPrefix(t) + "solo" + Command.onOff(on)
        case .trackGain(let t, let gain): return Command.trackPrefix(t) + "gain \(n(gain))"
        case .trackName(let t, let name): return Command.trackPrefix(t) + "name \(q(name))"
        case .length(let t): return "length \(n(t))"
        case .loopRange(let a, let b): return "loop \(n(a)) \(n(b))"
        case .loop(let on): return on ? "loop on" : "loop off"
        case .tempo(let x): return "tempo \(n(x))"
        case .volume(let v): return "volume \(n(v))"
        case .slot(let number, let s):
            var out = "slot \(number)"
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
        case .kitList: return "kit list"
        case .kitLoad(let name, let from): return "kit load \(q(name))" + (from == 1 ? "" : " from=\(from)")
        case .cursor(let t): return "cursor \(n(t))"
        case .markerAdd(let t, let amp, let content):
            return "marker add \(n(t))" + (amp.map { " amp=\(n($0))" } ?? "") + (content.map { " clip=\($0.code)" } ?? "")
        case .pulse(let period, let count, let start, let amp):
            return "pulse period=\(n(period)) count=\(count)" + (start.map { " start=\(n($0))" } ?? "")
                + (amp.map { " amp=\(n($0))" } ?? "")
        case .clipMode(let on): return on ? "mode clip on" : "mode clip off"
        case .snap(let on): return on ? "snap on" : "snap off"
        case .chooseClip(let c): return "clip \(c.code)"
        case .draw(let amp): return "draw" + (amp.map { " amp=\(n($0))" } ?? "")
        case .drawGroup(let g): return "draw group \(g)"
        case .type(let code): return "type \(q(code.source))"
        case .fill(let code): return "fill \(q(code.source))"
        case .spread(let code): return "spread \(q(code.source))"
        case .select(let s):
            var out = "select "
            switch s.kind {
            case .none: out += "none"
            case .all: out += "all"
            case .left: out += "left"
            case .right: out += "right"
            case .at(let t): out += "at \(n(t))"
            case .range(let a, let b): out += "range \(n(a)) \(n(b))"
            case .pattern(let code): out += "pattern \(q(code.source))"
            }
            if s.allTracks { out += " tracks=all" }
            if s.add { out += " add" }
            return out
        case .shift(let by): return "shift \(n(by))"
        case .scale(let factor, let handle): return "scale \(n(factor))" + (handle == .first ? " handle=first" : "")
        case .scaleHandle(let k, let to): return "scale handle=\(k) to=\(n(to))"
        case .subdivide(let k): return "subdivide \(k)"
        case .rotate: return "rotate"
        case .reverse: return "reverse"
        case .delete: return "delete"
        case .groupStore(let g): return "group store \(g)"
        case .groupStamp(let g, let times): return "group stamp \(g)" + (times == 1 ? "" : " times=\(times)")
        case .undo(let k): return k == 1 ? "undo" : "undo \(k)"
        case .redo(let k): return k == 1 ? "redo" : "redo \(k)"
        case .save(let path): return path.map { "save \(q($0))" } ?? "save"
        case .temper(let t): return "temper " + t.text
        case .groove(let g): return g.text
        case .pattern(let code): return "pattern " + q(code)
        case .recordArm(let on): return "record" + Command.onOff(on)
        case .recordTake(let hits): return "record take " + hits.map(\.text).joined(separator: " ")
        case .sectionAdd(let name, let start, let end, let repeats, let tempo):
            var out = "section add"
            if let name { out += " " + Command.quoteName(name) }
            if let start, let end { out += " \(n(start)) \(n(end))" }
            if let repeats { out += " x\(repeats)" }
            if let tempo { out += " tempo=\(n(tempo))" }
            return out
        case .section(let k, let change):
            switch change {
            case .repeats(let r): return "section \(k) repeats \(r)"
            case .tempo(let x): return "section \(k) tempo \(n(x))"
            case .region(let a, let b): return "section \(k) region \(n(a)) \(n(b))"
            case .name(let name): return "section \(k) name \(q(name))"
            case .move(let m): return "section \(k) move \(m)"
            case .delete: return "section \(k) delete"
            case .duplicate: return "section \(k) duplicate"
            }
        case .song(let on): return on ? "song on" : "song off"
        case .songLoop(let on): return on ? "song loop on" : "song loop off"
        case .beat(let t): return "beat \(n(t))"
        case .meter(let m): return "meter \(m)"
        case .bpm(let x): return "bpm \(n(x))"
        case .grid(let steps): return steps.map { "grid \($0)" } ?? "grid off"
        case .click(let on, let level):
            var out = "click"
            if let on { out += on ? " on" : " off" }
            if let level { out += " level=\(n(level))" }
            return out
        case .countIn(let bars): return "countin \(bars)"
        case .amp(let a, let relative):
            guard relative else { return "amp \(n(a))" }
            return a < 0 || (a == 0 && a.sign == .minus) ? "amp \(n(a))" : "amp +\(n(a))"
        case .copy: return "copy"
        case .cut: return "cut"
        case .paste: return "paste"
        case .duplicate: return "duplicate"
        case .trackDelete(let t): return Command.trackPrefix(t) + "delete"
        case .trackMove(let t, let to): return Command.trackPrefix(t) + "move \(to)"
        case .trackDuplicate(let t): return Command.trackPrefix(t) + "duplicate"
        case .quantize(let steps, let strength):
            return "quantize \(steps)" + (strength == 1 ? "" : " strength=\(n(strength))")
        }
    }

    /// `track ` or `track N ` before a track setting.
    static func trackPrefix(_ track: Int?) -> String { track.map { "track \($0) " } ?? "track " }

    /// ` on`, ` off`, or nothing for a toggle.
    static func onOff(_ on: Bool?) -> String { on.map { $0 ? " on" : " off" } ?? "" }

    /// A section's name as `section add` reads it back: quoted when it could be read as a region bound or a
    /// repeat count (`"2"`, `"x3"`).
    static func quoteName(_ s: String) -> String {
        let plain = quote(s)
        guard plain == s else { return plain }
        if (try? Expression.evaluate(s)) != nil || LineParser.repeatCount(s) != nil { return "\"" + s + "\"" }
        return s
    }

    /// A word as the lexer reads it back: bare when it can be, else in quotes with `\"` and `\\` escaped.
    static func quote(_ s: String) -> String {
        let plain = !s.isEmpty && s.unicodeScalars.allSatisfy { c in
            c.value > 0x20 && c != "\"" && c != "\\" && c != "#" && c != "=" && c != "(" && c != ")"
        }
        if plain { return s }
        var out = "\""
        for c in s.unicodeScalars {
            if c == "\"" || c == "\\" { out += "\\" }
            out.unicodeScalars.append(c)
        }
        return out + "\""
    }
}

extension TemperCommand {
    /// The designer command's textual form, without the leading `temper`.
    public var text: String {
        func n(_ v: Double) -> String { DocumentFile.number(v) }
        func beats(_ b: BeatChoice) -> String {
            switch b {
            case .all: return "all"
            case .list(let list): return list.map(String.init).joined(separator: ",")
            case .euclid(let k, let r): return r == 0 ? "euclid(\(k))" : "euclid(\(k),\(r))"
            }
        }
        switch self {
        case .define(let span, let top, let topBeats, let bottom, let bottomBeats, let map, let slider):
            var out = "span=\(n(span)) top=\(top):\(beats(topBeats)) bottom=\(bottom):\(beats(bottomBeats))"
            if let map { out += " map=" + (map.isEmpty ? "none" : map.map { "\($0.top)-\($0.bottom)" }.joined(separator: ",")) }
            if let slider { out += " s=\(n(slider))" }
            return out
        case .slider(let s): return "slider \(n(s))"
        case .stamp(let times): return times == 1 ? "stamp" : "stamp times=\(times)"
        case .group(let g): return "group \(g)"
        case .apply: return "apply"
        case .morph(let times, let from, let to): return "morph times=\(times) from=\(n(from)) to=\(n(to))"
        case .preset(let name): return "preset \(name)"
        case .amp(let row, let beat, let amp): return "amp \(row.rawValue) \(beat) \(DocumentFile.number(amp))"
        case .fit(let most, let span): return "fit" + (most == 16 ? "" : " max=\(most)") + (span.map { " span=\(n($0))" } ?? "")
        }
    }
}

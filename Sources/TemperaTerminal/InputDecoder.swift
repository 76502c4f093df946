@preconcurrency import CNcursesw

/// Turns what curses reads (characters, key codes, mouse reports) into tempera's `Key` and `MouseEvent`.
/// Kept apart from the screen so the mapping is tested without a terminal.
struct InputDecoder {
    /// The button held since its press, so motion reports can be told apart as drags.
    private(set) var held: Int = 0

    /// A character as read by `get_wch` (not a key code).
    func character(_ wch: wint_t) -> Key? {
        switch wch {
        case 0: return Key(base: "space", ctrl: true)
        case 9: return .tab
        case 10, 13: return .enter
        case 8, 127: return .backspace
        case 27: return .esc
        case 1...26: return Key(base: String(UnicodeScalar(UInt8(wch) + 96)), ctrl: true)
        case 28...31: return nil
        default:
            guard let scalar = UnicodeScalar(UInt32(wch)) else { return nil }
            return Key(Character(scalar))
        }
    }

    /// A key code (`KEY_*`); `name` is curses' `keyname`, which names the modified keys xterm reports
    /// (`kLFT5` is control-left).
    func key(code: Int32, name: String?) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_NPAGE: return Key(base: "pgdn")
        case KEY_PPAGE: return Key(base: "pgup")
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case KEY_IC: return Key(base: "insert")
        case KEY_ENTER: return .enter
        case KEY_BTAB: return Key(base: "tab", shift: true)
        case KEY_SLEFT: return Key(base: "left", shift: true)
        case KEY_SRIGHT: return Key(base: "right", shift: true)
        case KEY_SR: return Key(base: "up", shift: true)
        case KEY_SF: return Key(base: "down", shift: true)
        case KEY_SHOME: return Key(base: "home", shift: true)
        case KEY_SEND: return Key(base: "end", shift: true)
        case KEY_SDC: return Key(base: "delete", shift: true)
        case KEY_SIC: return Key(base: "insert", shift: true)
        case KEY_SNEXT: return Key(base: "pgdn", shift: true)
        case KEY_SPREVIOUS: return Key(base: "pgup", shift: true)
        default: break
        }
        let f0 = CNcursesw_KEY_F(0)
        if code > f0, code <= f0 + 48 {
            // xterm numbers shifted function keys on: F13 is S-F1, F25 C-F1, F37 C-S-F1.
            let n = Int(code - f0) - 1
            let base = "F\(n % 12 + 1)"
            switch n / 12 {
            case 0: return Key(base: base)
            case 1: return Key(base: base, shift: true)
            case 2: return Key(base: base, ctrl: true)
            default: return Key(base: base, ctrl: true, shift: true)
            }
        }
        if let name { return InputDecoder.extended(name) }
        return nil
    }

    /// Modified keys curses names by terminfo capability: `kLFT5`, `kUP3`, `kDC6`...
    static func extended(_ name: String) -> Key? {
        let bases: [(String, String)] = [("kLFT", "left"), ("kRIT", "right"), ("kUP", "up"), ("kDN", "down"),
                                         ("kHOM", "home"), ("kEND", "end"), ("kDC", "delete"), ("kIC", "insert"),
                                         ("kPRV", "pgup"), ("kNXT", "pgdn")]
        for (prefix, base) in bases where name.hasPrefix(prefix) {
            guard let m = Int(name.dropFirst(prefix.count)), (2...8).contains(m) else { return nil }
            // xterm's modifier code minus one is a bit set: 1 shift, 2 alt, 4 control.
            let bits = m - 1
            return Key(base: base, ctrl: bits & 4 != 0, meta: bits & 2 != 0, shift: bits & 1 != 0)
        }
        return nil
    }

    /// An SGR (1006) mouse report, `ESC [ < code ; x ; y M` (press, motion) or `m` (release), given the part
    /// between `<` and the final letter. Coordinates are 1-based in the report, 0-based in the event.
    mutating func sgr(_ parameters: String, release: Bool) -> MouseEvent? {
        let numbers = parameters.split(separator: ";").map { Int($0) }
        guard numbers.count == 3, let code = numbers[0], let x = numbers[1], let y = numbers[2] else { return nil }
        return report(code: code, x: x - 1, y: y - 1, release: release)
    }

    /// An X10 (normal) mouse report, `ESC [ M` and three bytes each offset by 32: code, x and y (1-based).
    mutating func x10(_ b: Int, _ x: Int, _ y: Int) -> MouseEvent? {
        let code = b - 32
        // Button 3 is X10's release, which does not say which button went up.
        let release = code & 3 == 3 && code & (64 | 32) == 0
        return report(code: code, x: x - 33, y: y - 33, release: release)
    }

    /// A report's code: the low two bits the button (0 left, 1 middle, 2 right), 4 shift, 8 alt, 16 control,
    /// 32 motion, 64 the wheel.
    private mutating func report(code: Int, x: Int, y: Int, release: Bool) -> MouseEvent? {
        let shift = code & 4 != 0, alt = code & 8 != 0, ctrl = code & 16 != 0
        func event(_ kind: MouseEvent.Kind, _ button: Int) -> MouseEvent {
            MouseEvent(kind, x: max(0, x), y: max(0, y), button: button, shift: shift, ctrl: ctrl, alt: alt)
        }
        if code & 64 != 0 {
            if code & 32 != 0 { return nil }
            return code & 1 == 0 ? event(.wheelUp, 4) : event(.wheelDown, 5)
        }
        let button = code & 3 == 3 ? held : (code & 3) + 1
        if release {
            held = 0
            return event(.release, button)
        }
        if code & 32 != 0 { return held != 0 ? event(.drag, held) : nil }
        held = button
        return event(.press, button)
    }

    /// A curses mouse report.
    mutating func mouse(_ ev: MEVENT) -> MouseEvent? {
        mouse(state: ev.bstate, x: Int(ev.x), y: Int(ev.y))
    }

    mutating func mouse(state: mmask_t, x: Int, y: Int) -> MouseEvent? {
        let shift = state & CNcursesw_BUTTON_SHIFT() != 0
        let ctrl = state & CNcursesw_BUTTON_CTRL() != 0
        let alt = state & CNcursesw_BUTTON_ALT() != 0
        func event(_ kind: MouseEvent.Kind, _ button: Int) -> MouseEvent {
            MouseEvent(kind, x: x, y: y, button: button, shift: shift, ctrl: ctrl, alt: alt)
        }
        if state & CNcursesw_BUTTON4_PRESSED() != 0 { return event(.wheelUp, 4) }
        if state & CNcursesw_BUTTON5_PRESSED() != 0 { return event(.wheelDown, 5) }
        let presses = [(CNcursesw_BUTTON1_PRESSED(), 1), (CNcursesw_BUTTON2_PRESSED(), 2), (CNcursesw_BUTTON3_PRESSED(), 3)]
        for (mask, button) in presses where state & mask != 0 {
            held = button
            return event(.press, button)
        }
        let releases = [(CNcursesw_BUTTON1_RELEASED(), 1), (CNcursesw_BUTTON2_RELEASED(), 2), (CNcursesw_BUTTON3_RELEASED(), 3)]
        for (mask, button) in releases where state & mask != 0 {
            held = 0
            return event(.release, button)
        }
        if state & CNcursesw_BUTTON1_CLICKED() != 0 {
            // A press and release merged into one report: hand over the press; the release is implied.
            held = 0
            return event(.press, 1)
        }
        if state & CNcursesw_REPORT_MOUSE_POSITION() != 0 {
            return held != 0 ? event(.drag, held) : nil
        }
        return nil
    }
}

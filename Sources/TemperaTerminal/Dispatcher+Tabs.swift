import Foundation
import TemperaCore

/// The keys of the tab area: moving between slots of the Clips and Groups tabs and changing the chosen
/// clip slot's settings (the rhythm designer's keys go to `DesignerTab.handle`).
extension Dispatcher {
    func slot(_ verb: Verb.SlotVerb) throws {
        switch verb {
        case .left: moveSlot(-1)
        case .right: moveSlot(1)
        case .up: moveSlot(-8)
        case .down: moveSlot(8)
        case .choose:
            if view.tab == .groups { try command(.drawGroup(view.chosenGroup)) }
            else if view.tab == .clips { openFilePicker() }
        default:
            try changeSlot(verb)
        }
    }

    private func moveSlot(_ delta: Int) {
        if view.tab == .groups {
            view.chosenGroup = (view.chosenGroup - 1 + delta + 16 * 4) % 16 + 1
            return
        }
        var n = 1
        if case .clip(let c) = session.chosenClip { n = c }
        session.chosenClip = .clip((n - 1 + delta + 16 * 4) % 16 + 1)
        say("clip \(session.chosenClip.code) chosen" + clipName(session.chosenClip))
    }

    /// The Clips tab's keys: settings of the chosen slot, each one `slot N ...` command and one undo step.
    private func changeSlot(_ verb: Verb.SlotVerb) throws {
        let s = session
        guard case .clip(let n) = s.chosenClip, ClipSlot.range.contains(n) else {
            return say("choose a clip slot first (1-16)", error: true)
        }
        let slot = s.document.slot(n)
        var settings = Command.SlotSettings()
        let message: String
        switch verb {
        case .mode:
            let mode: ClipSlot.Mode = slot.mode == .gate ? .oneShot : .gate
            settings.mode = mode
            message = mode == .gate ? "gate: sounds until the next marker" : "one-shot: plays to its end"
        case .gainUp, .gainDown:
            // 0...16 is the range the `slot` command takes.
            let gain = Dispatcher.stepDecibels(slot.gain, by: verb == .gainUp ? 1 : -1, within: 0...16)
            settings.gain = gain
            message = "gain \(Format.fixed(gain, 3)) (\(Dispatcher.decibels(gain)))"
        case .noteUp, .noteDown, .octaveUp, .octaveDown:
            let step = (verb == .noteUp || verb == .octaveUp ? 1 : -1) * (verb == .octaveUp || verb == .octaveDown ? 12 : 1)
            let note = min(max((slot.note ?? 60) + step, 0), 127)
            settings.note = note
            message = "note \(note)" + (slot.file == nil ? "" : " (60 plays the sample as recorded)")
        case .noteClear:
            guard slot.note != nil else { return say("slot \(n) has no note") }
            try command(.slot(n, Command.SlotSettings(clearNote: true)))
            let cleared = s.document.slot(n)
            let label = cleared.name.isEmpty ? "" : " " + cleared.name
            return say("slot \(n)\(label): no note" + (cleared.isEmpty ? " (the slot is empty now)" : ", the sample as recorded"))
        case .attackUp, .attackDown:
            let ms = Dispatcher.stepEnvelope(slot.attack, up: verb == .attackUp)
            settings.attack = ms
            message = "attack \(Dispatcher.format(ms)) ms"
        case .releaseUp, .releaseDown:
            let ms = Dispatcher.stepEnvelope(slot.release, up: verb == .releaseUp)
            settings.release = ms
            message = "release \(Dispatcher.format(ms)) ms"
        case .file:
            openPrompt("slot \(n) file=\"" + (slot.file ?? "") + "\"", cursorBack: 1)
            return
        case .kit:
            guard let kits = s.kits else { return say("no kit library in this session", error: true) }
            view.picker = Picker.kits(kits.list(), slot: n)
            say("kits: Enter loads one from slot \(n) on, Esc closes")
            return
        case .left, .right, .up, .down, .choose:
            return
        }
        try command(.slot(n, settings))
        let label = s.document.slot(n).name
        say("slot \(n)\(label.isEmpty ? "" : " " + label): " + message)
    }

    /// A gain one decibel step louder or softer, on whole decibels (so steps from unity land on -1, -2... dB),
    /// within `range`; below -60 dB it is silence, and a step up from silence is -60 dB.
    static func stepDecibels(_ gain: Double, by step: Double, within range: ClosedRange<Double>) -> Double {
        let floor = -60.0
        let db: Double
        if gain > 0 {
            db = (20 * log10(gain)).rounded() + step
        } else {
            guard step > 0 else { return clamp(0, range) }
            db = floor
        }
        if db < floor { return clamp(0, range) }
        return clamp(pow(10, db / 20), range)
    }

    /// Envelope times a step reaches, in milliseconds: fine where the ear tells the difference.
    static let envelopeSteps: [Double] = [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000]

    /// The next envelope time up or down the steps from `ms` (a time between steps goes to its neighbour).
    static func stepEnvelope(_ ms: Double, up: Bool) -> Double {
        if up { return envelopeSteps.first { $0 > ms + 1e-9 } ?? envelopeSteps.last! }
        return envelopeSteps.last { $0 < ms - 1e-9 } ?? 0
    }

    /// A gain for a narrow column: `-3dB`, `+1.5dB`, `-infdB`.
    static func compactDecibels(_ gain: Double) -> String {
        guard gain > 0 else { return "-infdB" }
        let tenths = (200 * log10(gain)).rounded()
        let whole = tenths.truncatingRemainder(dividingBy: 10) == 0
        return (tenths > 0 ? "+" : "") + (whole ? String(Int(tenths / 10)) : String(format: "%.1f", tenths / 10)) + "dB"
    }

    /// A linear gain as decibels to a tenth: `-1.0 dB`, `-inf dB` for silence.
    static func decibels(_ gain: Double) -> String {
        guard gain > 0 else { return "-inf dB" }
        let db = (20 * log10(gain) * 10).rounded() / 10
        return String(format: "%+.1f dB", db == 0 ? 0 : db)
    }
}

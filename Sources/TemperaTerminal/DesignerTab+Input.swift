import Foundation
import TemperaCore

/// The Rhythm Designer tab's input: its actions, clicks on it, and the helpers they share with the drawing.
///
/// - Warning: main (editor) thread only.
extension DesignerTab {
    // MARK: - Input

    /// Applies one designer action. Returns the message for the status line, or nil when `action` is not a
    /// designer action (so a dispatcher can try it elsewhere). Document changes go through the session as
    /// one undo step each; errors are `CommandError`s and change nothing.
    public static func handle(action name: String, session: Session, state: inout DesignerState) throws -> String? {
        guard name.hasPrefix("designer.") else { return nil }
        guard let action = DesignerAction(rawValue: name) else { throw CommandError("designer: unknown action '\(name)'") }
        return try handle(action, session: session, state: &state)
    }

    /// Applies one designer action; returns the message for the status line.
    public static func handle(_ action: DesignerAction, session: Session, state: inout DesignerState) throws -> String? {
        let t = session.document.designer
        clampCursors(t, &state)
        switch action {
        case .row, .rowNext:
            state.focus = state.focus.next
            return "designer: \(state.focus.rawValue) row"
        case .rowPrev:
            state.focus = state.focus.previous
            return "designer: \(state.focus.rawValue) row"
        case .rowTop, .rowBottom, .rowMap, .rowSlider:
            state.focus = action == .rowTop ? .top : action == .rowBottom ? .bottom : action == .rowMap ? .map : .slider
            return "designer: \(state.focus.rawValue) row"

        case .beatLeft, .beatRight:
            let d = action == .beatRight ? 1 : -1
            switch state.focus {
            case .top:
                state.topCursor = wrap(state.topCursor + d, t.top.division)
                return beatText(t, .top, state.topCursor)
            case .bottom:
                state.bottomCursor = wrap(state.bottomCursor + d, t.bottom.division)
                return beatText(t, .bottom, state.bottomCursor)
            case .map:
                guard !t.top.beats.isEmpty else { return "map: no top beats chosen" }
                state.mapCursor = wrap(state.mapCursor + d, t.top.beats.count)
                return pairText(t, state)
            case .slider:
                return try moveSlider(session, by: Double(d) * sliderStep)
            }

        case .beatToggle:
            switch state.focus {
            case .top, .bottom:
                let which = rowName(state.focus)!
                let beat = which == .top ? state.topCursor : state.bottomCursor
                let row = t.row(which).toggling(beat)
                try set(session, t.replacing(which, with: row))
                return "\(which.rawValue) beat \(beat) " + (row.isChosen(beat) ? "chosen" : "removed")
            case .map:
                guard let top = chosenTop(t, state.mapCursor) else { return "map: no top beats chosen" }
                let next = t.partner(ofTop: top) == nil ? t.pairing(top: top, with: t.bottom.beats.first) : t.pairing(top: top, with: nil)
                try set(session, next)
                return pairText(next, state)
            case .slider:
                return try setSlider(session, 0.5)
            }

        case .divisionUp, .divisionDown:
            let d = action == .divisionUp ? 1 : -1
            switch state.focus {
            case .top, .bottom:
                let which = rowName(state.focus)!
                let row = t.row(which)
                let n = min(max(row.division + d, 1), maxDivision)
                guard n != row.division else { return "\(which.rawValue): \(n) pulses" }
                try set(session, t.replacing(which, with: row.resized(to: n)))
                clampCursors(session.document.designer, &state)
                return "\(which.rawValue): \(n) pulses"
            case .map:
                return try stepPartner(session, &state, by: d)
            case .slider:
                return try moveSlider(session, by: Double(d) * sliderStep)
            }

        case .mapNext, .mapPrev:
            return try stepPartner(session, &state, by: action == .mapNext ? 1 : -1)
        case .mapClear:
            guard let top = chosenTop(t, state.mapCursor) else { return "map: no top beats chosen" }
            let next = t.pairing(top: top, with: nil)
            try set(session, next)
            return pairText(next, state)
        case .mapReset:
            var next = t
            next.map = nil
            try set(session, next)
            return "map: i-th chosen top beat to i-th chosen bottom beat"
        case .mapNearest:
            guard !t.top.beats.isEmpty, !t.bottom.beats.isEmpty else { return "map: choose top and bottom beats first" }
            var next = t
            next.map = nearestPairs(t)
            try set(session, next)
            return "map: each top beat to its nearest bottom beat ("
                + next.map!.map { "\($0.top)-\($0.bottom)" }.joined(separator: ",") + ")"
        case .euclidAsk:
            // The dispatcher opens the line that asks for k (`euclidLine`); through any other way in, the
            // row's own count.
            return try handle(.euclid, session: session, state: &state)

        case .euclid, .kUp, .kDown, .rotate, .rotateRight:
            guard let which = rowName(state.focus) else { throw CommandError("designer: move to the top or bottom row first") }
            let row = t.row(which)
            var next = row
            switch action {
            case .rotate, .rotateRight:
                let r = action == .rotate ? 1 : -1
                next.beats = row.beats.map { wrap($0 - r, row.division) }.sorted()
            default:
                let k = min(max(row.beats.count + (action == .kUp ? 1 : action == .kDown ? -1 : 0), 0), row.division)
                next.beats = try Euclid.beats(k: k, n: row.division)
            }
            try set(session, t.replacing(which, with: next))
            let turned = action == .rotate ? " rotated left" : action == .rotateRight ? " rotated right" : ""
            return "\(which.rawValue)\(turned): " + String(next.division) + " pulses, beats "
                + next.beats.map(String.init).joined(separator: ",")

        case .sliderUp: return try moveSlider(session, by: sliderStep)
        case .sliderDown: return try moveSlider(session, by: -sliderStep)
        case .sliderFineUp: return try moveSlider(session, by: fineStep)
        case .sliderFineDown: return try moveSlider(session, by: -fineStep)
        case .sliderUpCoarse: return try moveSlider(session, by: coarseStep)
        case .sliderDownCoarse: return try moveSlider(session, by: -coarseStep)
        case .sliderZero: return try setSlider(session, 0)
        case .sliderHalf: return try setSlider(session, 0.5)
        case .sliderOne: return try setSlider(session, 1)

        case .ampUp, .ampDown:
            guard let which = rowName(state.focus) else { throw CommandError("designer: move to the top or bottom row first") }
            let beat = which == .top ? state.topCursor : state.bottomCursor
            let d = action == .ampUp ? ampStep : -ampStep
            let amp = min(max(hundredths(t.row(which).amp(beat) + d), 0), 1)
            if amp != t.row(which).amp(beat) { try session.run(.temperAmp(row: which, beat: beat, amp: amp)) }
            return "\(which.rawValue) beat \(beat): amp " + String(format: "%.2f", amp)

        case .spanDouble, .spanHalf:
            var next = t
            next.span = action == .spanDouble ? t.span * 2 : t.span / 2
            try set(session, next)
            return "span " + String(format: "%.4g", next.span) + " s"

        case .stamp:
            return try session.run(.temperStamp(times: 1))
        case .apply:
            return try session.run(.temperApply)
        case .group:
            return try session.run(.temperGroup(state.groupSlot))
        case .groupNext, .groupPrev:
            state.groupSlot = wrap(state.groupSlot - 1 + (action == .groupNext ? 1 : -1), 16) + 1
            return "designer: results go to group \(state.groupSlot)"
        case .morph:
            return try session.run(.temperMorph(times: state.morphTimes, from: state.morphFrom, to: t.slider))
        case .morphMore, .morphLess:
            state.morphTimes = min(max(state.morphTimes + (action == .morphMore ? 1 : -1), 1), 64)
            return "designer: morph over \(state.morphTimes) cycles from s = " + String(format: "%.2f", state.morphFrom)
        case .preset, .presetNext, .presetPrev:
            let names = TemperamentPreset.names
            // A preset whose slider or amplitudes were changed still counts as that preset.
            let current = TemperamentPreset.allCases.firstIndex { p in
                let q = p.temperament
                return q.span == t.span && q.map == t.map && q.top.division == t.top.division && q.top.beats == t.top.beats
                    && q.bottom.division == t.bottom.division && q.bottom.beats == t.bottom.beats
            }
            let k: Int
            if let current {
                k = wrap(current + (action == .presetPrev ? -1 : 1), names.count)
            } else {
                k = action == .presetPrev ? names.count - 1 : 0
            }
            let message = try session.run(.temperPreset(names[k]))
            state = DesignerState(focus: state.focus, groupSlot: state.groupSlot, morphTimes: state.morphTimes,
                                  morphFrom: state.morphFrom, audition: state.audition)
            return message
        case .audition:
            state.audition.toggle()
            return "designer: audition " + (state.audition ? "on (the current track plays the temperament)" : "off")
        }
    }

    /// A click at (x, y) of the content area of `width` x `height`: on a template row it chooses that row,
    /// moves its cursor to the nearest pulse and toggles it; on the slider it sets the value there; on the
    /// map row it focuses the map.
    public static func click(x: Int, y: Int, width: Int, height: Int, session: Session, state: inout DesignerState) throws -> String? {
        let g = Geometry(width: width, height: height)
        let t = session.document.designer
        if y == g.top || y == g.bottom {
            let which: Temperament.RowName = y == g.top ? .top : .bottom
            if x < g.laneX {
                state.focus = which == .top ? .top : .bottom
                return "designer: \(which.rawValue) row"
            }
            let beat = g.pulse(column: x, division: t.row(which).division)
            if which == .top { state.topCursor = beat; state.focus = .top } else { state.bottomCursor = beat; state.focus = .bottom }
            return try handle(.beatToggle, session: session, state: &state)
        }
        if y == g.slider {
            state.focus = .slider
            return x < g.laneX ? "designer: slider row" : try setSlider(session, g.sliderValue(column: x))
        }
        if y == g.info {
            state.focus = .map
            return "designer: map row"
        }
        return nil
    }

    /// True when (x, y) of a content area `width` x `height` lies on the slider's lane (a drag there moves it).
    public static func isSlider(x: Int, y: Int, width: Int, height: Int) -> Bool {
        let g = Geometry(width: width, height: height)
        return y == g.slider && x >= g.laneX
    }

    // MARK: - Helpers

    static func rowName(_ f: DesignerState.Focus) -> Temperament.RowName? {
        switch f {
        case .top: return .top
        case .bottom: return .bottom
        default: return nil
        }
    }

    /// Sets the designer to `t` through its `temper span=...` command (nothing when it is already so).
    static func set(_ session: Session, _ t: Temperament) throws {
        try t.validate()
        guard t != session.document.designer else { return }
        try session.run(t.defining)
    }

    /// Each chosen top beat paired with the chosen bottom beat nearest in time (of two as near, the earlier):
    /// the map a musician reaches for when tempering one rhythm toward another grid (a bell toward sixteenths).
    static func nearestPairs(_ t: Temperament) -> [Temperament.Pair] {
        t.top.beats.map { a in
            let at = Double(a) / Double(t.top.division)
            var best = t.bottom.beats[0]
            for b in t.bottom.beats where abs(Double(b) / Double(t.bottom.division) - at)
                < abs(Double(best) / Double(t.bottom.division) - at) {
                best = b
            }
            return Temperament.Pair(top: a, bottom: best)
        }
    }

    /// The `temper` line that makes the focused row Euclidean, k standing where the cursor goes (the row's
    /// beats now): type the k wanted and Enter. An explicit map is left out (its pairs name the old beats).
    static func euclidLine(_ t: Temperament, row: Temperament.RowName) -> (line: String, cursorBack: Int) {
        func beats(_ r: Temperament.Row) -> String {
            r.beats == Array(0..<r.division) ? "all" : r.beats.map(String.init).joined(separator: ",")
        }
        let k = t.row(row).beats.count
        let edited = "\(t.row(row).division):euclid(\(k)"
        let top = row == .top ? edited : "\(t.top.division):\(beats(t.top))"
        let bottom = row == .bottom ? edited : "\(t.bottom.division):\(beats(t.bottom))"
        let head = "temper span=\(Dispatcher.format(t.span)) top=\(top)" + (row == .top ? "" : " bottom=\(bottom)")
        let tail = (row == .top ? ") bottom=\(bottom)" : ")") + " s=\(Dispatcher.format(t.slider))"
        return (head + tail, tail.count)
    }

    static func wrap(_ i: Int, _ n: Int) -> Int { n <= 0 ? 0 : ((i % n) + n) % n }

    static func clampCursors(_ t: Temperament, _ s: inout DesignerState) {
        s.topCursor = min(max(s.topCursor, 0), max(t.top.division - 1, 0))
        s.bottomCursor = min(max(s.bottomCursor, 0), max(t.bottom.division - 1, 0))
        s.mapCursor = min(max(s.mapCursor, 0), max(t.top.beats.count - 1, 0))
    }

    static func moveSlider(_ session: Session, by step: Double) throws -> String {
        let r = Temperament.sliderRange
        let s = min(max(hundredths(session.document.designer.slider + step), r.lowerBound), r.upperBound)
        return try setSlider(session, s)
    }

    static func setSlider(_ session: Session, _ s: Double) throws -> String {
        guard s != session.document.designer.slider else { return "s = " + String(format: "%.2f", s) }
        _ = try session.run(.temperSlider(s))
        let t = session.document.designer
        var text = "s = " + String(format: "%.2f", s)
        if let r = t.swingRatio() { text += ", swing " + String(format: "%.2f", r) + ":1" }
        return text
    }

    /// Moves the partner of the top beat under the map cursor to the next or previous chosen bottom beat
    /// (from unpaired, to the first or last).
    static func stepPartner(_ session: Session, _ state: inout DesignerState, by d: Int) throws -> String {
        let t = session.document.designer
        guard let top = chosenTop(t, state.mapCursor) else { return "map: no top beats chosen" }
        let bottoms = t.bottom.beats
        guard !bottoms.isEmpty else { return "map: no bottom beats chosen" }
        let target: Int
        if let current = t.partner(ofTop: top), let k = bottoms.firstIndex(of: current) {
            target = bottoms[min(max(k + d, 0), bottoms.count - 1)]
        } else {
            target = d > 0 ? bottoms[0] : bottoms[bottoms.count - 1]
        }
        let next = t.pairing(top: top, with: target)
        if next != t { try set(session, next) }
        return pairText(next, state)
    }

    static func beatText(_ t: Temperament, _ which: Temperament.RowName, _ beat: Int) -> String {
        let row = t.row(which)
        return "\(which.rawValue) beat \(beat) of \(row.division)" + (row.isChosen(beat) ? " (chosen)" : "")
            + ", amp " + String(format: "%.2f", row.amp(beat))
    }

    static func pairText(_ t: Temperament, _ state: DesignerState) -> String {
        guard let top = chosenTop(t, state.mapCursor) else { return "map: no top beats chosen" }
        if let b = t.partner(ofTop: top) { return "map: top \(top) to bottom \(b)" }
        return "map: top \(top) unpaired"
    }
}

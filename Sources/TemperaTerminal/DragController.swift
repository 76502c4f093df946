import TemperaCore

/// A drag as one undo step, after Ardour: `begin` opens the session's transaction, each `motion` runs one
/// command (a shift, a scale of the handle, a tempo or volume value), `finish` commits the net change as one
/// step and `abort` puts the document back where the drag began. Shift and scale are driven by repeated
/// arrows or by the mouse; tempo and volume by the transport's sliders; held keys that nudge a setting
/// (`nudge`) coalesce into one step the same way.
///
/// Every step is a `Command`: the drag adds no edit of its own, only the transaction around them.
///
/// - Warning: main (editor) thread only.
struct DragController {
    struct Drag: Equatable {
        enum Kind: Equatable {
            case shift
            /// The K-th selected element (from 1) is the handle.
            case scale(k: Int)
            case tempo
            case volume
            /// Key nudges of one family (`tempo`, `volume`, `amp`, `gain`, `slider`) coalesced into one step.
            case nudge(String)
            /// The rhythm designer's slider, dragged along row `y` of the tab area (one undo step).
            case designerSlider(y: Int)
            /// A tempo point of the tempo lane moved in time (the shift tool's keys, or the pointer) and, by the
            /// pointer, in tempo: where the point was and its tempo when the drag began, and the row pressed on.
            /// `anchor` is where the point is now.
            case tempoPoint(from: Double, tempo: Double, pressY: Int)
        }
        var kind: Kind
        var mouse: Bool
        /// Shift: the time the last step reached. Scale: where the handle started.
        var anchor: Double
        /// Scale: the time the pointer pressed (the handle moves by the pointer's travel).
        var pressTime: Double
        /// The clock when the last step ran (held-key nudges end after a pause).
        var lastStep: Double
        /// The document's revision when the drag began, to tell whether it changed anything.
        var revision: Int
    }

    /// The drag in progress, if any.
    private(set) var current: Drag?

    var isActive: Bool { current != nil }

    /// Opens a drag (finishing one already open) as a transaction named after it.
    mutating func begin(_ kind: Drag.Kind, mouse: Bool, anchor: Double = 0, pressTime: Double = 0,
                        session: Session, now: Double) {
        if current != nil { _ = finish(session) }
        let name: String
        switch kind {
        case .shift: name = "shift"
        case .scale: name = "scale"
        case .tempo: name = "tempo"
        case .volume: name = "volume"
        case .nudge(let family): name = family
        case .designerSlider: name = "slider"
        case .tempoPoint: name = "move tempo point"
        }
        session.beginTransaction(name)
        current = Drag(kind: kind, mouse: mouse, anchor: anchor, pressTime: pressTime, lastStep: now,
                       revision: session.revision)
    }

    /// A held key of `family` nudged again: the open nudge of that family goes on, anything else is finished
    /// and a new nudge begins.
    mutating func nudge(_ family: String, session: Session, now: Double) {
        if case .nudge(let f) = current?.kind, f == family {
            current!.lastStep = now
            return
        }
        begin(.nudge(family), mouse: false, session: session, now: now)
    }

    /// The tempo point being dragged is now at `time` (a `tempoPoint` drag).
    mutating func tempoPointMoved(to time: Double, now: Double) {
        current?.anchor = time
        current?.lastStep = now
    }

    /// One step of a shift or scale drag by the keys: `sign` times `step` seconds (or one marker, for clips
    /// moving from marker to marker). Returns the refusal of a step that cannot apply (the drag goes on).
    mutating func keyStep(sign: Double, step: Double, session s: Session, now: Double) throws -> CommandError? {
        guard var d = current else { return nil }
        var refusal: CommandError?
        switch d.kind {
        case .shift:
            // Clip mode with snap moves clips from marker to marker.
            let by = s.clipMode && s.snap ? sign : sign * step
            refusal = try Self.step { try s.run(.shift(by)) }
        case .scale(let k):
            let to = max(0, d.anchor + sign * step)
            refusal = try Self.step { try s.run(.scaleHandle(k: k, to: to)) }
            if refusal == nil { d.anchor = to }
        default: break
        }
        d.lastStep = now
        current = d
        return refusal
    }

    /// The pointer moved to `time` (shift, scale) or onto a slider value (tempo, volume). `markers` is the
    /// current track's, for clips moving marker by marker. Returns the refusal of a step that cannot apply.
    mutating func motion(to time: Double?, slider value: Double?, markers: MarkerList, session s: Session,
                         now: Double) throws -> CommandError? {
        guard var d = current, d.mouse else { return nil }
        var refusal: CommandError?
        switch d.kind {
        case .shift:
            guard let time else { return nil }
            if s.clipMode && s.snap {
                // Clips move marker by marker: count the markers the pointer passed.
                let a = markers.lowerBound(time: min(d.anchor, time)), b = markers.upperBound(time: max(d.anchor, time))
                let steps = max(0, b - a - 1)
                guard steps > 0 else { return nil }
                refusal = try Self.step { try s.run(.shift(Double(time > d.anchor ? steps : -steps))) }
            } else {
                let by = time - d.anchor
                guard by != 0 else { return nil }
                refusal = try Self.step { try s.run(.shift(by)) }
            }
            if refusal == nil { d.anchor = time }
        case .scale(let k):
            guard let time else { return nil }
            refusal = try Self.step { try s.run(.scaleHandle(k: k, to: max(0, d.anchor + time - d.pressTime))) }
        case .tempo:
            guard let value else { return nil }
            refusal = try Self.step { try s.run(.tempo(min(max(value, Transport.tempoRange.lowerBound), Transport.tempoRange.upperBound))) }
        case .volume:
            guard let value else { return nil }
            refusal = try Self.step { try s.run(.volume(min(max(value, 0), 1))) }
        case .nudge, .designerSlider, .tempoPoint: break
        }
        d.lastStep = now
        current = d
        return refusal
    }

    /// Ends the drag: its steps become one undo step. Returns the drag that ended.
    mutating func finish(_ session: Session) -> Drag? {
        guard let d = current else { return nil }
        current = nil
        session.commitTransaction()
        return d
    }

    /// Cancels the drag: the document goes back to where it began. False when no drag was open.
    mutating func abort(_ session: Session) -> Bool {
        guard current != nil else { return false }
        current = nil
        session.abortTransaction()
        return true
    }

    /// Runs one step; a `CommandError` is a refused step, returned rather than thrown.
    private static func step(_ body: () throws -> String?) throws -> CommandError? {
        do {
            _ = try body()
            return nil
        } catch let e as CommandError {
            return e
        }
    }
}

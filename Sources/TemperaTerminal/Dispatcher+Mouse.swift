import Foundation
import TemperaCore

/// The mouse: a press hit-tests the screen and acts on what it hit (a tool, a tab, a slot, the timeline by
/// tool), a drag with the button held moves through the `DragController`, the wheel zooms or scrolls.
extension Dispatcher {
    public func handle(_ m: MouseEvent) {
        // Hit-testing lays the screen out again: done only when the answer matters (a timeline drag needs only
        // the column's time, and motion without a drag nothing).
        var hit: Hit {
            EditorView.hitTest(x: m.x, y: m.y, session: session, view: view, size: (width, height))
        }
        if view.helpOffset != nil {
            if m.kind == .press { view.helpOffset = nil }
            else if m.kind == .wheelUp { view.helpOffset = max(0, view.helpOffset! - 3) }
            else if m.kind == .wheelDown { view.helpOffset! += 3 }
            return
        }
        if view.question != nil || view.prompt != nil {
            if m.kind == .press, view.prompt != nil { view.prompt = nil }
            else { return }
        }
        do {
            switch m.kind {
            case .press: try press(hit, m)
            case .drag:
                guard let d = drags.current, d.mouse else {
                    // Say once per press why a drag on the timeline moves nothing.
                    if pressedOnTimeline {
                        pressedOnTimeline = false
                        say(dragHint)
                    }
                    return
                }
                try move(d.kind == .tempo || d.kind == .volume ? hit : .none, m)
            case .release:
                pressedOnTimeline = false
                finishDrag()
            case .wheelUp, .wheelDown: wheel(hit, m)
            }
        } catch {
            fail(error)
        }
    }

    func press(_ hit: Hit, _ m: MouseEvent) throws {
        if drags.isActive { finishDrag() }
        let s = session
        pressedOnTimeline = false
        switch hit {
        case .timeline(let track, let pointer, let amp):
            // With the grid on a click lands on the nearest grid point; Alt (or Shift) held places freely.
            let time = snapped(pointer, free: m.alt || m.shift)
            pressedOnTimeline = true
            s.currentTrack = track
            if m.button == 3 {
                try command(.select(.init(.at(time), add: true)))
                return
            }
            try click(time: time, amp: amp)
        case .ruler(let time): moveCursor(to: snapped(time, free: m.alt || m.shift))
        case .tempoLane(let time): pressTempoLane(time: time, y: m.y)
        case .trackName(let t): s.currentTrack = t
        case .tool(let tool): try choose(tool)
        case .clipMode: try run(Action(.modeClip))
        case .snap: try run(Action(.modeSnap))
        case .subdivision: try run(Action(.subdivision(m.button == 3 ? .down : .up)))
        case .patternArea:
            // With a pattern tool chosen, its own editor (Enter applies); else the `:` line's `pattern`.
            if view.tool.usesPattern { openPatternEditor(for: view.tool) } else { try run(Action(.patternEdit)) }
        case .tab(let tab):
            view.tab = tab
            view.focus = .tab
        case .slot(let n):
            try command(.chooseClip(.clip(n)))
            say("clip \(n) chosen" + clipName(.clip(n)))
        case .clipContent(let c):
            try command(.chooseClip(c))
            say("clip \(c.code) chosen")
        case .group(let n):
            view.chosenGroup = n
            say("group \(n) chosen")
        case .section(let j):
            view.tab = .song
            view.focus = .tab
            view.songRow = j
        case .pad(let slot, let velocity):
            // A click plays the pad whatever has the keys; the tab keeps what it shows.
            try pad(slot, velocity: velocity)
        case .songMode: try run(Action(.songMode))
        case .play: try run(Action(.play))
        case .rewind: try run(Action(.rewind))
        case .loop: try run(Action(.loop))
        case .tempo(let v):
            drags.begin(.tempo, mouse: true, session: s, now: clock())
            try step(drags.motion(to: nil, slider: v, markers: currentMarkers, session: s, now: clock()))
        case .volume(let v):
            drags.begin(.volume, mouse: true, session: s, now: clock())
            try step(drags.motion(to: nil, slider: v, markers: currentMarkers, session: s, now: clock()))
        case .designer(let x, let y):
            view.tab = .designer
            view.focus = .tab
            let r = layout.tabs
            if DesignerTab.isSlider(x: x, y: y, width: r.width, height: r.height) {
                drags.begin(.designerSlider(y: y), mouse: true, session: s, now: clock())
            }
            if let message = try DesignerTab.click(x: x, y: y, width: r.width, height: r.height, session: s,
                                                   state: &view.designer) {
                say(message)
            }
        case .statusLine: openPrompt("")
        case .none: break
        }
    }

    /// A left click on the timeline, by tool.
    func click(time: Double, amp: Double) throws {
        let s = session
        switch view.tool {
        case .drawSingle:
            moveCursor(to: time)
            // As `a` does: the chosen clip on the marker under the pointer, else on a new marker there.
            try drawClip(amp: amp)
        case .drawGroup:
            s.cursor = time
            try command(.drawGroup(view.chosenGroup))
        case .select, .subdivide, .rotate, .reverse, .delete:
            s.cursor = time
            try command(.select(.init(.at(time))))
        case .hold:
            s.cursor = time
            try command(.select(.init(.at(time), add: true)))
        case .shift, .scale:
            if nearestSelected(to: time).map({ abs($0.time - time) > 2 * view.viewport.secondsPerColumn }) ?? true {
                try command(.select(.init(.at(time))))
            }
            guard let h = nearestSelected(to: time) else { return say(dragHint) }
            if view.tool == .shift {
                drags.begin(.shift, mouse: true, anchor: time, pressTime: time, session: s, now: clock())
            } else {
                drags.begin(.scale(k: h.k), mouse: true, anchor: h.time, pressTime: time, session: s, now: clock())
            }
        default:
            // Typing, fill, and the selections that start from the cursor: the click places the cursor.
            moveCursor(to: time)
            if view.tool == .allLeft || view.tool == .allRight || view.tool == .patternSelect || view.tool == .fill {
                try use(view.tool)
            }
        }
    }

    func move(_ hit: Hit, _ m: MouseEvent) throws {
        guard let d = drags.current, d.mouse else { return }
        if case .designerSlider(let y) = d.kind {
            let r = layout.tabs
            let x = min(max(m.x - r.x, 0), r.width - 1)
            if let message = try DesignerTab.click(x: x, y: y, width: r.width, height: r.height, session: session,
                                                   state: &view.designer) { say(message) }
            return
        }
        if case .tempoPoint = d.kind {
            if let time = timeAt(x: m.x) { try dragTempoPoint(time: time, y: m.y, free: m.alt || m.shift) }
            return
        }
        var value: Double?
        switch (d.kind, hit) {
        case (.tempo, .tempo(let v)), (.volume, .volume(let v)): value = v
        default: break
        }
        let time = timeAt(x: m.x).map { snapped($0, free: m.alt || m.shift) }
        try step(drags.motion(to: time, slider: value, markers: currentMarkers, session: session, now: clock()))
    }

    /// Why a drag on the timeline moved nothing: only the shift and scale tools drag, and they drag the selection
    /// (in clip mode, only markers holding clips are elements).
    var dragHint: String {
        let shift = view.key(Tool.shift.action) ?? "m", scale = view.key(Tool.scale.action) ?? "x"
        if view.tool == .shift || view.tool == .scale {
            return session.clipMode ? "nothing to drag here: in clip mode only markers holding clips move"
                                    : "nothing to drag here: select markers first"
        }
        return "a drag moves the selection with the shift (\(shift)) or scale (\(scale)) tool"
    }

    /// Shows a drag step's refusal; the drag goes on.
    private func step(_ refusal: CommandError?) {
        if let refusal { say(refusal.description, error: true) }
    }

    /// The time under a screen column, even outside the timeline's rows (a drag may wander off them).
    func timeAt(x: Int) -> Double? {
        let l = layout
        guard l.fits else { return nil }
        let col = min(max(x - l.timeline.x, 0), max(l.timeline.width - 1, 0))
        return view.viewport.time(atColumn: Double(col))
    }

    func wheel(_ hit: Hit, _ m: MouseEvent) {
        let up = m.kind == .wheelUp
        if m.shift || m.ctrl {
            view.viewport.scroll(columns: up ? -4 : 4)
            return
        }
        switch hit {
        case .timeline(_, let time, _), .ruler(let time):
            if up { view.viewport.zoomIn(about: time) } else { view.viewport.zoomOut(about: time) }
        default:
            if up { view.viewport.zoomIn(about: session.cursor) } else { view.viewport.zoomOut(about: session.cursor) }
        }
    }

}

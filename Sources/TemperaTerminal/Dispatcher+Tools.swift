import Foundation
import TemperaCore

/// The tools of the tool panel: choosing one, using it at the cursor (Enter), the clip keys and `a`.
extension Dispatcher {
    /// Tools that act at once on the selection (buttons) rather than waiting for Enter or a click.
    static let instantTools: Set<Tool> = [.allLeft, .allRight, .subdivide, .rotate, .reverse, .delete]

    func choose(_ tool: Tool) throws {
        if Dispatcher.instantTools.contains(tool) {
            try use(tool)
            return
        }
        view.tool = tool
        switch tool {
        case .typing: say("typing draw: type clips (1-9, 0 is 10, !@#$%^ are 11-16, + hold, - cut, ~ random) onto empty markers")
        case .shift: say("shift: arrows or a drag move the selection; Enter keeps, Esc cancels")
        case .scale: say("scale: arrows or a drag move the handle nearest the cursor; Enter keeps, Esc cancels")
        case .fill, .patternSelect: openPatternEditor(for: tool)
        default: say("")
        }
    }

    /// Enter: the chosen tool at the cursor.
    func apply() throws {
        if drags.isActive { finishDrag(); return }
        try use(view.tool)
    }

    func use(_ tool: Tool) throws {
        let s = session
        // A pattern tool with no code yet asks for one rather than failing.
        if tool.usesPattern, s.document.pattern.trimmingCharacters(in: " ").isEmpty {
            view.tool = tool
            openPatternEditor(for: tool)
            return
        }
        switch tool {
        case .drawSingle: try command(.draw(amp: view.drawAmp))
        case .drawGroup: try command(.drawGroup(view.chosenGroup))
        case .typing: try command(.type(PatternParser.parse(s.chosenClip.code)))
        case .fill: try command(.fill(PatternParser.parse(s.document.pattern)))
        case .select: try command(.select(.init(.at(s.cursor))))
        case .hold: try command(.select(.init(.at(s.cursor), add: true)))
        case .allLeft: try command(.select(.init(.left)))
        case .allRight: try command(.select(.init(.right)))
        case .patternSelect: try command(.select(.init(.pattern(PatternParser.parse(s.document.pattern)))))
        case .shift, .scale:
            say(selectionIsEmpty ? "select markers first (s picks, < > take all left or right)"
                                 : "arrows or a drag move the selection; Enter keeps, Esc cancels")
        case .subdivide: try command(.subdivide(s.subdivision))
        case .rotate: try command(.rotate)
        case .reverse: try command(.reverse)
        case .delete: try command(.delete)
        }
    }

    /// A clip key: chooses the clip, or types it in typing draw.
    func clip(_ content: Content) throws {
        if view.tool == .typing, view.focus == .timeline {
            try command(.type(PatternParser.parse(content.code)))
        } else {
            try command(.chooseClip(content))
            if view.focus == .tab, view.tab == .groups, case .clip(let n) = content {
                view.chosenGroup = n
                say("group \(n) chosen")
            } else {
                say("clip \(content.code) chosen" + clipName(content))
            }
        }
    }

    func clipName(_ content: Content) -> String {
        guard case .clip(let n) = content, ClipSlot.range.contains(n) else { return "" }
        let name = session.document.slot(n).name
        return name.isEmpty ? "" : ": " + name
    }

    /// Puts the chosen clip at the cursor, whatever the mode: the shortest way from a key to a new sound. A
    /// marker of the current track under the cursor (within half a column) takes the clip; elsewhere a new
    /// marker carries it (`marker add TIME amp=A clip=C`). In clip mode with snap it puts the clip on the
    /// nearest marker instead, as drawing does.
    func drawClip(amp: Double? = nil) throws {
        let s = session
        let drawAmp = amp ?? view.drawAmp
        if s.clipMode {
            try command(.draw(amp: drawAmp))
            return
        }
        guard s.document.tracks.indices.contains(s.currentTrack) else { return say("no track to draw on") }
        let clip = s.chosenClip
        if let existing = markerUnderCursor {
            if existing.content == clip {
                return say("clip \(clip.code) is already on the marker at " + String(format: "%.3f s", existing.time))
            }
            try command(.markerAdd(time: existing.time, amp: nil, content: clip))
            say("clip \(clip.code)\(clipName(clip)) on the marker at " + String(format: "%.3f s", existing.time))
            return
        }
        try command(.markerAdd(time: s.cursor, amp: drawAmp, content: clip))
        say("added clip \(clip.code)\(clipName(clip)) at " + String(format: "%.3f s", s.cursor))
    }

    /// The current track's marker nearest the cursor when it lies within half a column of it.
    var markerUnderCursor: Marker? {
        let markers = currentMarkers
        let t = session.cursor
        let i = markers.lowerBound(time: t)
        var best: Marker?
        for j in [i - 1, i] where j >= 0 && j < markers.endIndex {
            let m = markers[j]
            if best.map({ abs(m.time - t) < abs($0.time - t) }) ?? true { best = m }
        }
        guard let best, abs(best.time - t) <= view.viewport.secondsPerColumn / 2 else { return nil }
        return best
    }
}

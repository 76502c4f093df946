import Foundation
import TemperaCore

/// The Rhythm Designer tab (the paper's Figure 7 in a terminal): the top subdivision with its chosen beats,
/// the result dots at their interpolated positions, the bottom subdivision, the slider from -0.5 to 1.5
/// with 0 and 1 marked, the result's inter-onset intervals in milliseconds at the document's tempo (and
/// the swing ratio of a two-dot result), and the mapping as pair labels. With room to spare it also draws
/// the mapping as slanted lines between the rows and the keys of the focused row.
///
/// ```
/// ▸top  7 ●  ●   ·  ●  ●   ·  ●
///  result ●   ●    ●    ●     ●
///   bot 5 ●    ●    ●    ●    ●
///  s 0.50 ─────0━━━━━●─────1─────
///  ioi ms 343 486 343 486 514
///  map 0-0 1-1 3-2 4-3 6-4
/// ```
///
/// Every change goes through the `Session` (one undo step each); this type only keeps view state.
///
/// - Warning: main (editor) thread only.
public enum DesignerTab {
    /// Slider steps of the plain and the fine keys.
    public static let sliderStep = 0.05
    public static let fineStep = 0.01
    public static let coarseStep = 0.1
    /// The largest subdivision the division keys reach.
    public static let maxDivision = 48
    /// The amplitude step of `designer.amp.up/down`.
    public static let ampStep = 0.1

    /// The action names `handle(action:session:state:)` understands; a key map binds keys to them.
    public static let actions: [String] = DesignerAction.allCases.map(\.rawValue)

    // MARK: - Drawing

    /// Where each row lies for a content area of `width` x `height` cells (relative to its corner), so drawing
    /// and clicks agree.
    struct Geometry {
        static let labelWidth = 8
        let width: Int
        let height: Int
        let laneX: Int
        let laneWidth: Int
        let top: Int
        let topLinks: Int?
        let result: Int
        let bottomLinks: Int?
        let bottom: Int
        let slider: Int
        let intervals: Int
        let info: Int
        let hints: Int?

        init(width: Int, height: Int) {
            self.width = width
            self.height = height
            laneX = Geometry.labelWidth
            // One column is kept right of the lane for the mark of a dot pushed past the span.
            laneWidth = max(1, width - Geometry.labelWidth - 1)
            let links = height >= 9
            var y = 0
            top = y; y += 1
            topLinks = links ? y : nil; if links { y += 1 }
            result = y; y += 1
            bottomLinks = links ? y : nil; if links { y += 1 }
            bottom = y; y += 1
            slider = y; y += 1
            intervals = y; y += 1
            info = y; y += 1
            hints = height > y ? y : nil
        }

        /// The column (relative) of a fraction of the span; 1 is one column past the lane.
        func column(fraction f: Double) -> Int {
            laneX + Int((f * Double(laneWidth)).rounded(.down))
        }

        /// The column of slider value `s`, clamped to the lane.
        func sliderColumn(_ s: Double) -> Int {
            let r = Temperament.sliderRange
            let f = (min(max(s, r.lowerBound), r.upperBound) - r.lowerBound) / (r.upperBound - r.lowerBound)
            return laneX + Int((f * Double(laneWidth - 1)).rounded())
        }

        /// The slider value a lane column stands for: the marks 0, 0.5 and 1 when drawn in that column, else
        /// the 0.05 step drawn there nearest the column's exact value (hundredths on a lane too wide for steps).
        func sliderValue(column x: Int) -> Double {
            let r = Temperament.sliderRange
            let col = min(max(x, laneX), laneX + laneWidth - 1)
            let exact = r.lowerBound + Double(col - laneX) / Double(max(laneWidth - 1, 1)) * (r.upperBound - r.lowerBound)
            let steps = Int(((r.upperBound - r.lowerBound) / DesignerTab.sliderStep).rounded())
            let here = (0...steps).map { DesignerTab.hundredths(r.lowerBound + Double($0) * DesignerTab.sliderStep) }
                .filter { sliderColumn($0) == col }
            if let mark = here.first(where: { $0 == 0 || $0 == 0.5 || $0 == 1 }) { return mark }
            return here.min { abs($0 - exact) < abs($1 - exact) } ?? DesignerTab.hundredths(exact)
        }

        /// The pulse of an n-pulse row nearest lane column `x`.
        func pulse(column x: Int, division n: Int) -> Int {
            let f = Double(x - laneX) / Double(laneWidth)
            return min(max(Int((f * Double(n)).rounded()), 0), n - 1)
        }
    }

    /// Draws the tab's content into `rect` of `canvas`.
    public static func draw(session: Session, state: DesignerState, view: ViewState, into canvas: inout Canvas, rect: Rect) {
        _ = render(session: session, state: state, view: view, into: &canvas, rect: rect)
    }

    /// Draws and returns the clickable spot (the whole content area, as `Hit.designer` relative to `rect`).
    static func render(session: Session, state: DesignerState, view: ViewState, into canvas: inout Canvas, rect: Rect) -> [Spot] {
        guard rect.width >= Geometry.labelWidth + 4, rect.height >= 6 else {
            canvas.put(rect.x, rect.y, String("rhythm designer: too small".prefix(max(rect.width, 0))), .warning)
            return []
        }
        var sub = Canvas(width: rect.width, height: rect.height)
        drawContent(session: session, state: state, view: view, into: &sub)
        canvas.blit(sub, x: rect.x, y: rect.y)
        return [Spot(rect) { x, y in .designer(x: x - rect.x, y: y - rect.y) }]
    }

    /// Draws into a canvas the size of the content area.
    static func drawContent(session: Session, state: DesignerState, view: ViewState, into c: inout Canvas) {
        let g = Geometry(width: c.width, height: c.height)
        let t = session.document.designer
        // A file edited by hand may hold a temperament no command would make: say why instead of drawing it.
        do { try t.validate() } catch {
            c.put(1, 0, fit((error as? CommandError)?.message ?? "\(error)", c.width - 1, Glyphs.set(ascii: view.ascii)), .error)
            c.put(1, 1, fit("set it again with :temper span=... or a preset", c.width - 1, Glyphs.set(ascii: view.ascii)), .dim)
            return
        }
        let glyphs = Glyphs.set(ascii: view.ascii)
        let pairs = t.pairs
        let dots = t.result()
        let focusMark: Character = glyphs.currentTrack

        func label(_ y: Int, _ text: String, focused: Bool) {
            if focused { c[0, y] = Cell(focusMark, .accent) }
            let padded = String(repeating: " ", count: max(0, Geometry.labelWidth - 2 - text.count)) + text
            c.put(1, y, padded, focused ? .titleActive : .title)
        }

        // Template rows.
        for which in [Temperament.RowName.top, .bottom] {
            let row = t.row(which)
            let y = which == .top ? g.top : g.bottom
            let focused = state.focus == (which == .top ? .top : .bottom)
            label(y, (which == .top ? "top " : "bot ") + String(row.division), focused: focused)
            let paired = Set(pairs.map { which == .top ? $0.top : $0.bottom })
            let cursor = which == .top ? state.topCursor : state.bottomCursor
            for i in 0..<row.division {
                let x = g.column(fraction: Double(i) / Double(row.division))
                let chosen = row.isChosen(i)
                let ch: Character = chosen ? (paired.contains(i) ? (view.ascii ? "x" : "●") : (view.ascii ? "o" : "○"))
                    : glyphs.emptyMarker
                var role: Role = chosen ? (paired.contains(i) ? .marker : .dim) : .markerEmpty
                if focused && i == cursor { role = .cursor }
                if state.focus == .map, which == .top, chosenTop(t, state.mapCursor) == i { role = .cursor }
                c[x, y] = Cell(ch, role)
            }
        }

        // Result dots, and the mapping as slanted links when there is room.
        label(g.result, "result", focused: false)
        let mapTop = state.focus == .map ? chosenTop(t, state.mapCursor) : nil
        // Dots sharing a column (a many-to-one map at s = 1, or a narrow lane) show how many they are.
        var perColumn: [Int: Int] = [:]
        for d in dots {
            let f = d.time / t.span
            let role: Role = mapTop != nil && pairs[d.pair].top == mapTop ? .cursor : .accent
            if f < 0 {
                c[g.laneX - 1, g.result] = Cell(view.ascii ? "<" : "‹", .warning)
            } else if f >= 1 {
                c[g.laneX + g.laneWidth, g.result] = Cell(view.ascii ? ">" : "›", .warning)
            } else {
                let x = g.column(fraction: f)
                let n = perColumn[x, default: 0] + 1
                perColumn[x] = n
                let keep = n > 1 && c[x, g.result].role == .cursor ? Role.cursor : role
                c[x, g.result] = Cell(n > 1 ? glyphs.count(n) : (view.ascii ? "o" : "●"), keep)
            }
        }
        if let y1 = g.topLinks, let y2 = g.bottomLinks {
            for (k, p) in pairs.enumerated() {
                let xt = g.column(fraction: t.topTime(p.top) / t.span)
                let xb = g.column(fraction: t.bottomTime(p.bottom) / t.span)
                let xr = g.column(fraction: min(max(t.time(of: p, slider: t.slider) / t.span, 0), 1))
                let role: Role = mapTop == p.top ? .cursor : .guide
                _ = k
                c[(xt + xr) / 2, y1] = Cell(link(from: xt, to: xr, ascii: view.ascii), role)
                c[(xr + xb) / 2, y2] = Cell(link(from: xr, to: xb, ascii: view.ascii), role)
            }
        }

        // The slider: -0.5 at the left end, 1.5 at the right, 0 and 1 written in.
        label(g.slider, "s " + String(format: "%.2f", t.slider), focused: state.focus == .slider)
        for x in g.laneX..<(g.laneX + g.laneWidth) { c[x, g.slider] = Cell(glyphs.sliderEmpty, .sliderEmpty) }
        let x0 = g.sliderColumn(0), x1 = g.sliderColumn(1), xs = g.sliderColumn(t.slider)
        for x in min(x0, xs)...max(x0, xs) { c[x, g.slider] = Cell(glyphs.sliderFill, .sliderFill) }
        c[x0, g.slider] = Cell("0", .ruler)
        c[x1, g.slider] = Cell("1", .ruler)
        c[xs, g.slider] = Cell(glyphs.sliderKnob, .sliderKnob)

        // Inter-onset intervals at the document's tempo, and the swing ratio of two dots.
        label(g.intervals, "ioi ms", focused: false)
        c.put(g.laneX, g.intervals, fit(intervalsText(t, tempo: session.document.transport.tempo), g.width - g.laneX, glyphs), .normal)

        // The mapping as pair labels.
        label(g.info, "map", focused: state.focus == .map)
        drawMap(t, state: state, y: g.info, x: g.laneX, width: g.width - g.laneX, glyphs: glyphs, into: &c)

        if let y = g.hints {
            // Which track the audition replaces, at the right end, so the change in sound is never a surprise.
            let hear = state.audition ? (view.ascii ? "hear t" : "♪ track ") + String(session.currentTrack + 1) : ""
            let room = g.width - 1 - (hear.isEmpty ? 0 : hear.count + 2)
            c.put(1, y, hints(state: state, view: view, width: room), .dim)
            if !hear.isEmpty, g.width > hear.count { c.put(g.width - hear.count, y, hear, .accent) }
        }
    }

    /// `343 486 343 486 514` (ms), then `swing 1.40:1` for a two-dot result.
    static func intervalsText(_ t: Temperament, tempo: Double) -> String {
        let iois = t.intervals()
        guard !iois.isEmpty else { return "no paired beats" }
        let scale = 1000 / (tempo > 0 ? tempo : 1)
        // Intervals are bounded by the limits, but a value past Int's range prints as a number, never traps.
        var s = iois.map { ms in
            let v = (ms * scale).rounded()
            return abs(v) < 1e15 ? String(Int(v)) : DocumentFile.number(v)
        }.joined(separator: " ")
        if let r = t.swingRatio() { s += "  swing " + String(format: "%.2f", r) + ":1" }
        return s
    }

    /// The pairs as `0-0 1-1 3-2`, the pair being edited in the cursor's role, and a note on unpaired beats.
    static func drawMap(_ t: Temperament, state: DesignerState, y: Int, x: Int, width: Int, glyphs: Glyphs, into c: inout Canvas) {
        let editing = state.focus == .map ? chosenTop(t, state.mapCursor) : nil
        var col = x
        let limit = x + width
        var items: [(String, Role)] = []
        for top in t.top.beats {
            let partners = t.pairs.filter { $0.top == top }.map(\.bottom)
            if partners.isEmpty {
                if editing == top { items.append(("\(top)-?", .cursor)) }
                continue
            }
            for b in partners { items.append(("\(top)-\(b)", editing == top ? .cursor : .normal)) }
        }
        let (ut, ub) = t.unpaired
        if ut + ub > 0 { items.append(("+\(ut + ub) unpaired", .warning)) }
        for (k, item) in items.enumerated() {
            let gap = k == 0 ? 0 : 1
            // Keep a column for the ellipsis unless this is the last item.
            let room = limit - col - gap - (k == items.count - 1 ? 0 : 1)
            guard item.0.count <= room else {
                if col < limit { c[col, y] = Cell(glyphs.ellipsis, .dim) }
                break
            }
            col += gap
            col = c.put(col, y, item.0, item.1)
        }
    }

    /// The keys of the focused row, from the key map in force.
    /// The keys of the focused row that fit whole in `width` columns (a hint cut mid-word reads as nonsense).
    static func hints(state: DesignerState, view: ViewState, width: Int) -> String {
        var out = ""
        for item in hintItems(state: state, view: view) {
            let next = out.isEmpty ? item : out + "  " + item
            if next.count > width { break }
            out = next
        }
        return out
    }

    static func hints(state: DesignerState, view: ViewState) -> String {
        hintItems(state: state, view: view).joined(separator: "  ")
    }

    static func hintItems(state: DesignerState, view: ViewState) -> [String] {
        let items: [(String, String)]
        switch state.focus {
        case .top, .bottom:
            items = [("designer.beat.toggle", "toggle"), ("designer.division.up", "div+"), ("designer.division.down", "div-"),
                     ("designer.euclid.ask", "euclid"), ("designer.rotate", "rotate-left"),
                     ("designer.rotate.right", "rotate-right"), ("designer.row", "row")]
        case .map:
            items = [("designer.division.up", "partner+"), ("designer.division.down", "partner-"),
                     ("designer.map.nearest", "nearest"), ("designer.map.clear", "unpair"),
                     ("designer.map.reset", "default"), ("designer.row", "row")]
        case .slider:
            items = [("designer.slider.up", "s+"), ("designer.slider.down", "s-"), ("designer.stamp", "stamp"),
                     ("designer.apply", "apply"), ("designer.morph", "morph"), ("designer.preset.next", "preset"),
                     ("designer.row", "row")]
        }
        return items.compactMap { a, word in view.key(a).map { "\($0) \(word)" } }
    }

    static func link(from a: Int, to b: Int, ascii: Bool) -> Character {
        if a == b { return ascii ? "|" : "│" }
        if b > a { return ascii ? "\\" : "╲" }
        return ascii ? "/" : "╱"
    }

    /// Cuts text to `width` columns, ending in an ellipsis when cut.
    static func fit(_ s: String, _ width: Int, _ g: Glyphs) -> String {
        guard width > 0 else { return "" }
        guard s.count > width else { return s }
        return String(s.prefix(width - 1)) + String(g.ellipsis)
    }

    /// The chosen top beat at position k of the chosen beats (clamped), nil when none is chosen.
    static func chosenTop(_ t: Temperament, _ k: Int) -> Int? {
        guard !t.top.beats.isEmpty else { return nil }
        return t.top.beats[min(max(k, 0), t.top.beats.count - 1)]
    }

    /// Slider and amplitude keys land on hundredths, so repeated steps never drift (0.1 + 0.05 shows 0.15).
    static func hundredths(_ x: Double) -> Double { (x * 100).rounded() / 100 }

    // MARK: - Playback

    /// The document playback should hear: while auditioning, the current track's loop region replaced by
    /// the temperament repeated every span (contents from the markers replaced, or the chosen clip), so each
    /// slider step is heard from the next event on; otherwise the session's document.
    public static func playbackDocument(session: Session, state: DesignerState) -> Document {
        guard state.audition else { return session.document }
        return session.document.designer.audition(document: session.document, track: session.currentTrack,
                                                  fallback: auditionContent(session.chosenClip))
    }

    /// The document playback should hear with the editor in `view`: the audition while the designer tab is
    /// shown, else the session's document.
    public static func playbackDocument(session: Session, view: ViewState) -> Document {
        isAuditioning(view) ? playbackDocument(session: session, state: view.designer) : session.document
    }

    /// The designer is heard only while it has the keys (its tab shown and focused) and its audition is on:
    /// with the keys back on the timeline, the timeline is what plays.
    public static func isAuditioning(_ view: ViewState) -> Bool {
        view.tab == .designer && view.focus == .tab && view.designer.audition
    }

    /// What the audition depends on besides the document: when it changes, playback needs a new document.
    public struct AuditionKey: Hashable, Sendable {
        public var track: Int
        public var clip: Content
    }

    /// The audition's key with the editor in `view`, nil when nothing is auditioned.
    public static func auditionKey(session: Session, view: ViewState) -> AuditionKey? {
        guard isAuditioning(view) else { return nil }
        return AuditionKey(track: session.currentTrack, clip: session.chosenClip)
    }

    /// Holds and rests would make the audition silent: they fall back to clip 1.
    static func auditionContent(_ c: Content) -> Content {
        switch c {
        case .clip, .random: return c
        case .hold, .rest: return .clip(1)
        }
    }
}

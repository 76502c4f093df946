/// The tab titles on the top edge of the tab area: the shown tab in brackets.
enum TabBar {
    static func draw(view: ViewState, layout l: Layout, _ g: Glyphs, into canvas: inout Canvas) -> [Spot] {
        var spots: [Spot] = []
        let y = l.toolsTitleRow
        var x = l.dividerX + 2
        let room = l.width - 2 - x
        // Long titles when they all fit, else the short ones, else the shortest set close together.
        let long = Tab.allCases.reduce(0) { $0 + $1.label.count + 2 } <= room
        let short = Tab.allCases.reduce(0) { $0 + $1.shortLabel.count + 2 } <= room
        for (i, tab) in Tab.allCases.enumerated() {
            let shown = tab == view.tab
            let role: Role = shown ? (view.focus == .tab ? .titleActive : .tabActive) : .tab
            let text: String
            if long || short {
                let label = long ? tab.label : tab.shortLabel
                text = shown ? "[\(label)]" : " \(label) "
            } else {
                if i > 0 { x = canvas.put(x, y, " ", .tab) }
                text = shown ? "[\(tab.tinyLabel)]" : tab.tinyLabel
            }
            let start = x
            x = canvas.put(x, y, text, role)
            spots.append(Spot(Rect(x: start, y: y, width: x - start, height: 1), .tab(tab)))
        }
        return spots
    }
}

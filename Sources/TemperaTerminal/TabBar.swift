/// The tab titles on the top edge of the tab area: the shown tab in brackets.
enum TabBar {
    static func draw(view: ViewState, layout l: Layout, _ g: Glyphs, into canvas: inout Canvas) -> [Spot] {
        var spots: [Spot] = []
        let y = l.toolsTitleRow
        var x = l.dividerX + 2
        // Long titles when they all fit, else the short ones.
        let long = Tab.allCases.reduce(0) { $0 + $1.label.count + 2 } <= l.width - 2 - x
        for tab in Tab.allCases {
            let shown = tab == view.tab
            let label = long ? tab.label : tab.shortLabel
            let text = shown ? "[\(label)]" : " \(label) "
            let role: Role = shown ? (view.focus == .tab ? .titleActive : .tabActive) : .tab
            let start = x
            x = canvas.put(x, y, text, role)
            spots.append(Spot(Rect(x: start, y: y, width: x - start, height: 1), .tab(tab)))
        }
        return spots
    }
}

/// A clickable rectangle a pane drew, with what a click there means. Panes return their spots while
/// drawing, so hit-testing always matches what is on screen.
struct Spot {
    var rect: Rect
    /// The hit for a cell inside `rect` (sliders and the timeline depend on the exact cell).
    var hit: (_ x: Int, _ y: Int) -> Hit

    init(_ rect: Rect, _ hit: @escaping (_ x: Int, _ y: Int) -> Hit) {
        self.rect = rect
        self.hit = hit
    }

    init(_ rect: Rect, _ hit: Hit) {
        self.rect = rect
        self.hit = { _, _ in hit }
    }
}

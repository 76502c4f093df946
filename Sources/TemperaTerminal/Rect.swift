/// A rectangle of cells on the screen: where a pane or one of its hot spots lies.
public struct Rect: Hashable, Sendable {
    /// The top-left cell, 0-based from the screen's top-left corner.
    public var x: Int
    public var y: Int
    /// Size in cells, never negative.
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(width, 0)
        self.height = max(height, 0)
    }

    /// The empty rectangle at the origin.
    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    /// The first column and row past the rectangle.
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    /// True when it holds no cell.
    public var isEmpty: Bool { width == 0 || height == 0 }

    /// True when the cell (x, y) lies inside.
    public func contains(x px: Int, y py: Int) -> Bool {
        px >= x && px < maxX && py >= y && py < maxY
    }
}

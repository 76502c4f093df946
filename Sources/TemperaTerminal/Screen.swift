/// Where the editor shows its frames and reads its input: a terminal through curses, or memory in tests.
///
/// - Warning: main (editor) thread only.
public protocol Screen: AnyObject {
    /// The size in cells, as of the last `resize` event.
    var width: Int { get }
    var height: Int { get }
    /// False when the terminal cannot show Unicode (a non-UTF-8 locale): panes then draw ASCII.
    var unicode: Bool { get }
    /// Shows a frame. `cursor` places the terminal's cursor (the `:` line); nil hides it.
    func present(_ canvas: Canvas, cursor: (x: Int, y: Int)?)
    /// The next input, waiting at most `timeout` milliseconds (negative: wait until there is some);
    /// nil when the time ran out.
    func readInput(timeout: Int) -> InputEvent?
}

import Foundation

/// A tmux server of its own (by socket name) holding one session `t` of a fixed size: keys sent as a
/// terminal sends them, mouse clicks as SGR reports, the screen read with capture-pane.
public struct TmuxSession {
    /// The server's socket name (`tmux -L`).
    public let server: String

    public init(server: String) { self.server = server }

    /// Runs a tmux command on this server and returns its standard output.
    @discardableResult
    public func tmux(_ arguments: [String]) -> String {
        Spawn.run("/usr/bin/tmux", ["-L", server] + arguments).stdout
    }

    /// Starts session `t` at `width` x `height` running `command` through the shell, with no tmux
    /// configuration file.
    public func start(_ command: String, width: Int, height: Int) {
        tmux(["-f", "/dev/null", "new-session", "-d", "-x", "\(width)", "-y", "\(height)", "-s", "t", command])
    }

    /// The screen as text (with its colour escapes when `escapes`).
    public func screen(escapes: Bool = false) -> String {
        tmux(["capture-pane", "-p"] + (escapes ? ["-e"] : []) + ["-t", "t"])
    }

    /// Sends keys by tmux's names (`Space`, `C-s`, `F4`), one after another.
    public func keys(_ names: [String]) {
        for n in names { tmux(["send-keys", "-t", "t", n]) }
    }

    /// A key held down: `times` presses sent at once, as a terminal's key repeat sends them (one after another
    /// through `keys`, a loaded machine may leave seconds between two).
    public func hold(_ name: String, times: Int) { tmux(["send-keys", "-t", "t", "-N", String(times), name]) }

    /// Types text literally.
    public func type(_ text: String) { tmux(["send-keys", "-t", "t", "-l", text]) }

    /// A left click at a screen cell (0-based), as a terminal reports it in SGR mode.
    public func click(x: Int, y: Int) {
        type("\u{1b}[<0;\(x + 1);\(y + 1)M")
        type("\u{1b}[<0;\(x + 1);\(y + 1)m")
    }

    /// A left-button drag as a terminal reports it in SGR mode (any-event tracking): the press at `from`, a motion
    /// report at each cell of `through` and at `to`, and the release at `to` (cells 0-based).
    public func drag(from: (x: Int, y: Int), through: [(x: Int, y: Int)] = [], to: (x: Int, y: Int)) {
        type("\u{1b}[<0;\(from.x + 1);\(from.y + 1)M")
        for p in through + [to] { type("\u{1b}[<32;\(p.x + 1);\(p.y + 1)M") }
        type("\u{1b}[<0;\(to.x + 1);\(to.y + 1)m")
    }

    /// Polls the screen until `predicate` holds, at most `timeout` seconds: whether it held, and the last
    /// screen read.
    public func wait(timeout: Double, until predicate: (String) -> Bool) -> (met: Bool, screen: String) {
        let end = Date().addingTimeInterval(timeout)
        var s = screen()
        while !predicate(s) {
            if Date() > end { return (false, s) }
            usleep(40_000)
            s = screen()
        }
        return (true, s)
    }

    /// Ends the server and everything running in it.
    public func kill() { tmux(["kill-server"]) }
}

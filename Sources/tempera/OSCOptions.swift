import ArgumentParser
import TemperaOSC

/// `--osc PORT` and `--osc-listen ADDR`, shared by the editor, `play` and `serve`.
struct OSCOptions: ParsableArguments {
    @Option(name: .customLong("osc"), help: ArgumentHelp(
        "Listen for OSC on this UDP port: /tempera/command s runs a command line and answers /tempera/reply s; "
            + "/tempera/play, /tempera/stop, /tempera/locate f; /tempera/subscribe sends /tempera/state f f i "
            + "(position, tempo, playing) 20 times a second.", valueName: "port"))
    var port: Int?

    @Option(name: .customLong("osc-listen"), help: ArgumentHelp("With --osc: the address to listen on.", valueName: "addr"))
    var listen = "127.0.0.1"

    /// The OSC front end, listening; nil without `--osc`. `wakeup` is called (on the reading thread) when a
    /// message arrives.
    func start(wakeup: @escaping @Sendable () -> Void) throws -> OSCControl? {
        guard let port else { return nil }
        return OSCControl(server: try OSCServer(listen: listen, port: port, arrived: wakeup))
    }
}

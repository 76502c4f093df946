import ArgumentParser
import TemperaCore

/// `tempera analyse FILE`: each marker's subdivision limit as JSON lines.
struct AnalyseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyse",
        abstract: "Print each marker's subdivision limit as JSON lines.",
        discussion: """
            One line per marker, track by track in time order: \
            {"track":1,"t":0.333333,"bar":1,"beat":1,"n":3,"k":2,"dev_ms":0.0,"on_grid":true}. With beat b and \
            tempo x, p = t/b beats; for n in 1...9, k_n = round(p*n) and d_n = (p - k_n/n)*b/x seconds. The limit \
            is the smallest n with |d_n| <= 6 ms, else the n with the smallest |d_n| (ties to the smaller n). Bar \
            and beat count from 1 (meter beats a bar, from time 0); k counts from the beat's start, so k/n is the \
            position inside the beat (a marker rounding to the next beat is that beat's k = 0); dev_ms is d_n in \
            milliseconds to a tenth, positive when late; on_grid says |d_n| <= 6 ms. t is seconds at tempo x1. With a \
            tempo map, d_n is play time: the map's integral of du / tempo(u) from the grid point k_n/n beats to t.
            """,
        aliases: ["analyze"])

    @Argument(help: "The document.")
    var file: String

    func run() throws {
        let document = try CommandLineFailure.loadDocument(file)
        var out = ""
        out.reserveCapacity(1 << 16)
        let t = document.transport
        let pieces = t.tempoMap.isEmpty ? [] : t.tempoMap.pieces(base: t.tempo)
        for (i, track) in document.tracks.enumerated() {
            for m in track.markers {
                out += SubdivisionLimit(time: m.time, transport: t, pieces: pieces).json(track: i + 1, time: m.time) + "\n"
                if out.utf8.count >= 1 << 16 {
                    CommandLineFailure.write(out, to: 1)
                    out.removeAll(keepingCapacity: true)
                }
            }
        }
        CommandLineFailure.write(out, to: 1)
    }
}

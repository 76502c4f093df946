import ArgumentParser
import TemperaCore
#if canImport(Glibc)
import Glibc
#endif

/// `tempera events FILE [--loops N] [--sample-rate R]`: the playback schedule as JSON lines.
struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print the playback schedule as JSON lines, one per onset.",
        discussion: """
            Each line is {"loop":K,"track":T,"clip":C,"amp":A,"time":S,"frame":F}: tracks count from 1, '?' clips \
            are resolved from the document's seed, rests and holds are not onsets. For loop k over the loop region \
            [A, B), a marker at t sounds at time = (k*(B-A) + (t-A)) / tempo seconds, frame = round(time * rate). \
            With the loop off, the region is 0 to the document's length.
            """)

    @Argument(help: "The document.")
    var file: String

    @Option(help: "How many passes over the loop region.")
    var loops = 1

    @Option(name: .customLong("sample-rate"), help: "Frames per second.")
    var sampleRate = 48_000

    func run() throws {
        guard (0...1_000_000).contains(loops) else {
            throw CommandLineFailure.report("tempera: --loops must be from 0 to 1000000, not \(loops)")
        }
        guard (1...1_536_000).contains(sampleRate) else {
            throw CommandLineFailure.report("tempera: --sample-rate must be from 1 to 1536000, not \(sampleRate)")
        }
        let document = try CommandLineFailure.loadDocument(file)
        let schedule = Schedule(document: document, sampleRate: Double(sampleRate))
        // Every frame must fit an Int64; only absurd loop counts on very long regions come near.
        guard Double(loops) * schedule.span / schedule.tempo * Double(sampleRate) < 0x1p62 else {
            throw CommandLineFailure.report("tempera: \(loops) loops of this document run past the last sample frame")
        }
        var out = ""
        out.reserveCapacity(1 << 16)
        for k in 0..<loops {
            for onset in schedule.onsets(pass: k) {
                out += "{\"loop\":\(onset.loop),\"track\":\(onset.track),\"clip\":\(onset.clip),"
                    + "\"amp\":\(DocumentFile.number(onset.amp)),\"time\":\(DocumentFile.number(onset.time)),"
                    + "\"frame\":\(onset.frame)}\n"
                if out.utf8.count >= 1 << 16 {
                    CommandLineFailure.write(out, to: 1)
                    out.removeAll(keepingCapacity: true)
                }
            }
        }
        CommandLineFailure.write(out, to: 1)
    }
}

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

            With --song, the document's song plays instead: each line gains "section" (from 1) and "pass" (the \
            section's pass, from 0), and "loop" counts passes of the whole song. Pass k of section j (region \
            [A_j, B_j), tempo t_j) plays a marker at t at time = sum of D_i for i < j + (k*(B_j-A_j) + (t-A_j)) / t_j, \
            D_i = R_i*(B_i-A_i)/t_i; pass m of the song adds m times the sum of every D_i.

            Where the tempo bends (a tempo map, a section's ramp) each division by a tempo becomes the play time \
            P(a, b), the integral of du / tempo(u) in closed form: loop pass k of a marker at t sounds at \
            k*P(A,B) + P(A,t); a ramping section at the integral over its musical position k*(B-A) + (t-A). A track \
            with its own cycle or ratio runs across the passes: its marker at t on cycle m sits at \
            (m*(d-c) + (t-c)) / R from the start of the playing (or of the section).
            """)

    @Argument(help: "The document.")
    var file: String

    @Option(help: "How many passes over the loop region (with --song: of the whole song).")
    var loops = 1

    @Flag(help: "Play the document's song (its sections) instead of the loop.")
    var song = false

    @Option(name: .customLong("sample-rate"), help: "Frames per second.")
    var sampleRate = 48_000

    func run() throws {
        guard (0...1_000_000).contains(loops) else {
            throw CommandLineFailure.report("tempera: --loops must be from 0 to 1000000, not \(loops)")
        }
        guard (1...1_536_000).contains(sampleRate) else {
            throw CommandLineFailure.report("tempera: --sample-rate must be from 1 to 1536000, not \(sampleRate)")
        }
        let document = try CommandLineFailure.loadDocument(file, song: song)
        if song { return try printSong(document) }
        let timing = Schedule.withoutEvents(document, sampleRate: Double(sampleRate))
        // Every frame must fit an Int64; only absurd loop counts on very long regions come near.
        guard Double(loops) * timing.time(pass: 1, time: 0) * Double(sampleRate) < 0x1p62 else {
            throw CommandLineFailure.report("tempera: \(loops) loops of this document run past the last sample frame")
        }
        var out = LineBuffer()
        // Compiled a window at a time: millions of markers are listed without their whole schedule in memory.
        try Schedule.forEachOnset(document: document, sampleRate: Double(sampleRate), loops: loops) { onset in
            try out.append("{\"loop\":\(onset.loop),\"track\":\(onset.track),\"clip\":\(onset.clip),"
                + "\"amp\":\(DocumentFile.number(onset.amp)),\"time\":\(DocumentFile.number(onset.time)),"
                + "\"frame\":\(onset.frame)}\n")
        }
        try out.flush()
    }

    /// `--song`: the song's onsets, each line with its section and pass.
    func printSong(_ document: Document) throws {
        let schedule = SongSchedule(document: document, sampleRate: Double(sampleRate))
        guard Double(loops) * schedule.timing.total * Double(sampleRate) < 0x1p62 else {
            throw CommandLineFailure.report("tempera: \(loops) passes of this song run past the last sample frame")
        }
        var out = LineBuffer()
        for m in 0..<loops {
            for onset in schedule.onsets(songPass: m) {
                try out.append("{\"loop\":\(onset.loop),\"section\":\(onset.section),\"pass\":\(onset.pass),"
                    + "\"track\":\(onset.track),\"clip\":\(onset.clip),"
                    + "\"amp\":\(DocumentFile.number(onset.amp)),\"time\":\(DocumentFile.number(onset.time)),"
                    + "\"frame\":\(onset.frame)}\n")
            }
        }
        try out.flush()
    }
}

/// Standard output written in 64 KiB pieces, so millions of event lines neither pile up nor cost a write each. A
/// write that fails (a full disk, a closed pipe with SIGPIPE ignored) stops the command with a one-line error and a
/// non-zero status, not a cut list that looks whole.
private struct LineBuffer {
    private var text = ""

    init() { text.reserveCapacity(1 << 16) }

    mutating func append(_ line: String) throws {
        text += line
        if text.utf8.count >= 1 << 16 { try flush() }
    }

    mutating func flush() throws {
        if let failure = CommandLineFailure.write(text, to: 1) {
            throw CommandLineFailure.report("tempera: cannot write the events: \(failure)")
        }
        text.removeAll(keepingCapacity: true)
    }
}

import ArgumentParser
import Foundation
import TemperaAudio
import TemperaCore
import TemperaStudio

/// `tempera render FILE -o OUT`: the same audio as playback, written to a file.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a document to an audio file (WAV or FLAC), exactly as playback sounds.")

    @Argument(help: "The tempera document.")
    var file: String

    @Option(name: .shortAndLong, help: "The audio file to write.")
    var output: String

    @Option(help: "Passes of the loop region to render (with --song: of the whole song).")
    var loops: Int = 1

    @Flag(help: "Render the document's song (its sections) instead of the loop.")
    var song = false

    @Option(name: .customLong("sample-rate"), help: "Output sample rate in Hz.")
    var sampleRate: Int = 48_000

    @Option(help: "wav or flac (default: from the output's extension, else wav).")
    var format: String?

    @Option(help: "Sample format: 16, 24 or 32f (32-bit float, WAV only).")
    var bits: String = "24"

    @Option(help: "Seconds the last sounds may ring out after the last pass (0: end exactly on the last pass).")
    var tail: Double = 10

    @Flag(help: "Add the metronome (a click on every beat, the accent on each bar's first beat) and the document's count-in.")
    var click = false

    @Flag(name: .customLong("true-peak"),
          help: "Hold the true (inter-sample) peak at or below -0.3 dBTP with a look-ahead limiter, not only the sample peak.")
    var truePeak = false

    func run() throws {
        guard loops >= 1 else { throw fail("--loops must be 1 or more (got \(loops))") }
        guard (8_000...192_000).contains(sampleRate) else { throw fail("--sample-rate must be 8000...192000 (got \(sampleRate))") }
        guard tail >= 0, tail <= 3600 else { throw fail("--tail must be from 0 to 3600 seconds") }
        let ext = (output as NSString).pathExtension.lowercased()
        let formatName = format?.lowercased() ?? (ext == "flac" ? "flac" : "wav")
        // The registry's writer, as the editor's `:render` writes.
        guard let writer = Formats.soundWriter(named: formatName) else {
            throw fail("--format must be wav or flac (got \(formatName))")
        }
        guard let depth = OfflineRenderer.Bits(rawValue: bits.lowercased()) else { throw fail("--bits must be 16, 24 or 32f (got \(bits))") }
        if formatName == "flac" && depth == .float32 { throw fail("FLAC holds 16 or 24 bits, not 32f") }

        var document = try CommandLineFailure.loadDocument(file, song: song)
        // The document's click setting is for the editor; on the command line the flag decides.
        document.transport.click = click
        let t = document.transport
        let span = t.loopOn ? t.loopEnd - t.loopStart : t.length
        // A pass is the loop (at most `Limits.maxLoopLength`), or with the loop off the whole timeline: bounded alike.
        guard song || span <= Limits.maxLoopLength else {
            throw fail("a pass of this document is \(Limits.seconds(span)) s (the timeline, the loop being off); "
                + "render plays at most \(Limits.seconds(Limits.maxLoopLength)) s a pass: set a loop (loop A B)")
        }
        // The slowest tempo anywhere bounds the play time (a tempo map's points, or the tempo).
        let slowest = t.tempoMap.points.map(\.tempo).reduce(t.tempo, min)
        guard Double(loops) * span / slowest * Double(sampleRate) < 0x1p62 else {
            throw fail("\(loops) loops of this document run past the last sample frame")
        }
        let base = (file as NSString).deletingLastPathComponent
        let options = Formats.WriteOptions(loops: loops, sampleRate: Double(sampleRate), bits: depth, maxTail: tail,
                                           truePeak: truePeak)
        let prepared = try writer.prepare(document, base.isEmpty ? "." : base, output, options)
        for w in prepared.warnings { warn(w) }
        let bar = ProgressBar(enabled: isatty(2) != 0, label: (output as NSString).lastPathComponent)
        do {
            try prepared.write { bar.update($0) }
        } catch {
            bar.finish()
            throw fail("\(error)")
        }
        bar.finish()
    }
}

/// A one-line progress bar on stderr, redrawn only when it changes; silent when stderr is not a terminal.
final class ProgressBar {
    private let enabled: Bool
    private let label: String
    private var shown = -1

    init(enabled: Bool, label: String) {
        self.enabled = enabled
        self.label = label
    }

    func update(_ fraction: Double) {
        guard enabled else { return }
        let percent = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
        guard percent != shown else { return }
        shown = percent
        let width = 30, filled = percent * width / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        FileHandle.standardError.write("\r\(label) [\(bar)] \(percent)%".data(using: .utf8)!)
    }

    func finish() {
        guard enabled, shown >= 0 else { return }
        FileHandle.standardError.write("\n".data(using: .utf8)!)
        shown = -1
    }
}

/// Prints `tempera: MESSAGE` on stderr.
func warn(_ message: String) {
    CommandLineFailure.write(CommandLineFailure.oneLine("tempera: \(message)") + "\n", to: 2)
}

/// Prints `tempera: MESSAGE` on stderr; the result, thrown, exits with status 1.
func fail(_ message: String) -> ExitCode {
    CommandLineFailure.report("tempera: \(message)")
}

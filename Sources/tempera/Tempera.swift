import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// The command line: the editor by default, and the headless tools beside it.
@main
struct Tempera: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "tempera",
        abstract: "A terminal editor for irregular rhythms: grid markers at any time, clips on them, "
            + "rhythmic temperaments, loop playback.",
        version: version,
        subcommands: [EditCommand.self, ScriptCommand.self, EventsCommand.self, RenderCommand.self, PlayCommand.self,
                      ServeCommand.self, JoinCommand.self, ExportCommand.self, ImportCommand.self,
                      AnalyseCommand.self, LinkCommand.self],
        defaultSubcommand: EditCommand.self
    )

    static func main() {
        // Past a file-size limit (`ulimit -f`) a write then fails with EFBIG, which every writer reports in one
        // line (the target untouched), instead of the signal ending tempera without a word.
        signal(SIGXFSZ, SIG_IGN)
        main(nil)
    }
}

import ArgumentParser

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
}

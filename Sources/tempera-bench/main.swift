// Benchmarks: run with `swift run -c release tempera-bench`. Each section prints its figures. With section names
// (core, file, audio, song, terminal, jack) only those run.
let asked = Set(CommandLine.arguments.dropFirst().map { $0.lowercased() })
func wanted(_ name: String) -> Bool { asked.isEmpty || asked.contains(name) }
if wanted("core") { CoreBench.run() }
if wanted("file") { FileBench.run() }
if wanted("audio") { AudioBench.run() }
if wanted("song") {
    SongBench.run()
    SongBench.runRamped()
}
if wanted("terminal") { TerminalBench.run() }
if wanted("jack") { JackBench.run() }

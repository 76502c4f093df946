// Benchmarks: run with `swift run -c release tempera-bench [SECTION...]`, sections `core`, `files`, `audio`,
// `song`, `ramped`, `terminal`, `jack`, `samples`, `startup` (all of them when none is named). Each section prints
// its figures.
let sections: [(String, () -> Void)] = [
    ("core", CoreBench.run), ("files", FileBench.run), ("audio", AudioBench.run), ("song", SongBench.run),
    ("ramped", SongBench.runRamped), ("terminal", TerminalBench.run), ("jack", JackBench.run),
    ("samples", SampleBench.run), ("startup", SampleBench.startup),
]
let asked = Set(CommandLine.arguments.dropFirst())
for (name, run) in sections where asked.isEmpty || asked.contains(name) { run() }

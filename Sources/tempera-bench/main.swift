// Benchmarks: run with `swift run -c release --static-swift-stdlib tempera-bench [SECTION...]` (as `make bench`
// builds), sections `core`, `files`, `audio`, `song`, `ramped`, `terminal`, `jack`, `samples`, `startup`,
// `renders`, `markers` (all of them when none is named). Each section prints its figures.
import Foundation

let sections: [(name: String, help: String, run: () -> Void)] = [
    ("core", "commands, undo and redo on documents of 1,000 and 100,000 markers", CoreBench.run),
    ("files", "loading and saving documents of 1,000 and 100,000 markers", FileBench.run),
    ("audio", "offline render speed, 64 voices, allocations in the render path", AudioBench.run),
    ("song", "a 100-section song: its schedule, an edit while it plays", SongBench.run),
    ("ramped", "the same song with a tempo map of 1,000 points and ramps", SongBench.runRamped),
    ("terminal", "drawing a full editor frame", TerminalBench.run),
    ("jack", "the JACK process callback; MIDI in and pad keys to sound", JackBench.run),
    ("samples", "loading a kit's samples: converted cold, from the disk cache warm", SampleBench.run),
    ("startup", "the program's start-up against h2cli --help: wall and CPU time, the ratio", StartupBench.run),
    ("renders", "rendering each Hydrogen demo song at 48 and 44.1 kHz against h2cli, whole processes", StartupBench.renders),
    ("markers", "bytes a marker holds; peak memory with a million (script, load and save, events)", MarkerBench.run),
]
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains(where: { $0 == "--help" || $0 == "-h" }) {
    print("usage: tempera-bench [SECTION...]   (every section when none is named)")
    for s in sections { print("  " + s.name.padding(toLength: 10, withPad: " ", startingAt: 0) + s.help) }
    exit(0)
}
if let unknown = arguments.first(where: { a in !sections.contains { $0.name == a } }) {
    FileHandle.standardError.write(Data(("tempera-bench: no section '\(unknown)' (sections: "
        + sections.map(\.name).joined(separator: ", ") + "; --help)\n").utf8))
    exit(2)
}
let asked = Set(arguments)
for s in sections where asked.isEmpty || asked.contains(s.name) { s.run() }

// Benchmarks: run with `swift run -c release tempera-bench`. Each section prints its figures.
CoreBench.run()
FileBench.run()
AudioBench.run()
SongBench.run()
SongBench.runRamped()
TerminalBench.run()

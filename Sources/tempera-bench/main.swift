// Benchmarks: run with `swift run -c release tempera-bench`. Each section prints its figures.
CoreBench.run()
AudioBench.run()
TerminalBench.run()

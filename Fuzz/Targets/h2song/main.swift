import CFuzzDriver
import Glibc

// libFuzzer runs the rest: see LLVMFuzzerTestOneInput beside this file.
exit(tempera_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv))

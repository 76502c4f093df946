import CFuzzDriver
import Glibc

// libFuzzer runs the rest, calling this for each input: see fuzzScript beside this file (which the tests also run
// over the seed corpus, so it cannot stop compiling unnoticed).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt { fuzzScript(data, size) }

exit(tempera_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv))

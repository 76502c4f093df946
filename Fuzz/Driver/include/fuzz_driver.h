#ifndef TEMPERA_FUZZ_DRIVER_H
#define TEMPERA_FUZZ_DRIVER_H

/// Runs libFuzzer over the program's LLVMFuzzerTestOneInput with the program's arguments. A SwiftPM executable
/// always has a Swift `main`, which takes the place of libFuzzer's own; this hands control to libFuzzer.
int tempera_fuzz_main(int argc, char **argv);

#endif

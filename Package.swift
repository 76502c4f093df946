// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "tempera",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tempera", targets: ["tempera"]),
        .executable(name: "tempera-bench", targets: ["tempera-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // C libraries, one system-library target each; static inline shims live in their headers.
        // ncursesw is linked by name (its module map): its pkg-config flags are only defines and -pthread, which
        // SwiftPM refuses with a warning on every build (the wide-character API the defines would bring is asked
        // for in CNcursesw's header; Debian's libncursesw.so brings libtinfo).
        .systemLibrary(name: "CNcursesw", providers: [.apt(["libncursesw5-dev"])]),
        // libpulse and libjack are not linked but opened the first time one of their functions is called: each
        // target defines the functions the program calls (checked against the library's own header) over
        // `dlopen`, so a command that plays nothing, or plays through the other server, starts without mapping
        // them and the thirty libraries they bring. Headers from libpulse-dev and libjack-jackd2-dev.
        .target(name: "CPulse"),
        .target(name: "CJack"),
        .systemLibrary(name: "CXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile",
                       providers: [.apt(["libsndfile1-dev"])]),
        // Onset detection for importing recordings (`tempera import LOOP.wav`): libaubio is not linked but opened
        // when onsets are first detected (its header declares the few functions used), so the program never maps
        // it, nor the codec libraries it brings, unless it imports a recording. Needs Debian's libaubio5 at run time.
        .systemLibrary(name: "CAubio"),
        // OSC messages encoded and decoded (`--osc`): liblo, as Hydrogen, Ardour and Carla use it.
        .systemLibrary(name: "CLiblo", pkgConfig: "liblo", providers: [.apt(["liblo-dev"])]),
        .systemLibrary(name: "CSamplerate", pkgConfig: "samplerate",
                       providers: [.apt(["libsamplerate0-dev"])]),
        // Linked by name: fluidsynth's pkg-config pulls in glib's and SDL's include paths, which its header
        // does not need.
        .systemLibrary(name: "CFluidSynth", providers: [.apt(["libfluidsynth-dev"])]),
        // Ableton Link (header-only C++, `ableton-link-dev`) behind a small `extern "C"` face.
        .target(name: "CLink", cxxSettings: [.define("LINK_PLATFORM_LINUX", to: "1")],
                linkerSettings: [.linkedLibrary("pthread")]),

        // The document, commands, undo, command language, temperaments, schedule compiler: pure Swift.
        .target(name: "TemperaCore", linkerSettings: [.linkedLibrary("m")]),
        // The player as the editor and the command-line players see it: the `Player` protocol, its status snapshot,
        // the playhead clock and pad hits, and the controller that decides when to republish. No C, no engine.
        .target(name: "TemperaPlayback", dependencies: ["TemperaCore"]),
        // Samples, voices, mixer, the engine and its output backends; the engine implements `Player`.
        .target(name: "TemperaAudio", dependencies: ["TemperaCore", "TemperaPlayback", "CPulse", "CSndfile", "CSamplerate",
                                                     "CFluidSynth", "CLink", "CJack", "CAubio"]),
        // Hydrogen drumkits and songs, read with libxml2 where they are installed.
        .target(name: "TemperaKits", dependencies: ["TemperaCore", "TemperaXML"]),
        // libxml2 behind a small element tree (its own module: see XMLTree).
        .target(name: "TemperaXML", dependencies: ["CXML2"]),
        // Sharing a document over TCP: the host, participants and their line protocol (Dispatch, no C).
        .target(name: "TemperaNet", dependencies: ["TemperaCore"]),
        // The shipped themes (the top-level Themes/, reached through the link Sources/TemperaShipped/Themes) and the
        // default key map (Sources/TemperaShipped/Keymaps), compiled in as bytes.
        .target(name: "TemperaShipped", resources: [.embedInCode("Themes"), .embedInCode("Keymaps")]),
        // The application core every front end drives: the document's file (open, save, recovery files, changes
        // from outside) and the file formats (one registry for import, export and render). Below the terminal,
        // above the engine, kits and net.
        .target(name: "TemperaStudio", dependencies: ["TemperaCore", "TemperaPlayback", "TemperaAudio", "TemperaKits"]),
        // OSC as a front end (`--osc PORT`): messages become command lines run by the editor, `play` or `serve`.
        .target(name: "TemperaOSC", dependencies: ["TemperaCore", "TemperaPlayback", "TemperaStudio", "CLiblo"]),
        // Screen, panes, key maps, themes, the editor loop. It plays through `Player` and reaches files through
        // TemperaStudio only: it must not import the engine, kits or net.
        .target(name: "TemperaTerminal", dependencies: ["TemperaCore", "TemperaPlayback", "TemperaStudio", "TemperaShipped",
                                                        "CNcursesw"]),

        // What the subcommands run beyond their flags, where unit tests reach it: the editor on a shared document
        // (`join`, `edit --serve`), pads played from a feed (`play --pads`). Through `Player` only.
        .target(name: "TemperaApp", dependencies: ["TemperaCore", "TemperaPlayback", "TemperaNet", "TemperaTerminal",
                                                   "TemperaOSC"]),

        .executableTarget(name: "tempera", dependencies: [
            "TemperaCore", "TemperaAudio", "TemperaTerminal", "TemperaKits", "TemperaNet", "TemperaApp", "TemperaStudio",
            "TemperaOSC", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "tempera-bench", dependencies: ["TemperaCore", "TemperaAudio", "TemperaTerminal", "TemperaKits",
                                                                "CAllocCounter", "CFluidSynth", "CJack"]),
        // Counts allocations (for the benchmark's proof that the render path makes none).
        .target(name: "CAllocCounter"),
        // Synthesises the default kit into Samples/ (`make kit`).
        .executableTarget(name: "tempera-kit", dependencies: ["TemperaCore", "TemperaAudio", "CSndfile"]),

        // What the audio and terminal tests share: the private PulseAudio server and its recorder, onsets,
        // tmux sessions, the built program's path.
        .target(name: "TemperaTestSupport", dependencies: ["TemperaAudio", "TemperaPlayback", "TemperaCore"], path: "Tests/TemperaTestSupport"),
        .testTarget(name: "TemperaCoreTests", dependencies: ["TemperaCore", "TemperaTestSupport"]),
        .testTarget(name: "TemperaStudioTests", dependencies: ["TemperaStudio", "TemperaAudio", "TemperaCore"]),
        .testTarget(name: "TemperaKitsTests", dependencies: ["TemperaKits", "TemperaCore", "TemperaAudio",
                                                            "TemperaTerminal", "TemperaTestSupport"]),
        .testTarget(name: "TemperaNetTests", dependencies: ["TemperaNet", "TemperaCore", "TemperaTestSupport"]),
        .testTarget(name: "TemperaPlaybackTests", dependencies: ["TemperaPlayback", "TemperaAudio", "TemperaCore",
                                                                 "TemperaTestSupport"]),
        .testTarget(name: "TemperaAppTests", dependencies: ["TemperaApp", "TemperaOSC", "TemperaPlayback", "TemperaAudio", "TemperaCore",
                                                            "TemperaNet", "TemperaTerminal", "TemperaTestSupport"]),
        .testTarget(name: "TemperaAudioTests", dependencies: ["TemperaAudio", "TemperaCore", "TemperaTestSupport"]),
        .testTarget(name: "TemperaTerminalTests", dependencies: ["TemperaTerminal", "TemperaStudio", "TemperaCore", "TemperaAudio",
                                                                 "TemperaPlayback", "TemperaShipped", "TemperaTestSupport"]),
    ]
)

// The libFuzzer targets (`make fuzz`), one executable per reader. They exist only when TEMPERA_FUZZ is set, as
// `make fuzz` sets it while building them with `-sanitize=fuzzer,address` into `.build-fuzz`. Each target's
// `main` defines `LLVMFuzzerTestOneInput`, calling the target's entry function beside it, and hands over to
// libFuzzer (CFuzzDriver). Without TEMPERA_FUZZ, the entry functions (not the mains) are compiled into one test
// target that runs each over its seed corpus: `swift test` builds every fuzz target's code, so none can rot.
if Context.environment["TEMPERA_FUZZ"] != nil {
    let fuzzers: [(String, [Target.Dependency])] = [
        ("document", ["TemperaCore"]),
        ("script", ["TemperaCore"]),
        ("pattern", ["TemperaCore"]),
        ("keymap", ["TemperaTerminal"]),
        ("theme", ["TemperaTerminal"]),
        ("h2song", ["TemperaKits", "TemperaCore"]),
        ("drumkit", ["TemperaKits", "TemperaCore"]),
        ("midi", ["TemperaCore"]),
        ("protocol", ["TemperaNet", "TemperaCore"]),
    ]
    package.targets.append(.target(name: "CFuzzDriver", path: "Fuzz/Driver"))
    for (name, dependencies) in fuzzers {
        package.targets.append(.executableTarget(name: "fuzz-\(name)", dependencies: dependencies + ["CFuzzDriver"],
                                                 path: "Fuzz/Targets/\(name)"))
    }
} else {
    let fuzzers = ["document", "script", "pattern", "keymap", "theme", "h2song", "drumkit", "midi", "protocol"]
    package.targets.append(.testTarget(name: "FuzzTargetTests",
                                       dependencies: ["TemperaCore", "TemperaNet", "TemperaTerminal", "TemperaKits"],
                                       path: "Fuzz",
                                       exclude: ["Corpus", "Driver"] + fuzzers.map { "Targets/\($0)/main.swift" }))
}

import Foundation

/// Whole processes against Hydrogen's: how long `tempera --version` takes to start and end against `h2cli --help`,
/// and `tempera render` of each Hydrogen demo song (imported once) against `h2cli` rendering the same song at the
/// same rate. Each pair runs in turn (tempera, h2cli, tempera, ...) after one pair not counted, and the ratio is
/// taken pair by pair, so a machine whose speed drifts moves both sides alike; every figure is a median.
enum StartupBench {
    static let h2cli = "/usr/bin/h2cli"
    static let songs = "/usr/share/hydrogen/data/demo_songs"

    /// One run's wall and processor (user + system) seconds, from spawn to reaping.
    struct Run {
        var wall: Double
        var cpu: Double
    }

    /// The program beside this one.
    static var tempera: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tempera").path
    }

    static func run() {
        print("== Start-up")
        guard FileManager.default.isExecutableFile(atPath: tempera) else { return print("  build tempera first (\(tempera))") }
        let pairs = Int(ProcessInfo.processInfo.environment["BENCH_ROUNDS"] ?? "") ?? 21
        guard FileManager.default.isExecutableFile(atPath: h2cli) else {
            let alone = (0..<pairs).compactMap { _ in spawn([tempera, "--version"]) }
            return print(String(format: "  tempera --version: %.1f ms wall, %.1f ms CPU (median of %d)",
                                median(alone.map(\.wall)) * 1000, median(alone.map(\.cpu)) * 1000, alone.count))
        }
        compare("tempera --version", [tempera, "--version"], "h2cli --help", [h2cli, "--help"], pairs: pairs)
    }

    /// Every demo song at 48 and 44.1 kHz: tempera's render of its import against h2cli's render of the song.
    static func renders() {
        print("== Renders against h2cli (the Hydrogen demo songs)")
        let fm = FileManager.default
        guard fm.isExecutableFile(atPath: tempera) else { return print("  build tempera first (\(tempera))") }
        guard fm.isExecutableFile(atPath: h2cli), let names = try? fm.contentsOfDirectory(atPath: songs) else {
            return print("  needs h2cli and Hydrogen's demo songs (Debian's hydrogen and hydrogen-data)")
        }
        let dir = NSTemporaryDirectory() + "tempera-bench-renders-\(getpid())"
        try? fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? fm.removeItem(atPath: dir) }
        let pairs = Int(ProcessInfo.processInfo.environment["BENCH_ROUNDS"] ?? "") ?? 5
        // h2cli renders without a server (its ALSA driver is never started for an export) and keeps its settings
        // in a home of its own.
        let hydrogenEnvironment = ["HOME": dir, "JACK_NO_START_SERVER": "1"]
        for name in names.filter({ $0.hasSuffix(".h2song") }).sorted() {
            let song = songs + "/" + name, doc = dir + "/" + name.replacingOccurrences(of: ".h2song", with: ".tempera")
            guard spawn([tempera, "import", song, "-o", doc])?.wall != nil, fm.fileExists(atPath: doc) else {
                print("  \(name): the import failed")
                continue
            }
            for rate in [48_000, 44_100] {
                compare(String(format: "%@ at %.1f kHz: tempera render", name, Double(rate) / 1000),
                        [tempera, "render", doc, "--song", "--sample-rate", "\(rate)", "-o", dir + "/tempera.wav"],
                        "h2cli", [h2cli, "-s", song, "-o", dir + "/h2cli.wav", "-d", "alsa", "-r", "\(rate)"],
                        environment: hydrogenEnvironment, pairs: pairs)
            }
        }
    }

    /// Runs `a` and `b` in turn, `pairs` times after one pair not counted; prints both medians and the ratios.
    static func compare(_ aName: String, _ a: [String], _ bName: String, _ b: [String],
                        environment: [String: String] = [:], pairs: Int) {
        var ours: [Run] = [], theirs: [Run] = []
        for k in 0...pairs {
            guard let x = spawn(a), let y = spawn(b, environment: environment) else {
                return print("  \(aName): a command could not be started")
            }
            if k > 0 {
                ours.append(x)
                theirs.append(y)
            }
        }
        let wallRatio = median(zip(theirs, ours).map { $0.wall / $1.wall })
        let cpuRatio = median(zip(theirs, ours).map { $0.cpu / $1.cpu })
        print(String(format: "  %@: %.1f ms wall, %.1f ms CPU; %@: %.1f ms wall, %.1f ms CPU; %@ is %.2fx as fast "
            + "(%.2fx in CPU time; medians of %d pairs)", aName, median(ours.map(\.wall)) * 1000,
            median(ours.map(\.cpu)) * 1000, bName, median(theirs.map(\.wall)) * 1000, median(theirs.map(\.cpu)) * 1000,
            a[0] == tempera ? "tempera" : aName, wallRatio, cpuRatio, pairs))
    }

    /// Spawns `argv` with no input and its output thrown away, waits for it, and measures it; nil when it cannot
    /// be started or did not exit with 0.
    static func spawn(_ argv: [String], environment: [String: String] = [:]) -> Run? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in 0...2 {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArgs.forEach { free($0) }
            cEnv.forEach { free($0) }
        }
        var pid: pid_t = 0
        let t0 = DispatchTime.now().uptimeNanoseconds
        guard posix_spawn(&pid, argv[0], &actions, nil, cArgs, cEnv) == 0 else { return nil }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let wall = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
        guard status == 0 else { return nil }
        let seconds = { (t: timeval) in Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return Run(wall: wall, cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime))
    }

    static func median(_ xs: [Double]) -> Double { xs.isEmpty ? .nan : xs.sorted()[xs.count / 2] }
}

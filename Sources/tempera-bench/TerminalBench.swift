enum TerminalBench {
    static func run() {
        print("== Terminal (no figures yet)")
    }
}

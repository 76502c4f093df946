enum CoreBench {
    static func run() {
        print("== Core (no figures yet)")
    }
}

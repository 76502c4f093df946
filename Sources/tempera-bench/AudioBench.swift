enum AudioBench {
    static func run() {
        print("== Audio (no figures yet)")
    }
}

enum FileBench {
    static func run() {
        print("== Files (no figures yet)")
    }
}

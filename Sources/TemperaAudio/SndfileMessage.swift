import CSndfile

/// libsndfile's last error as one plain clause: its "System error : No such file or directory." reads
/// "No such file or directory", so messages stay one clean line.
func sndfileMessage(_ file: OpaquePointer? = nil) -> String {
    var text = String(cString: sf_strerror(file))
    for prefix in ["System error : ", "System error: "] where text.hasPrefix(prefix) {
        text.removeFirst(prefix.count)
    }
    while text.last == "." || text.last == " " || text.last == "\n" { text.removeLast() }
    return text
}

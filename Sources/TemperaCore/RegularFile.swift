import Foundation

/// Files tempera reads whole (samples, SoundFonts, kits) must be regular files: a FIFO with no writer would block
/// `open` for ever and a device never ends.
public enum RegularFile {
    /// Why `path` cannot be read as a regular file without risk of blocking, or nil when it can. The file is opened
    /// without blocking and what was opened is examined, so a FIFO, a device or a folder is told at once.
    public static func problem(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 { return "cannot open: \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return "cannot open: \(String(cString: strerror(errno)))" }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "is a folder, not a file"
        case S_IFIFO: return "is a pipe (FIFO), not a regular file"
        case S_IFCHR, S_IFBLK: return "is a device, not a regular file"
        case S_IFSOCK: return "is a socket, not a regular file"
        default: return "is not a regular file"
        }
    }
}

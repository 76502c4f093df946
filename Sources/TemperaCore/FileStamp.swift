import Foundation

/// What a file on disk was when it was read or written: which file it is (device and inode: an atomic save by
/// another program puts a new one in place), its size and its modification time to the nanosecond. Two stamps
/// differ when anything has written the file in between, as vim tells (it compares the same things).
public struct FileStamp: Equatable, Sendable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var seconds: Int
    public var nanoseconds: Int

    /// The stamp of `path` now (nil: no such file).
    public static func of(_ path: String) -> FileStamp? {
        var s = stat()
        guard stat(path, &s) == 0 else { return nil }
        return FileStamp(device: UInt64(s.st_dev), inode: UInt64(s.st_ino), size: Int64(s.st_size),
                         seconds: s.st_mtim.tv_sec, nanoseconds: s.st_mtim.tv_nsec)
    }
}

import CSndfile
import Foundation

extension FileOutput {
    /// The file under libsndfile, reached through its virtual I/O: what libsndfile writes in pieces of 8,190 bytes
    /// (its own buffer) is gathered here and written in runs of `runBytes`. A song of 7 MB took 862 writes, each
    /// starting mid-page, so the kernel zeroed the rest of every page it added before the next write filled it;
    /// now it takes 28. Where libsndfile moves (to write the header again at the end) or reads, the run is written
    /// out first, so the file holds exactly the bytes, in the places, libsndfile asked for.
    final class WriteBehind {
        static let runBytes = 256 << 10
        let descriptor: Int32
        private let run = UnsafeMutableRawPointer.allocate(byteCount: WriteBehind.runBytes, alignment: 4096)
        /// Where in the file the run's first byte goes, and how many bytes it holds.
        private var runStart = 0
        private var runCount = 0
        /// Where libsndfile's next read or write is.
        private var position = 0
        /// The first write that failed: its `errno` (0: none did).
        private(set) var failure: Int32 = 0

        init(descriptor: Int32) { self.descriptor = descriptor }
        deinit { run.deallocate() }

        /// Writes out what the run holds; false once a write has failed.
        @discardableResult
        func flush() -> Bool {
            if runCount > 0 && failure == 0 { _ = writeAll(run, runCount, at: runStart) }
            runStart += runCount
            runCount = 0
            return failure == 0
        }

        func write(_ bytes: UnsafeRawPointer, _ count: Int) -> Int {
            guard failure == 0 else { return 0 }
            if position != runStart + runCount || runCount + count > Self.runBytes {
                guard flush() else { return 0 }
                runStart = position
            }
            if count > Self.runBytes {
                // Larger than a run: written at once (libsndfile's pieces never are).
                let done = writeAll(bytes, count, at: position)
                guard done == count else { return done }
                position += count
                runStart = position
                return count
            }
            (run + runCount).copyMemory(from: bytes, byteCount: count)
            runCount += count
            position += count
            return count
        }

        /// Writes `count` bytes at `offset`, however many calls that takes; the bytes written (fewer once a write
        /// failed, its `errno` kept in `failure`).
        private func writeAll(_ bytes: UnsafeRawPointer, _ count: Int, at offset: Int) -> Int {
            var done = 0
            while done < count {
                let n = pwrite(descriptor, bytes + done, count - done, off_t(offset + done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    failure = n < 0 ? errno : EIO
                    break
                }
                done += n
            }
            return done
        }

        func read(_ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int {
            guard flush() else { return 0 }
            var done = 0
            while done < count {
                let n = pread(descriptor, bytes + done, count - done, off_t(position + done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                done += n
            }
            position += done
            return done
        }

        /// The file's length as libsndfile has written it: what is on disk and what the run holds.
        var length: Int {
            var st = stat()
            let onDisk = fstat(descriptor, &st) == 0 ? Int(st.st_size) : 0
            return max(onDisk, runStart + runCount)
        }

        func seek(_ offset: Int, _ whence: Int32) -> Int {
            let base = whence == SEEK_CUR ? position : whence == SEEK_END ? length : 0
            guard base + offset >= 0 else { return -1 }
            position = base + offset
            return position
        }

        func tell() -> Int { position }

        /// The user data libsndfile hands back: this writer (kept alive by its `FileOutput`).
        var userData: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

        static func from(_ userData: UnsafeMutableRawPointer?) -> WriteBehind {
            Unmanaged<WriteBehind>.fromOpaque(userData!).takeUnretainedValue()
        }

        /// libsndfile's callbacks, each reaching the `WriteBehind` its user data points to.
        static var callbacks: SF_VIRTUAL_IO {
            SF_VIRTUAL_IO(
                get_filelen: { sf_count_t(WriteBehind.from($0).length) },
                seek: { offset, whence, p in sf_count_t(WriteBehind.from(p).seek(Int(offset), whence)) },
                read: { bytes, count, p in sf_count_t(WriteBehind.from(p).read(bytes!, Int(count))) },
                write: { bytes, count, p in sf_count_t(WriteBehind.from(p).write(bytes!, Int(count))) },
                tell: { sf_count_t(WriteBehind.from($0).tell()) })
        }
    }

    /// libsndfile's converting and writing on a thread of its own: the caller hands over a full buffer and renders
    /// the next while this one is converted and written, so on two cores a render and its writing overlap (the
    /// writing was a third of a long song's render). One buffer at a time, in order: the file is the same.
    final class BackgroundWriter: @unchecked Sendable {
        private let file: OpaquePointer
        /// A buffer (or the end) is handed over; the thread is free for the next; the thread has ended.
        private let ready = DispatchSemaphore(value: 0)
        private let idle = DispatchSemaphore(value: 1)
        private let ended = DispatchSemaphore(value: 0)
        private var buffer: [Float] = []
        private var stopping = false
        private var finished = false
        /// A write came short (libsndfile or the file said why).
        private var failed = false

        init(file: OpaquePointer) {
            self.file = file
            Thread.detachNewThread { [self] in run() }
        }

        private func run() {
            while true {
                ready.wait()
                if stopping { break }
                let frames = buffer.count / 2
                let written = buffer.withUnsafeBufferPointer { sf_writef_float(file, $0.baseAddress!, sf_count_t(frames)) }
                if written != frames { failed = true }
                idle.signal()
            }
            ended.signal()
        }

        /// Hands `samples` (interleaved stereo) over, once the previous buffer is written, and leaves `samples`
        /// empty (with the previous buffer's room); false when a write has failed.
        func write(_ samples: inout [Float]) -> Bool {
            idle.wait()
            guard !failed else {
                idle.signal()
                return false
            }
            swap(&buffer, &samples)
            samples.removeAll(keepingCapacity: true)
            ready.signal()
            return true
        }

        /// Waits for the last buffer and ends the thread (libsndfile's file is the caller's again); false when a
        /// write failed.
        @discardableResult
        func finish() -> Bool {
            if !finished {
                finished = true
                idle.wait()
                stopping = true
                ready.signal()
                ended.wait()
                // Back to its first value: a semaphore freed below it is a crash in libdispatch.
                idle.signal()
            }
            return !failed
        }
    }
}

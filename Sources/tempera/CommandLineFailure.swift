import ArgumentParser
import TemperaCore
#if canImport(Glibc)
import Glibc
#endif

/// How the headless subcommands fail: one line on stderr, in the compiler's `FILE:LINE:COL: message` form when
/// the place is known, and a non-zero exit status (never a backtrace).
enum CommandLineFailure {
    /// Prints one line to stderr and returns the error that exits with status 1.
    static func report(_ line: String) -> ExitCode {
        write(oneLine(line) + "\n", to: 2)
        return ExitCode.failure
    }

    /// The most characters an error line shows: a message that echoes a huge input is cut.
    static let lineLimit = 400

    /// A message as one short, harmless line of a terminal: newlines become spaces, the rest is `Limits.echo`
    /// (control characters escaped, cut to `lineLimit` characters).
    static func oneLine(_ text: String) -> String {
        var flat = String.UnicodeScalarView()
        flat.append(contentsOf: text.unicodeScalars.prefix(lineLimit + 1).map { $0 == "\n" || $0 == "\r" ? " " : $0 })
        return Limits.echo(String(flat), limit: lineLimit)
    }

    /// Writes all of a string to a file descriptor (unbuffered: the caller batches).
    /// Writes all of `text`; returns the system's reason when a write fails ("No space left on device"), else nil.
    @discardableResult
    static func write(_ text: String, to fd: Int32) -> String? {
        var text = text
        return text.withUTF8 { buf in
            var offset = 0
            while offset < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + offset, buf.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                offset += n
            }
            return nil
        }
    }

    /// `FILE:LINE:COL: message`, `FILE:LINE: message`, or `FILE: message`.
    static func report(_ error: CommandError, file: String) -> ExitCode {
        var place = file
        if let line = error.line {
            place += ":\(line)"
            if let column = error.column { place += ":\(column)" }
        }
        return report("\(place): \(error.message)")
    }

    /// Loads a document, reporting a bad file in one line.
    static func loadDocument(_ path: String) throws -> Document {
        do {
            return try DocumentFile.load(path)
        } catch let error as CommandError {
            // Open errors already name the path.
            if error.line == nil { throw report("tempera: \(error.message)") }
            throw report(error, file: path)
        }
    }

    /// The document as `render`, `play` and `events` play it: its song with `song` (which must have a section),
    /// else its loop, whatever the file's song setting says.
    static func loadDocument(_ path: String, song: Bool) throws -> Document {
        var document = try loadDocument(path)
        if song && document.song.sections.isEmpty {
            throw report("tempera: \(path): the song has no section (add one with 'section add')")
        }
        document.song.on = song
        return document
    }
}

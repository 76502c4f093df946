import Foundation

extension Session {
    /// The session of the document a session manager keeps at `path`: the file read, or, when there is none yet,
    /// a new document saved there at once (the manager's session then holds it from the start, to copy or
    /// rename with the rest). Throws one line: a file that cannot be read, a folder that cannot be written.
    public static func managed(at path: String) throws -> Session {
        if FileManager.default.fileExists(atPath: path) {
            do {
                return Session(document: try DocumentFile.load(path), path: path)
            } catch let error as CommandError {
                throw CommandError("\(path): \(error.message)")
            } catch {
                throw CommandError("\(path): \(error)")
            }
        }
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw CommandError("cannot make the folder \(folder): \(error.localizedDescription)")
            }
        }
        let session = Session(document: .newDocument(), path: path)
        try session.save()
        return session
    }
}

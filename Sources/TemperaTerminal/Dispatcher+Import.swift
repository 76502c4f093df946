import Foundation
import TemperaCore
import TemperaPlayback

extension Dispatcher {
    /// `:import FILE [split] [slice]` (the words may be written `--split`, `--slice`): a recording (any sound file
    /// libsndfile reads) or a Standard MIDI File as a new, unsaved document in place of this one, as
    /// `tempera import` makes it. A sliced recording names the file by its absolute path, so the document plays it
    /// wherever it is saved.
    func importFile(_ arg: String) {
        var words = arg.split(separator: " ").map(String.init)
        var split = false, slice = false
        while let last = words.last, ["split", "--split", "slice", "--slice"].contains(last) {
            if last.hasSuffix("split") { split = true } else { slice = true }
            words.removeLast()
        }
        let path = Dispatcher.expand(Dispatcher.unquote(words.joined(separator: " ")))
        guard !path.isEmpty else { return say("import needs a file name (a recording or a .mid file)", error: true) }
        // The kind is told from the head alone: a recording is read (or refused) from its header by its reader.
        let head: [UInt8]
        do { head = try DocumentFile.readHead(path) } catch { return fail(error) }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        if let offline, offline.isRecording(head) {
            do {
                let (doc, summary) = try offline.importRecording(path: path, split: split, slice: slice,
                                                                 fileReference: absolute)
                whenDiscarded {
                    self.replaceSession(Session(document: doc))
                    self.say("imported \(path): " + summary)
                }
            } catch let error as OfflineError {
                say(error.description, error: true)
            } catch {
                fail(error)
            }
            return
        }
        guard !split, !slice else { return say("split and slice are for recordings (a sound file)", error: true) }
        guard head.starts(with: Array("MThd".utf8)) else {
            return say("\(path): not a file tempera imports here (a recording or a Standard MIDI File)", error: true)
        }
        do {
            let (doc, warnings) = try MidiImport.document(from: try MidiFile.parse(try DocumentFile.readFile(path)))
            whenDiscarded {
                self.replaceSession(Session(document: doc))
                self.say("imported \(path)" + (warnings.isEmpty ? "" : " (\(warnings.count) warning\(warnings.count == 1 ? "" : "s"): \(warnings[0]))"))
            }
        } catch let error as MidiFileError {
            say("\(path): \(error.message)", error: true)
        } catch {
            fail(error)
        }
    }
}

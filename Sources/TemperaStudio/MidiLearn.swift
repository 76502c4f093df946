import Foundation
import TemperaCore
import TemperaPlayback

/// MIDI in's bindings as the editor keeps them: learning (the next controller or note is bound), binding,
/// unbinding, and what a controller that arrives runs. Kept in the user's configuration folder (`midi` in
/// `$XDG_CONFIG_HOME/tempera`), written atomically at each change.
///
/// - Warning: main (editor) thread only.
public final class MidiLearn {
    public private(set) var bindings: MidiBindings
    /// The command the next controller or note will be bound to.
    public private(set) var learning: String?
    /// The bindings' file.
    public let path: String

    /// The bindings in `path` (none when the file does not exist); a bad file throws its one line.
    public init(path: String) throws {
        self.path = path
        if let data = FileManager.default.contents(atPath: path) {
            bindings = try MidiBindings.parse(String(decoding: data, as: UTF8.self), file: path)
        } else {
            bindings = MidiBindings()
        }
    }

    public func learn(_ command: String) -> String {
        learning = command
        return "midi learn: move a controller or play a note to run '\(command)'"
    }

    public func bind(_ source: MidiBindings.Source, _ command: String) throws -> String {
        var next = bindings
        next.bind(source, to: command)
        try save(next)
        return "\(source) runs '\(command)'"
    }

    public func unbind(_ source: MidiBindings.Source) throws -> String {
        var next = bindings
        guard next.unbind(source) else { throw CommandError("\(source) is not bound") }
        try save(next)
        return "\(source) runs nothing"
    }

    /// One line: every binding, or that there are none.
    public func list() -> String {
        bindings.bindings.isEmpty ? "no MIDI bindings (midi learn COMMAND)"
            : bindings.bindings.map { "\($0.source) \($0.command)" }.joined(separator: "; ")
    }

    /// A controller or note that arrived: learnt when a `midi learn` waits (and what to say), else the line it
    /// runs (nil: nothing is bound to it).
    public func receive(_ control: MidiControl) throws -> (run: String?, say: String?) {
        if let command = learning {
            learning = nil
            return (nil, try bind(control.source, command))
        }
        return (bindings.line(for: control.source, value: control.value), nil)
    }

    private func save(_ next: MidiBindings) throws {
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw CommandError("cannot keep MIDI bindings in \(folder): \(error.localizedDescription)")
        }
        try DocumentFile.writeAtomically(Array(next.text.utf8), to: path)
        bindings = next
    }
}

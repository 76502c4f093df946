import Foundation
import TemperaCore
import TemperaPlayback
import TemperaStudio

/// MIDI learn in the editor: `midi learn`, `midi bind`, `midi unbind`, `midi bindings` on the session's host, and
/// the controllers and notes MIDI in receives running what they are bound to, as a `:` line would.
extension Dispatcher {
    /// The bindings, read from the configuration folder on first use.
    func midiBindingsStore() throws -> MidiLearn {
        if let midi { return midi }
        let loaded = try MidiLearn(path: paths.config + "/midi")
        midi = loaded
        return loaded
    }

    public func midiLearn(_ command: String) throws -> String? { try midiBindingsStore().learn(command) }

    public func midiBind(_ source: MidiBindings.Source, _ command: String) throws -> String? {
        try midiBindingsStore().bind(source, command)
    }

    public func midiUnbind(_ source: MidiBindings.Source) throws -> String? { try midiBindingsStore().unbind(source) }

    public func midiBindings() throws -> String? { try midiBindingsStore().list() }

    /// Runs what the controllers and notes MIDI in received since the last look are bound to (or learns the one a
    /// `midi learn` waits for). True when any arrived that did something.
    @discardableResult
    func takeMidiControls() -> Bool {
        guard let controls = player?.takeMidiControls(), !controls.isEmpty else { return false }
        var any = false
        for control in controls {
            do {
                let (line, said) = try midiBindingsStore().receive(control)
                if let said { say(said) }
                if let line { _ = runRemote(line) }
                any = any || line != nil || said != nil
            } catch {
                fail(error)
                any = true
            }
        }
        return any
    }
}

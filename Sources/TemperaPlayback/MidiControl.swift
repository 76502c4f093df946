import TemperaCore

/// A controller or a note that arrived on MIDI in, for what it is bound to (`midi learn`, `midi bind`): where it
/// came from, and its value as 0..1 (a controller's value / 127, a note-on's velocity).
public struct MidiControl: Equatable, Sendable {
    public var source: MidiBindings.Source
    public var value: Double

    public init(source: MidiBindings.Source, value: Double) {
        self.source = source
        self.value = value
    }
}

import ArgumentParser
import TemperaAudio

/// Where the sound goes, on the command line (`--audio`) and in the settings file (`audio = ...`).
enum AudioChoice: String, ExpressibleByArgument, CaseIterable {
    case pulse, jack, null

    var output: AudioEngine.Output {
        switch self {
        case .pulse: return .pulse
        case .jack: return .jack
        case .null: return .null
        }
    }
}

/// MIDI clock on JACK's MIDI ports (`--clock`): sent (24 a beat of the tempo heard, with Start, Stop, Continue
/// and Song Position) or followed (tempo, phase, start and stop from the clock arriving on `midi_in`).
enum ClockChoice: String, ExpressibleByArgument, CaseIterable {
    case out, `in`
}

/// JACK transport (`--transport`): follow its rolling and position, or lead it as timebase master.
enum TransportChoice: String, ExpressibleByArgument, CaseIterable {
    case follow, lead
}

/// What is wrong with the studio options, in one line (clock and transport need JACK); nil when nothing is.
func studioProblem(audio: AudioChoice, clock: ClockChoice?, transport: TransportChoice?) -> String? {
    if clock != nil && audio != .jack { return "--clock needs --audio jack" }
    if transport != nil && audio != .jack { return "--transport needs --audio jack" }
    return nil
}

/// Sets the engine up for the studio options (before it starts).
func applyStudio(_ engine: AudioEngine, clock: ClockChoice?, transport: TransportChoice?) {
    engine.sendsClock = clock == .out
    engine.followsClock = clock == .in
    if let transport { engine.jackTransport = transport == .lead ? .lead : .follow }
}

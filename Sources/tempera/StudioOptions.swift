import ArgumentParser
import Glibc
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

/// MIDI clock on JACK's MIDI ports (`--clock`): sent on `clock_out` (24 a beat of the tempo heard, with Start,
/// Stop, Continue and Song Position) or followed (tempo, phase, start and stop from the clock arriving on
/// `midi_in`).
enum ClockChoice: String, ExpressibleByArgument, CaseIterable {
    case out, `in`
}

/// JACK transport (`--transport`): follow its rolling and position, or lead it as timebase master.
enum TransportChoice: String, ExpressibleByArgument, CaseIterable {
    case follow, lead
}

extension JackOptions.Outputs: ExpressibleByArgument {}

/// The studio's options, shared by the editor and `play`: MIDI clock, JACK transport, and how the JACK client
/// presents itself (name, connections, outputs).
struct StudioOptions: ParsableArguments {
    @Option(help: "With --audio jack: send MIDI clock on clock_out (out) or follow the one arriving on midi_in (in).")
    var clock: ClockChoice?

    @Option(help: "With --audio jack: follow the JACK transport, or lead it as timebase master.")
    var transport: TransportChoice?

    @Option(help: ArgumentHelp("With --audio jack: the JACK client's name (default tempera; the server may add a "
        + "number when it is taken).", valueName: "name"))
    var clientName: String?

    @Option(help: ArgumentHelp("With --audio jack: connect out_1 and out_2 to the physical playback ports (physical, "
        + "the default), to nothing (none), or to the first two audio inputs whose names match a regular "
        + "expression.", valueName: "physical|none|regex"))
    var connect: String?

    @Option(help: ArgumentHelp("With --audio jack: the outputs beside the mix on out_1/out_2: none more (mix), a "
        + "stereo pair per track (tracks: track_N_1, track_N_2) or per slot (slots: slot_N_1, slot_N_2).",
        valueName: "mix|tracks|slots"))
    var outputs: JackOptions.Outputs?

    /// What is wrong with the studio options, in one line (they need JACK; a name or a pattern JACK would
    /// refuse); nil when nothing is.
    func problem(audio: AudioChoice) -> String? {
        if clock != nil && audio != .jack { return "--clock needs --audio jack" }
        if transport != nil && audio != .jack { return "--transport needs --audio jack" }
        if clientName != nil && audio != .jack { return "--client-name needs --audio jack" }
        if connect != nil && audio != .jack { return "--connect needs --audio jack" }
        if outputs != nil && audio != .jack { return "--outputs needs --audio jack" }
        if let name = clientName {
            if name.isEmpty { return "--client-name needs a name" }
            if name.utf8.count > JackOptions.longestName {
                return "--client-name is at most \(JackOptions.longestName) bytes (got \(name.utf8.count))"
            }
            if name.contains(":") { return "--client-name cannot contain ':' (it separates client and port)" }
        }
        if let connect, connect != "physical", connect != "none" {
            if connect.isEmpty { return "--connect needs physical, none or a regular expression" }
            if let why = Self.regexProblem(connect) { return "--connect: not a regular expression (\(why))" }
        }
        return nil
    }

    /// Why `pattern` is not a POSIX extended regular expression (the kind JACK matches port names with); nil
    /// when it is one.
    static func regexProblem(_ pattern: String) -> String? {
        var re = regex_t()
        let code = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB)
        defer { if code == 0 { regfree(&re) } }
        guard code != 0 else { return nil }
        var message = [CChar](repeating: 0, count: 128)
        regerror(code, &re, &message, message.count)
        let bytes = message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The JACK client's options as given.
    var jack: JackOptions {
        let how: JackOptions.Connect
        switch connect {
        case nil, "physical": how = .physical
        case "none": how = .none
        case let pattern?: how = .matching(pattern)
        }
        return JackOptions(clientName: clientName ?? "tempera", connect: how, outputs: outputs ?? .mix)
    }

    /// An engine for `audio` with these options applied (before it starts).
    func engine(_ audio: AudioChoice) -> AudioEngine {
        let engine = AudioEngine(output: audio.output, jack: jack)
        engine.sendsClock = clock == .out
        engine.followsClock = clock == .in
        if let transport { engine.jackTransport = transport == .lead ? .lead : .follow }
        return engine
    }
}

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

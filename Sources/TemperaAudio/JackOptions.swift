/// How tempera's JACK client presents itself (`--client-name`, `--connect`, `--outputs`): its name, where its mix
/// is connected, and which outputs it has beside the mix.
public struct JackOptions: Sendable, Equatable {
    /// Where `out_1` and `out_2` are connected once the client runs.
    public enum Connect: Sendable, Equatable {
        /// The first two physical playback ports (the default).
        case physical
        /// Nowhere: the studio routes.
        case none
        /// The first two audio input ports whose full names (`client:port`) match this POSIX extended regular
        /// expression, as JACK matches port names.
        case matching(String)
    }

    /// The outputs beside the stereo mix.
    public enum Outputs: String, Sendable, Equatable, CaseIterable {
        /// The mix only (`out_1`, `out_2`).
        case mix
        /// A stereo pair per track, `track_N_1` and `track_N_2`.
        case tracks
        /// A stereo pair per slot, `slot_N_1` and `slot_N_2`.
        case slots
    }

    /// The name the client asks for; the server may give another (`tempera-01` when it is taken).
    public var clientName: String
    public var connect: Connect
    public var outputs: Outputs

    public init(clientName: String = "tempera", connect: Connect = .physical, outputs: Outputs = .mix) {
        self.clientName = clientName
        self.connect = connect
        self.outputs = outputs
    }

    /// JACK's longest client name (`jack_client_name_size()` less its NUL).
    public static let longestName = 63
    /// Track outputs registered at most: the document's first tracks up to this have ports; the others are heard
    /// in the mix only.
    public static let trackOutputCapacity = 64
}

// The engine's API speaks in the interface's types (PlayerState, PadHit, PlayheadClock): whoever imports the
// engine has them without a second import.
@_exported import TemperaPlayback
import Foundation
import TemperaCore

extension AudioEngine: Player {
    /// One look at everything the transport shows. Each field is read once, in the order the editor used to
    /// read them (the output's state first, which also drives reconnecting).
    public var state: PlayerState {
        var s = PlayerState()
        switch outputKind {
        case .pulse: s.backend = "pulse"
        case .jack: s.backend = "jack"
        case .null: s.backend = "null"
        }
        s.output = status
        s.isPlaying = isPlaying
        s.isFinished = isFinished
        s.position = position
        s.countInBeatsLeft = countInBeatsLeft
        s.song = songPosition.map { SongPosition(section: $0.section, pass: $0.pass, songPass: $0.songPass) }
        s.realTime = realTime
        s.underruns = underruns
        s.silencedBlocks = silencedBlocks
        s.isLoading = isLoading
        s.heardTempo = heardTempo
        if let peers = linkPeers, let bpm = linkTempo { s.link = LinkState(peers: peers, bpm: bpm) }
        if sendsClock { s.clock = "out" }
        if let t = jackTransport { s.transport = t == .lead ? "lead" : "follow" }
        if followsClock { s.clock = "in" + (clockTempo.map { String(format: " %.1f bpm", $0) } ?? "") }
        return s
    }
}

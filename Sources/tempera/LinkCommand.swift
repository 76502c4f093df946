import ArgumentParser
import Foundation
import TemperaAudio
import TemperaCore

/// `tempera link`: joins the Ableton Link session on the network, says what it finds, and with `--bpm` sets
/// its tempo for every peer.
struct LinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Show (or set) the tempo of the Ableton Link session on the network.",
        discussion: "Prints {\"peers\":N,\"bpm\":X} once a peer answers (or the wait is over); with --bpm sets "
            + "the session's tempo, stays a moment for the peers to take it, and prints the line again.")

    @Option(help: "Set the session's tempo, in beats per minute.")
    var bpm: Double?

    @Option(help: "Seconds to wait for a peer before answering.")
    var wait: Double = 3

    func run() throws {
        if let bpm, !(bpm.isFinite && (20...999).contains(bpm)) {
            throw fail("--bpm must be from 20 to 999 (got \(bpm))")
        }
        guard wait.isFinite, (0...600).contains(wait) else { throw fail("--wait must be from 0 to 600 seconds") }
        guard let session = LinkSession(bpm: bpm ?? 120) else { throw fail("Ableton Link could not start") }
        session.enable()
        let deadline = Date().addingTimeInterval(wait)
        while session.peers == 0 && Date() < deadline { usleep(10_000) }
        // A moment for the session's timeline to arrive after the peer was seen.
        if session.peers > 0 { usleep(200_000) }
        say(session)
        if let bpm {
            session.setBPM(bpm)
            usleep(1_000_000)
            say(session)
        }
        session.enable(false)
    }

    /// One line on standard output, at once (a script may time it).
    private func say(_ session: LinkSession) {
        let line = "{\"peers\":\(session.peers),\"bpm\":\(String(format: "%.3f", session.bpm))}\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }
}

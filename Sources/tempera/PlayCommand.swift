import ArgumentParser

struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "play", abstract: "(in progress)")

    func run() throws {
        throw ValidationError("'play' is not built yet")
    }
}

import ArgumentParser

struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "events", abstract: "(in progress)")

    func run() throws {
        throw ValidationError("'events' is not built yet")
    }
}

import ArgumentParser

struct ScriptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "script", abstract: "(in progress)")

    func run() throws {
        throw ValidationError("'script' is not built yet")
    }
}

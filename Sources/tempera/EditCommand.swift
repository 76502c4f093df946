import ArgumentParser

struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "edit", abstract: "(in progress)")

    func run() throws {
        throw ValidationError("'edit' is not built yet")
    }
}

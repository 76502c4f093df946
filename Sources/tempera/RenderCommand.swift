import ArgumentParser

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "render", abstract: "(in progress)")

    func run() throws {
        throw ValidationError("'render' is not built yet")
    }
}

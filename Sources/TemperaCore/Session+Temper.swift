extension Session {
    /// Runs a rhythm-designer command (see `Temperament`).
    func runTemper(_ command: TemperCommand) throws -> String? {
        throw CommandError("the rhythm designer is not available yet")
    }
}

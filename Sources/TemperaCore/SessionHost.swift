/// What runs the commands that reach past the document: the transport, files, formats and the screen. The
/// editor, `tempera play` and `tempera serve` each set one on their session (`Session.host`), so `play`,
/// `locate 2`, `open song.tempera`, `import loop.wav` or `q` typed on the `:` line, sent over OSC or bound to a
/// MIDI controller reach the same code. A session without a host (a script, a test) refuses them with one line
/// (`SessionHost.unavailable`); a host that lacks one part (no player in `serve`, no screen in `play`) says so
/// the same way, through the defaults below.
///
/// - Warning: main (owning) thread only, as the session is.
public protocol SessionHost: AnyObject {
    /// Starts the transport (`play`).
    func play() throws -> String?
    /// Stops the transport where it is (`stop`).
    func stop() throws -> String?
    /// Moves the playhead to `seconds` on the timeline (`locate TIME`).
    func locate(_ seconds: Double) throws -> String?
    /// Saves the document (to `path`, or where it came from); `thenQuit`: quits once it is saved (`save`, `wq`).
    func save(_ path: String?, thenQuit: Bool) throws -> String?
    /// Saves to `path`, the document's file from then on (`saveas`).
    func saveAs(_ path: String) throws -> String?
    /// Opens another document (`open`); `discarding`: drops unsaved changes without asking (`e!`).
    func open(_ path: String, discarding: Bool) throws -> String?
    /// Starts a new, empty document (`new`).
    func newDocument() throws -> String?
    /// Puts `session`, opened elsewhere (by a session manager), in place of this one, unsaved changes dropped
    /// (the manager asks for saves itself).
    func adopt(_ session: Session) throws -> String?
    /// A file of another format added to this document (`import`).
    func importFile(_ path: String, split: Bool, slice: Bool) throws -> String?
    /// The document as a Standard MIDI File (`export`).
    func export(_ path: String) throws -> String?
    /// The document rendered to a sound file (`render`).
    func render(_ path: String) throws -> String?
    /// Leaves (`q`); `discarding`: without asking about unsaved changes (`q!`).
    func quit(discarding: Bool) throws -> String?
    /// The screen's colours (`theme`).
    func theme(_ name: String) throws -> String?
    /// The keys and commands on the screen (`help`).
    func help() throws -> String?
    /// Binds the next controller or note that arrives on MIDI in to `command` (`midi learn`).
    func midiLearn(_ command: String) throws -> String?
    /// Binds `source` to `command` (`midi bind`).
    func midiBind(_ source: MidiBindings.Source, _ command: String) throws -> String?
    /// Unbinds `source` (`midi unbind`).
    func midiUnbind(_ source: MidiBindings.Source) throws -> String?
    /// What each controller and note runs (`midi bindings`).
    func midiBindings() throws -> String?
}

extension SessionHost {
    public func play() throws -> String? { throw Self.unavailable("play") }
    public func stop() throws -> String? { throw Self.unavailable("stop") }
    public func locate(_ seconds: Double) throws -> String? { throw Self.unavailable("locate") }
    public func save(_ path: String?, thenQuit: Bool) throws -> String? { throw Self.unavailable("save") }
    public func saveAs(_ path: String) throws -> String? { throw Self.unavailable("saveas") }
    public func open(_ path: String, discarding: Bool) throws -> String? { throw Self.unavailable("open") }
    public func newDocument() throws -> String? { throw Self.unavailable("new") }
    public func adopt(_ session: Session) throws -> String? { throw Self.unavailable("a session manager's open") }
    public func importFile(_ path: String, split: Bool, slice: Bool) throws -> String? { throw Self.unavailable("import") }
    public func export(_ path: String) throws -> String? { throw Self.unavailable("export") }
    public func render(_ path: String) throws -> String? { throw Self.unavailable("render") }
    public func quit(discarding: Bool) throws -> String? { throw Self.unavailable("q") }
    public func theme(_ name: String) throws -> String? { throw Self.unavailable("theme") }
    public func help() throws -> String? { throw Self.unavailable("help") }
    public func midiLearn(_ command: String) throws -> String? { throw Self.unavailable("midi learn") }
    public func midiBind(_ source: MidiBindings.Source, _ command: String) throws -> String? {
        throw Self.unavailable("midi bind")
    }
    public func midiUnbind(_ source: MidiBindings.Source) throws -> String? { throw Self.unavailable("midi unbind") }
    public func midiBindings() throws -> String? { throw Self.unavailable("midi bindings") }

    /// The one line a host says for a command it does not run.
    public static func unavailable(_ name: String) -> CommandError { CommandError("\(name) is not available here") }
}

extension CommandError {
    /// The one line a session without a host says for a command that needs one (scripts print it and go on).
    public static func needsHost(_ name: String) -> CommandError {
        CommandError("\(name) needs the editor or a player (tempera play, serve)")
    }
}

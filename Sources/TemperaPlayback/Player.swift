import TemperaCore

/// The one face of the player that the editor, `join` and `play` see: the audio engine implements it
/// (`TemperaAudio`), and nothing outside that module needs to know more. Every requirement is for the main
/// (editor) thread; what the audio thread does behind it never waits on a caller.
///
/// - Documents: `load` / `update` publish a document (its samples loaded on the caller's thread, problems
///   returned one line a slot), or the `InBackground` forms (samples read on a queue; `finishedLoad()` hands
///   their problems back once they are in). Which of them to call, and when, is `PlaybackController`'s business.
/// - Transport: `play`, `pause`, `rewind`, `locate`, `jump`, `nudge`, `stop` (the output closes).
/// - Pads and previews: `hitPad`, `preview`; `takeMidiHits` for the hits MIDI in played.
/// - What it says: `state` (a snapshot), `playheadClock` (for placing a recorded hit), `slotSound`.
public protocol Player: AnyObject {
    /// Connects the output; without a server the state says so and the player retries in the background.
    func start()
    /// Disconnects the output. Playback stops; the document stays loaded.
    func stop()

    /// Loads the document's samples and publishes it; the lines of what could not be loaded.
    @discardableResult
    func load(document: Document, baseDirectory: String?) -> [String]
    /// Publishes an edited document, heard from the next event; loads changed slots first (their problems are
    /// returned; nothing is loaded, and nothing returned, when the slots did not change).
    @discardableResult
    func update(document: Document) -> [String]
    /// As `load`, the samples read in the background (the document plays at once, slots not yet loaded silent).
    func loadInBackground(document: Document, baseDirectory: String?)
    /// As `update`, changed slots loaded in the background.
    func updateInBackground(document: Document)
    /// Once the newest background load has finished: its problems (and the samples are published); else nil.
    func finishedLoad() -> [String]?

    /// Starts playing from the current position; `loops` > 0 stops after that many passes (0: endless with the
    /// loop on, one pass with it off).
    func play(loops: Int)
    /// Plays from the start so that it is heard from `nanos` on `MonotonicClock` (players sharing a document).
    func play(heardAtNanos nanos: UInt64, loops: Int)
    func pause()
    /// Back to the start of the loop region (playing goes on from there if it was playing).
    func rewind()
    /// To `seconds` on the timeline, inside the loop region (playing goes on from there if it was playing).
    func locate(seconds: Double)
    /// Song mode: plays section `n` (from 0) from its first pass.
    func jump(toSection n: Int)
    /// Moves the music `seconds` later (earlier when negative) while it plays.
    func nudge(seconds: Double)

    /// Plays clip slot `slot` (1...16) at `velocity` (0...1) at once; where the music was when the key arrived.
    @discardableResult
    func hitPad(slot: Int, velocity: Double, arrival: UInt64) -> PadHit
    /// Plays an audio file once, at once (the file picker's preview); its problem in one line, or nil.
    func preview(path: String) -> String?

    /// What the player says now (reading it also drives reconnecting to a missing server).
    var state: PlayerState { get }
    /// `state.isPlaying` alone, for the loops that ask it after every event and look (no snapshot built).
    var isPlaying: Bool { get }
    /// The playhead clock as last stamped by the output: what is heard when.
    var playheadClock: PlayheadClock { get }
    /// What slot `slot` (1...16) sounds after the last rendered block.
    func slotSound(_ slot: Int) -> SlotSound
    /// The note-ons MIDI in played since the last call, oldest first (they sounded already, on their frames); each
    /// placed at the music heard on its arrival less the output latency, as a pad hit is.
    func takeMidiHits() -> [PadHit]
    /// MIDI in's note-ons that sounded but were not kept for `takeMidiHits` (they came faster than they were
    /// read), counted since the output connected; 0 from a player without MIDI in.
    var droppedMidiHits: Int { get }
    /// The controllers and note-ons MIDI in received since the last call, oldest first, for what they are bound
    /// to (`midi learn`); none from a player without MIDI in.
    func takeMidiControls() -> [MidiControl]
}

extension Player {
    public func takeMidiHits() -> [PadHit] { [] }

    public var droppedMidiHits: Int { 0 }

    public func takeMidiControls() -> [MidiControl] { [] }

    public func play() { play(loops: 0) }

    @discardableResult
    public func hitPad(slot: Int, velocity: Double) -> PadHit {
        hitPad(slot: slot, velocity: velocity, arrival: MonotonicClock.nanos())
    }

    /// Plays when paused, pauses when playing.
    public func toggle() {
        if isPlaying { pause() } else { play(loops: 0) }
    }
}

/// A document rendered to a sound file away from the live output, in the background (the editor's `:render`):
/// implemented by the application core (`TemperaStudio.StudioFiles`, through its registry of formats), so the
/// editor renders without seeing the engine.
public protocol OfflineRendering: Sendable {
    /// Writes `document` to `path` (relative samples resolved against `baseDirectory`), as WAV or FLAC by its
    /// extension, 24-bit; `progress` is told how far it got (0...1) from the rendering thread.
    func render(_ document: Document, baseDirectory: String?, to path: String,
                progress: @escaping @Sendable (Double) -> Void) throws
}

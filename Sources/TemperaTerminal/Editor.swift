import Foundation
import TemperaCore
import TemperaPlayback
import TemperaStudio

/// The editor loop: reads input, hands it to the `Dispatcher`, keeps the audio engine in step with the
/// document, autosaves, and draws a frame when something changed — about 30 frames a second while the loop
/// plays (the playhead moves), otherwise only after input.
///
/// - Warning: main (editor) thread only.
public final class Editor {
    public let screen: Screen
    public let dispatcher: Dispatcher
    /// The document's recovery files (the dispatcher's file session keeps them).
    public var autosave: Autosave {
        get { dispatcher.files.autosave }
        set { dispatcher.files.autosave = newValue }
    }
    /// Seconds, injected so tests control autosave timing.
    public var clock: () -> Double
    private var dirty = true
    private var lastTransport = TransportInfo()
    /// Samples load on a background queue, so a slow file never holds up keys, drawing or a signal (the
    /// program sets this; tests that step the editor event by event leave loading on the editor thread).
    public var loadsInBackground: Bool {
        get { dispatcher.playback.loadsInBackground }
        set { dispatcher.playback.loadsInBackground = newValue }
    }
    /// How long input may be waited for while samples load in the background, milliseconds.
    public static let loadingWaitMs = 50
    private var fitted = false
    /// Called after every event and idle wait (a shared document's changes arrive here); returns true when
    /// it changed what is shown. While it is set the loop looks every `pollInterval` milliseconds, and at once
    /// when the screen's wake-up is signalled.
    public var poll: (() -> Bool)?
    /// How often `poll` is looked at when nothing else happens, milliseconds.
    public static let pollMs = 10
    /// How often `poll` is looked at: `pollMs`, or longer when whatever feeds `poll` signals the screen's
    /// wake-up (its timers, a flash fading, need no finer step).
    public var pollInterval = Editor.pollMs

    /// How often `poll` is looked at while playing, milliseconds (playing together keeps its phase there).
    public static let pollWhilePlayingMs = 10

    /// Frame period while playing, milliseconds.
    public static let playingFrameMs = 33
    /// Events handled at most between two frames.
    public static let maxEventsPerFrame = 64
    /// How long input may be waited for when nothing moves, milliseconds (autosave and audio status still
    /// get looked at this often).
    public static let idleWaitMs = 250

    /// An editor on `dispatcher`, writing its recovery files with `autosave` (nil: the dispatcher's own, in the
    /// state folder of its configuration paths).
    public init(screen: Screen, dispatcher: Dispatcher, autosave: Autosave? = nil,
                clock: @escaping () -> Double = { Date().timeIntervalSinceReferenceDate }) {
        self.screen = screen
        self.dispatcher = dispatcher
        self.clock = clock
        if let autosave { dispatcher.files.autosave = autosave }
        dispatcher.width = screen.width
        dispatcher.height = screen.height
        dispatcher.view.ascii = !screen.unicode
    }

    public var session: Session { dispatcher.session }

    /// Runs until the user quits, the input closes or a termination signal arrives. Returns true when the
    /// user quit (as opposed to the terminal going away).
    @discardableResult
    public func run() -> Bool {
        // The first frame goes up before the samples load, so the screen never sits blank.
        frame()
        syncEngine()
        var lastFrame = monotonicMilliseconds()
        while true {
            // A pad's bar runs down while it sounds, even with the transport stopped.
            let playing = dispatcher.player?.isPlaying == true || lastTransport.padsSounding
            // While playing the playhead moves: a frame every `playingFrameMs`, however often `poll` is looked at.
            if dirty || playing && monotonicMilliseconds() - lastFrame >= Double(Editor.playingFrameMs) - 1 {
                frame()
                lastFrame = monotonicMilliseconds()
            }
            let loading = dispatcher.player?.state.isLoading == true
            let wait = playing ? Editor.playingFrameMs : loading ? Editor.loadingWaitMs : Editor.idleWaitMs
            var event = screen.readInput(timeout: poll != nil ? (playing ? Editor.pollWhilePlayingMs : min(wait, pollInterval))
                                             : wait)
            // Everything already waiting is handled before the next frame, so a burst of mouse motion or
            // key repeat costs one frame, not one each.
            var handled = 0
            while let e = event {
                if e == .closed {
                    // The terminal went away or a signal came: keep everything recoverable.
                    dispatcher.files.keepRecoverable()
                    finish()
                    return false
                }
                process(e)
                handled += 1
                if handled >= Editor.maxEventsPerFrame || dispatcher.quitRequested { break }
                event = screen.readInput(timeout: 0)
            }
            afterInput()
            if dispatcher.quitRequested {
                finish()
                return true
            }
        }
    }

    /// Handles one event as the loop does (tests call this directly).
    public func process(_ event: InputEvent) {
        if event == .resize {
            dispatcher.width = screen.width
            dispatcher.height = screen.height
            dispatcher.view.viewport.reveal(session.cursor, columns: dispatcher.columns)
        }
        dispatcher.handle(event)
        dirty = true
    }

    /// Processes scripted input to its end, drawing as the loop would (tests).
    public func process(_ events: [InputEvent]) {
        for e in events {
            process(e)
            afterInput()
            frame()
        }
    }

    /// After every event or timeout: engine, autosave, idle commits.
    private func afterInput() {
        if let poll, poll() { dirty = true }
        let rendering = dispatcher.view.render
        dispatcher.tick()
        if dispatcher.view.render != rendering { dirty = true }
        syncEngine()
        takeLoadedSamples()
        if dispatcher.takeMidiHits() { dirty = true }
        if dispatcher.takeMidiControls() { dirty = true }
        if let problem = dispatcher.files.tick(now: clock()) {
            dispatcher.say(problem, error: true)
            dirty = true
        }
        if let theme = dispatcher.requestedTheme, let curses = screen as? CursesScreen {
            curses.setTheme(theme)
            dispatcher.requestedTheme = nil
            dirty = true
        }
        let info = transportInfo()
        if info != lastTransport {
            lastTransport = info
            dirty = true
        }
    }

    /// Samples loaded in the background, once they are in: their problems are said as a load's are, each once.
    private func takeLoadedSamples() {
        guard let news = dispatcher.playback.finishedLoad() else { return }
        show(news)
        dirty = true
    }

    /// What a load said: the broken slots marked, and on the status line the problems not said before.
    private func show(_ news: PlaybackController.News) {
        if let broken = news.brokenSlots { dispatcher.view.brokenSlots = broken }
        if let message = news.message {
            dispatcher.say(message, error: true)
            dirty = true
        }
    }

    /// Keeps the player playing what the document says: a new session is loaded, an edit is published (the
    /// controller decides whether anything changed; the document is built only when it did).
    private func syncEngine() {
        let s = dispatcher.session
        let view = dispatcher.view
        // While the designer tab is open its result is heard on the current track, so each slider step is.
        let version = PlaybackController.Version(generation: dispatcher.sessionGeneration, revision: s.revision,
                                                 extra: DesignerTab.auditionKey(session: s, view: view))
        guard let news = dispatcher.playback.publish(version, baseDirectory: dispatcher.files.baseDirectory,
                                                     document: { DesignerTab.playbackDocument(session: s, view: view) })
        else { return }
        if news.fresh {
            // Another document opened: its recovery file is this editor's now (the lock follows the document).
            if let told = dispatcher.files.followDocument() { dispatcher.say(told) }
            dirty = true
        }
        show(news)
    }

    private func transportInfo() -> TransportInfo {
        guard let state = dispatcher.playback.look(), let player = dispatcher.player else {
            return TransportInfo(audio: "no audio output")
        }
        var info = TransportInfo(isPlaying: state.isPlaying, position: state.position, underruns: state.underruns)
        if dispatcher.view.tab == .pads { info.pads = ClipSlot.range.map { player.slotSound($0).fraction } }
        info.countIn = state.countInBeatsLeft
        if state.isPlaying { info.heardTempo = state.heardTempo }
        info.link = state.link
        info.song = state.song
        info.audio = state.outputProblem
        info.studio = state.studio
        if let latency = state.latencyMs {
            info.latencyMs = latency
            info.realTime = state.realTime
        }
        return info
    }

    /// Draws one frame.
    public func frame() {
        if !fitted, dispatcher.layout.fits {
            dispatcher.fitView()
            fitted = true
        }
        let info = transportInfo()
        if info.isPlaying {
            // Page along with the playhead when it runs off the view it was in; a view the user scrolled
            // elsewhere stays where it is.
            let columns = dispatcher.columns
            let vp = dispatcher.view.viewport
            let was = vp.position(of: dispatcher.view.transport.position)
            let now = vp.position(of: info.position)
            if was >= 0, was < Double(columns), now < 0 || now >= Double(columns) {
                dispatcher.view.viewport.follow(info.position, columns: columns)
            }
        }
        dispatcher.view.transport = info
        var canvas = Canvas(width: screen.width, height: screen.height)
        EditorView.draw(session: dispatcher.session, view: dispatcher.view, into: &canvas)
        var cursor: (x: Int, y: Int)?
        if let offset = dispatcher.view.helpOffset {
            // Kept clamped, or keys and wheel steps past the end would first have to climb back unseen.
            dispatcher.view.helpOffset = Help.draw(dispatcher.view.keyMap, offset: offset, ascii: dispatcher.view.ascii,
                                                   into: &canvas)
        } else if let picker = dispatcher.view.picker {
            PickerView.draw(picker, ascii: dispatcher.view.ascii, into: &canvas)
        } else if dispatcher.view.prompt != nil {
            // The `:` line is the screen's last row, after the colon, scrolled as the status line scrolls it
            // so the insertion point stays in view.
            let g = Glyphs.set(ascii: dispatcher.view.ascii)
            cursor = (StatusLine.commandCursorColumn(view: dispatcher.view, width: screen.width, g), screen.height - 1)
        }
        screen.present(canvas, cursor: cursor)
        dirty = false
    }

    private func finish() {
        dispatcher.finishDrag()
        // A copy still being written in the background lands before the process may end.
        dispatcher.files.finish(discarding: dispatcher.discardedChanges)
        dispatcher.player?.stop()
    }
}

/// CLOCK_MONOTONIC in milliseconds (the editor loop's frame pacing; unaffected by the wall clock).
func monotonicMilliseconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
}

/// Made and used on one thread (the editor's): the compiler refuses to let it cross to another (a `@Sendable`
/// closure, a queue, a thread, a task), and nothing may declare it `Sendable` later.
@available(*, unavailable)
extension Editor: Sendable {}

import TemperaCore

/// Decides when the player hears a new document, for everyone who plays one: the editor (and so `join` and
/// `edit --serve`, which run it), and `play --pads` while it records. The caller says which version of the
/// document it has (`Version`); the controller publishes only when that changed (the document itself is built
/// only then), loads afresh when a new session replaced the old, and keeps what the player said about loading
/// so each problem is said once.
///
/// - Warning: main (editor) thread only, as the player is.
public final class PlaybackController {
    /// The player; nil runs silently (what is published is only remembered). A new player hears the document
    /// afresh at the next publish.
    public var player: (any Player)? {
        didSet { published = nil }
    }
    /// Samples load on a background queue (a slow file never holds up keys, drawing or a signal); their problems
    /// then come from `finishedLoad()`. Off: they load on the calling thread (tests that step event by event).
    public var loadsInBackground = false

    /// Which document the caller has: a new `generation` is a new session (open, new, recover), loaded afresh;
    /// a new `revision` is an edit; `extra` is anything else that changes what is heard (the designer's
    /// audition: its track and clip).
    public struct Version: Hashable {
        public var generation: Int
        public var revision: Int
        public var extra: AnyHashable?

        public init(generation: Int, revision: Int, extra: AnyHashable? = nil) {
            self.generation = generation
            self.revision = revision
            self.extra = extra
        }
    }

    /// What a publish or a finished load has for the screen.
    public struct News: Equatable {
        /// A new session was loaded (not an edit).
        public var fresh = false
        /// The slots that cannot play, as the player last said; nil when that was not looked at again.
        public var brokenSlots: Set<Int>?
        /// Every problem the load reported (one line a slot), in order.
        public var warnings: [String] = []
        /// The problems not said before, in one line ("slot 3: cannot open x.wav (and 2 more)"); nil when none.
        public var message: String?
    }

    private var published: Version?
    private var publishedSlots: [ClipSlot] = []
    /// The problems the player last reported, so each is said once.
    private var problems: Set<String> = []
    private var underruns = AudibleUnderruns()

    public init(player: (any Player)?) {
        self.player = player
    }

    /// The version last published, if any.
    public var version: Version? { published }

    /// Publishes `document()` when `version` differs from the last published: a new generation loads it (its
    /// samples from `baseDirectory()`), anything else updates it (changed slots load). Nil when nothing was
    /// published.
    public func publish(_ version: Version, baseDirectory: @autoclosure () -> String?, document: () -> Document) -> News? {
        guard version != published else { return nil }
        let fresh = version.generation != published?.generation
        published = version
        let doc = document()
        let slotsChanged = doc.slots != publishedSlots
        publishedSlots = doc.slots
        var news = News()
        news.fresh = fresh
        guard let player else { return news }
        if fresh {
            problems = []
            if loadsInBackground {
                player.loadInBackground(document: doc, baseDirectory: baseDirectory())
                news.brokenSlots = []
            } else {
                report(player.load(document: doc, baseDirectory: baseDirectory()), into: &news)
            }
        } else if loadsInBackground {
            player.updateInBackground(document: doc)
        } else {
            // The player loads, and answers, only when the slots changed.
            let warnings = player.update(document: doc)
            if slotsChanged { report(warnings, into: &news) }
        }
        return news
    }

    /// Once samples loading in the background are in: their problems, as `publish` says them; else nil.
    public func finishedLoad() -> News? {
        guard let warnings = player?.finishedLoad() else { return nil }
        var news = News()
        report(warnings, into: &news)
        return news
    }

    private func report(_ warnings: [String], into news: inout News) {
        news.warnings = warnings
        news.brokenSlots = PlaybackController.slots(in: warnings)
        let new = warnings.filter { !problems.contains($0) }
        problems = Set(warnings)
        if let first = new.first { news.message = new.count > 1 ? "\(first) (and \(new.count - 1) more)" : first }
    }

    /// The slot numbers load warnings name (`slot 3: cannot open ...`).
    public static func slots(in warnings: [String]) -> Set<Int> {
        Set(warnings.compactMap { w -> Int? in
            guard w.hasPrefix("slot ") else { return nil }
            return Int(w.dropFirst(5).prefix { $0.isNumber })
        })
    }

    /// The player's state for the transport, its underruns counting only those heard (see `AudibleUnderruns`);
    /// nil without a player.
    public func look() -> PlayerState? {
        guard let player else { return nil }
        var state = player.state
        state.underruns = underruns.update(total: state.underruns, playing: state.isPlaying)
        return state
    }
}

/// The underruns worth showing. Paused, the stream may run dry between the silent blocks it is fed: nobody
/// hears that, so what the engine counts while paused is left out (here, not on the audio thread).
public struct AudibleUnderruns {
    private var paused = 0
    private var last = 0

    public init() {}

    /// Takes the engine's running total and whether it plays now; returns the count heard while playing.
    public mutating func update(total: Int, playing: Bool) -> Int {
        if !playing { paused += total - last }
        last = total
        return total - paused
    }
}

/// Made and used on one thread (the editor's): the compiler refuses to let it cross to another (a `@Sendable`
/// closure, a queue, a thread, a task), and nothing may declare it `Sendable` later.
@available(*, unavailable)
extension PlaybackController: Sendable {}

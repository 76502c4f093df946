import Foundation
import Synchronization
import TemperaCore

/// Plays documents: loads their samples, compiles their schedules, and drives an output backend.
///
/// The editor publishes immutable snapshots (schedule, sample pointers, settings) by an atomic pointer swap; the
/// audio thread picks up the newest at its next block, so edits are heard from the next event with no gap.
/// Transport commands travel through a lock-free single-producer single-consumer ring; the playhead and
/// counters come back through atomics. Retired snapshots are freed here, on the editor thread, once the audio
/// thread has said it no longer reads them.
///
/// - Warning: every method is for the main (editor) thread; the render path runs on the backend's thread
///   and only reads what this class publishes.
public final class AudioEngine {
    /// Where the sound goes.
    public enum Output {
        /// PulseAudio (the server named by `PULSE_SERVER`, else the user's default).
        case pulse
        /// A JACK server (the one `JACK_DEFAULT_SERVER` names, else the default): its rate and period rule.
        case jack
        /// Nowhere: nothing renders until `pump(frames:)` is called (tests, benchmarks).
        case null
    }

    /// Seconds between attempts to reach a missing server.
    public static let retryInterval = 2.0
    /// How long a connection may take before the server counts as missing.
    public static let connectTimeout = 1.5
    /// How long a playing stream may take no audio before the server counts as stalled (frozen, not gone).
    public static let stallTimeout = 1.5
    /// The same before the server has started the stream: an idle null sink stalls its first write up to 2 s.
    public static let startStallTimeout = 5.0

    public let sampleRate: Double
    public let outputKind: Output
    /// The output buffer asked of PulseAudio, seconds (set before `start`): small for an editor that answers at
    /// once, larger where playback is aimed at a moment anyway (playing together), so a loaded machine underruns
    /// less.
    public var outputLatency = 0.020
    /// Playback is aimed at moments of the clock (a player of a shared document): the output asks the server
    /// for its timing every 20 ms instead of interpolating, so what the playhead clock says is heard is. Set it
    /// before `start`.
    public var aimed: Bool {
        get { shared.pointee.aimed.load(ordering: .relaxed) }
        set { shared.pointee.aimed.store(newValue, ordering: .relaxed) }
    }
    /// MIDI clock out (`--clock out`): 24 clocks a beat of the tempo heard on the MIDI output, with Start, Stop,
    /// Continue and Song Position on their frames. Set it before `start`.
    public var sendsClock: Bool {
        get { renderState.pointee.clock.on }
        set { if !rendering { renderState.pointee.clock.on = newValue } }
    }

    /// MIDI clock in (`--clock in`): the tempo and phase follow the clock arriving on the MIDI input (filtered:
    /// a line through its last clocks), Start, Stop and Continue start, stop and continue playing. The song plays
    /// every section at the clock's tempo, their own tempos and ramps and the tempo map set aside (as under Link).
    /// Set it before `start`.
    public var followsClock: Bool {
        get { renderState.pointee.clockIn.on }
        set { if !rendering { renderState.pointee.clockIn.on = newValue } }
    }

    /// JACK transport (`--transport`): follow its rolling and position, or lead it as timebase master (bar, beat
    /// and tick from the document's beat and meter). Set it before `start`.
    public var jackTransport: JackTransportMode?

    /// The JACK client's name, connections and outputs, as given at `init`.
    public let jackOptions: JackOptions

    /// The tempo of the followed MIDI clock as last published (BPM), nil before one is heard.
    public var clockTempo: Double? {
        guard followsClock, let t = clockTempoPublished, let doc = document else { return nil }
        return doc.transport.bpm(atTempo: t)
    }

    /// The followed clock's tempo (as a document tempo) last published.
    private var clockTempoPublished: Double?

    /// Publishes the followed MIDI clock's tempo when it moved by more than a twentieth of a percent.
    @discardableResult
    public func followClockTempo() -> Bool {
        guard followsClock, let document else { return false }
        let b = Double(bitPattern: shared.pointee.clockInFramesPerClock.load(ordering: .relaxed))
        guard b > 0 else { return false }
        let tempo = document.transport.beat * sampleRate / (24 * b)
        if let old = clockTempoPublished, abs(tempo / old - 1) < 0.0005 { return false }
        clockTempoPublished = tempo
        publish(document)
        return true
    }

    /// The buffer the players of a shared document ask for.
    public static let aimedLatency = 0.060
    let shared: UnsafeMutablePointer<EngineShared>
    private let renderState: UnsafeMutablePointer<RenderState>
    private(set) var output: AudioOutput?
    /// The JACK client opened at `init` to learn the server's rate: the first connection uses it.
    private(set) var firstJack: JackOutput?
    private(set) var started = false
    private var attemptAt = Date.distantPast
    /// The frames rendered when the running output was last seen taking audio, and when.
    private var lastProgress: (frames: Int, started: Bool, at: Date)?
    private let bank: SampleBank
    /// Every use of `bank` runs here, so a load in the background and one on the caller's thread never overlap.
    private let loadQueue = DispatchQueue(label: "tempera.samples")
    private let compiler = EventCompiler()
    /// The metronome's sounds, made once for the output rate.
    private let clickSound: ClickSound
    private(set) var live: [PublishedSnapshot] = []
    private var seq = 0
    private(set) var document: Document?
    private var baseDirectory: String?
    private var samples: [[SampleBuffer?]] = []
    private var loadedSlots: [ClipSlot] = []
    private var wantPlaying = false
    /// The passes the last `play` asked for (0: endless with the loop on, one with it off).
    private(set) var passLimit = 0
    private var previewSample: SampleBuffer?
    private var previewSerial = 0
    /// The Ableton Link session the transport follows, kept alive while the audio thread may read it.
    private(set) var linkSession: LinkSession?
    /// The document's own tempo in BPM when last published (a change of it is sent to the session).
    private var documentBPM: Double?
    /// The session's tempo as last published (BPM).
    private(set) var linkBPM: Double?

    /// - Parameters:
    ///   - sampleRate: the output rate; samples are converted to it once, at load. With JACK, the server's rate
    ///     when one answers (the client connects here, so its rate is known before anything loads).
    ///   - output: PulseAudio, JACK, or the null output driven by `pump(frames:)`.
    ///   - kitDirectory: where `kit/NAME.wav` points (default: found as `SamplePaths.kitDirectory()` says).
    ///   - polyphony: voices sounding at once before the oldest is stolen (with a short fade).
    ///   - jack: the JACK client's name, connections and outputs (with `output` `.jack`).
    public init(sampleRate: Double = 48_000, output: Output = .pulse, kitDirectory: String? = nil, polyphony: Int = 64,
                jack jackOptions: JackOptions = JackOptions()) {
        var rate = sampleRate
        self.jackOptions = jackOptions
        if output == .jack {
            let jack = JackOutput(options: jackOptions)
            rate = jack.serverRate ?? sampleRate
            firstJack = jack
        }
        self.sampleRate = rate
        self.outputKind = output
        bank = SampleBank(sampleRate: rate, kitDirectory: kitDirectory)
        clickSound = ClickSound(sampleRate: rate)
        shared = .allocate(capacity: 1)
        shared.initialize(to: EngineShared())
        renderState = RenderState.make(rate: rate, shared: shared)
        renderState.pointee.polyphony = min(max(1, polyphony), RenderState.voiceCapacity - 8)
    }

    deinit {
        output?.close()
        output = nil
        RenderState.destroy(renderState)
        shared.deinitialize(count: 1)
        shared.deallocate()
    }

    /// Connects the output (PulseAudio unless told otherwise). Without a server the status says so and the
    /// engine retries in the background; nothing blocks.
    public func start() {
        started = true
        connect()
    }

    private func connect() {
        output?.close()
        let o: AudioOutput
        switch outputKind {
        case .pulse: o = PulseOutput(targetLatency: outputLatency)
        case .jack:
            let jack = firstJack ?? JackOutput(options: jackOptions)
            jack.transport = jackTransport
            jack.trackCount = document?.tracks.count ?? 0
            o = jack
            firstJack = nil
        case .null: o = NullOutput()
        }
        o.open(render: renderState, shared: shared, sampleRate: sampleRate)
        shared.pointee.streamStarted.store(false, ordering: .relaxed)
        output = o
        attemptAt = Date()
        lastProgress = nil
    }

    /// Disconnects the output. Playback stops; the document stays loaded.
    public func stop() {
        started = false
        output?.close()
        output = nil
        // No thread renders now, so the state can be reset directly.
        drainCommands()
        renderState.pointee.apply(TransportCommand(.silence))
        wantPlaying = false
        shared.pointee.playing.store(false, ordering: .relaxed)
        silenceVoices()
        reclaim()
    }

    /// True while an output's thread may be rendering with the state.
    private var rendering: Bool { output != nil && !(output is FailedOutput) }

    /// Through the ring to the audio thread, or straight into the state when no thread renders.
    private func send(_ command: TransportCommand) {
        if rendering {
            shared.pointee.send(command)
        } else {
            drainCommands()
            renderState.pointee.apply(command)
            renderState.pointee.publish()
            RenderState.stampClock(renderState, latencyMicros: 0)
        }
    }

    /// Only while no thread renders.
    private func silenceVoices() {
        for v in 0..<RenderState.voiceCapacity { renderState.pointee.voices[v].active = false }
        shared.pointee.activeVoices.store(0, ordering: .relaxed)
    }

    /// Carries out commands still in the ring (only while no thread renders).
    private func drainCommands() {
        while let c = shared.pointee.receive() { renderState.pointee.apply(c) }
    }

    /// Loads the document's samples (off the audio thread) and publishes its schedule and settings.
    /// Returns one line per sample that could not be loaded, naming the file; those slots play silence.
    @discardableResult
    public func load(document: Document, baseDirectory: String?) -> [String] {
        self.baseDirectory = baseDirectory
        let warnings = loadSamples(document.slots)
        publish(document)
        return warnings
    }

    /// Publishes an edited document: heard from the next event, with no gap. A marker that already sounded in this
    /// pass does not sound again before the next one, wherever the edit moved it. When the slots changed, their
    /// samples are loaded here first (files already loaded are reused) and the problems are returned, one line
    /// per slot that cannot play; otherwise nothing is loaded and the result is empty.
    @discardableResult
    public func update(document: Document) -> [String] {
        let warnings = document.slots != loadedSlots ? loadSamples(document.slots) : []
        publish(document)
        return warnings
    }

    /// Loads the slots' samples (files already loaded are reused, failed ones tried again); returns the problems.
    private func loadSamples(_ slots: [ClipSlot]) -> [String] {
        let (buffers, warnings) = Self.loadOnQueue(bank, queue: loadQueue, slots: slots, baseDirectory: baseDirectory)
        samples = buffers
        loadedSlots = slots
        loading = nil
        return warnings
    }

    private static func loadOnQueue(_ bank: SampleBank, queue: DispatchQueue, slots: [ClipSlot], baseDirectory: String?)
        -> ([[SampleBuffer?]], [String]) {
        queue.sync {
            bank.retryFailures()
            return bank.samples(for: slots, baseDirectory: baseDirectory)
        }
    }

    /// The load problems of the slots as they are now (for a UI that wants to show them again).
    public func warnings(for document: Document) -> [String] {
        let base = baseDirectory
        return loadQueue.sync { bank.samples(for: document.slots, baseDirectory: base).1 }
    }

    // MARK: - Loading in the background

    /// A load under way on `loadQueue`; its result is picked up on the editor thread by `finishedLoad()`.
    private final class PendingLoad: Sendable {
        let slots: [ClipSlot]
        private let result = Mutex<([[SampleBuffer?]], [String])?>(nil)
        init(slots: [ClipSlot]) { self.slots = slots }
        func set(_ r: ([[SampleBuffer?]], [String])) { result.withLock { $0 = r } }
        func take() -> ([[SampleBuffer?]], [String])? { result.withLock { $0 } }
    }

    /// The newest load started in the background (a newer one makes older results moot).
    private var loading: PendingLoad?

    /// True while samples load in the background.
    public var isLoading: Bool { loading != nil }

    /// As `load`, but the samples are read on a background queue: the document is published at once (slots
    /// not loaded yet play silence) and the caller stays free, however slow a file is to read. The problems
    /// come from `finishedLoad()` once the samples are in.
    public func loadInBackground(document: Document, baseDirectory: String?) {
        self.baseDirectory = baseDirectory
        samples = []
        loadedSlots = []
        startLoading(document.slots)
        publish(document)
    }

    /// As `update`, with changed slots loaded in the background (they play their previous sound, or silence,
    /// until `finishedLoad()` brings the new ones in).
    public func updateInBackground(document: Document) {
        if document.slots != (loading?.slots ?? loadedSlots) { startLoading(document.slots) }
        publish(document)
    }

    private func startLoading(_ slots: [ClipSlot]) {
        let job = PendingLoad(slots: slots)
        loading = job
        let bank = self.bank, base = baseDirectory
        loadQueue.async {
            bank.retryFailures()
            job.set(bank.samples(for: slots, baseDirectory: base))
        }
    }

    /// Editor thread, polled: when the newest background load has finished, its samples are published with the
    /// document as it now stands and its problems returned (one line per slot that cannot play); else nil.
    public func finishedLoad() -> [String]? {
        guard let job = loading, let (buffers, warnings) = job.take() else { return nil }
        loading = nil
        samples = buffers
        loadedSlots = job.slots
        if let document { publish(document) }
        return warnings
    }

    private func publish(_ document: Document) {
        self.document = document
        (output as? JackOutput)?.addTrackPorts(document.tracks.count)
        seq += 1
        var document = document
        if let session = linkSession {
            // The document's own tempo changed (an edit): the session takes it. Otherwise the session's rules.
            let own = document.transport.bpm
            if let before = documentBPM, before != own { session.setBPM(own) }
            documentBPM = own
            let bpm = session.bpm
            linkBPM = bpm
            document.transport.tempo = Transport.tempoInRange(forBPM: bpm, beat: document.transport.beat)
            // Link has one tempo for every peer: the song's sections all play at it, their own tempos set aside.
            for i in document.song.sections.indices {
                document.song.sections[i].tempo = nil
                document.song.sections[i].tempoEnd = nil
            }
            // The tempo map too: the document plays at the session's one tempo (the map stays in the document).
            document.transport.tempoMap = TempoMap()
        }
        if followsClock {
            // The clock has one tempo: every section plays at it (the document's until a clock is heard), their
            // own tempos and ramps and the tempo map set aside, as under Link (the document keeps them).
            if let tempo = clockTempoPublished { document.transport.tempo = tempo }
            for i in document.song.sections.indices {
                document.song.sections[i].tempo = nil
                document.song.sections[i].tempoEnd = nil
            }
            document.transport.tempoMap = TempoMap()
        }
        let snap = PublishedSnapshot(seq: seq, document: document, sampleRate: sampleRate, samples: samples,
                                     playback: compiler.playback(for: document), clickSound: clickSound,
                                     preview: previewSample.map { ($0, previewSerial) })
        live.append(snap)
        shared.pointee.latest.store(Int(bitPattern: snap.pointer), ordering: .releasing)
        if !rendering {
            // No thread renders: take the snapshot here, so older ones can go.
            RenderState.adoptLatest(renderState)
            renderState.pointee.publish()
        }
        reclaim()
    }

    /// Follows an Ableton Link session (nil: plays on its own again): the loop's tempo is the session's (the
    /// document's times stay seconds at x1; its tempo becomes BPM · beat / 60), playing starts on the session's
    /// bar (quantum = the meter) and the beat phase is held to the session's. An edit of the document's tempo
    /// sets the session's. The song plays every section at the session's tempo. The session is kept until another
    /// replaces it.
    /// Call it before `start()`: the output then keeps its timing fresh for the session (see `pulseTimingTick`).
    public func follow(link session: LinkSession?) {
        if let session {
            linkSession = session
            documentBPM = nil
            shared.pointee.linkHandle.store(Int(bitPattern: session.handle), ordering: .releasing)
        } else {
            // The old session stays alive here: a block under way may still read it.
            shared.pointee.linkHandle.store(0, ordering: .releasing)
        }
        if let document { publish(document) }
    }

    /// Takes a tempo change of the followed session (the engine's status, position and playing state look too,
    /// so an editor reading them each frame needs nothing more): true when the tempo changed and was published.
    @discardableResult
    public func followLinkTempo() -> Bool {
        guard let session = linkSession, shared.pointee.linkHandle.load(ordering: .relaxed) != 0,
              let document else { return false }
        let bpm = session.bpm
        guard bpm != linkBPM else { return false }
        publish(document)
        return true
    }

    /// Plays an audio file once, at once, whatever the transport does (the file picker's preview); a preview
    /// still sounding stops. Returns the file's problem in one line, or nil. The file is loaded here, off the
    /// audio thread, and travels to it in the next snapshot.
    public func preview(path: String) -> String? {
        guard let document else { return "nothing to play with yet" }
        do {
            previewSample = try SampleLoader.load(path: path, sampleRate: sampleRate)
        } catch {
            return "\(error)"
        }
        previewSerial += 1
        publish(document)
        return nil
    }

    /// Frees snapshots the audio thread no longer reads.
    private func reclaim() {
        let oldest = shared.pointee.oldestInUse.load(ordering: .acquiring)
        live.removeAll { $0.seq < oldest && $0.seq != seq }
    }

    /// Starts playing from the current position. `loops` > 0 stops after that many passes of the region
    /// (0: endless with the loop on, one pass with it off).
    public func play(loops: Int = 0) {
        wantPlaying = true
        passLimit = loops
        // Cleared here, not only when the audio thread takes the command, so `isPlaying` is true at once.
        shared.pointee.finished.store(false, ordering: .releasing)
        send(TransportCommand(.play, value: Int32(clamping: loops)))
    }

    /// Plays from the start (pass 0) so that it is heard from `nanos` on `MonotonicClock`, to the frame as far as
    /// the output's reported latency tells (at once when that moment is past). Players sharing a document start
    /// so, each at the same moment of the host's clock.
    public func play(heardAtNanos nanos: UInt64, loops: Int = 0) {
        wantPlaying = true
        passLimit = loops
        shared.pointee.finished.store(false, ordering: .releasing)
        let frame = shared.pointee.readClock().frame(heardAtNanos: nanos, rate: sampleRate)
        send(TransportCommand(.playAt, value: Int32(clamping: loops), frame: frame, nanos: nanos))
    }

    /// Where the whole output sits, -1 (left only) ... 1 (right only); 0, both sides as the mix has them. A
    /// setting of this player, not of the document.
    public var pan: Double {
        get { Double(shared.pointee.outputPan.load(ordering: .relaxed)) / 1000 }
        set {
            let p = newValue.isFinite ? min(max(newValue, -1), 1) : 0
            shared.pointee.outputPan.store(Int((p * 1000).rounded()), ordering: .relaxed)
        }
    }

    /// Moves the music `seconds` later (earlier when negative) while it plays, from the next block.
    public func nudge(seconds: Double) {
        guard seconds.isFinite else { return }
        let frames = Int64((seconds * sampleRate).rounded())
        if frames != 0 { send(TransportCommand(.nudge, frame: frames)) }
    }

    public func pause() {
        wantPlaying = false
        send(TransportCommand(.pause))
    }

    public func toggle() {
        if isPlaying { pause() } else { play() }
    }

    /// Back to the start of the loop region (playing continues from there if it was playing).
    public func rewind() {
        send(TransportCommand(.rewind))
    }

    /// Moves the playhead to `seconds` on the timeline (inside the loop region; nothing happens in song mode).
    public func locate(seconds: Double) {
        guard seconds.isFinite else { return }
        send(TransportCommand(.locate, time: seconds))
    }

    /// Song mode: plays section `n` (from 0) from its first pass, from the next block on. Nothing happens when
    /// the document plays its loop.
    public func jump(toSection n: Int) {
        send(TransportCommand(.jump, value: Int32(clamping: n)))
    }

    /// True while the transport runs (also while a play command is on its way to the audio thread).
    public var isPlaying: Bool {
        maintain()
        // Following a MIDI clock, its Start and Stop decide, on the audio thread.
        if (followsClock || jackTransport == .follow) && rendering {
            return shared.pointee.playing.load(ordering: .relaxed)
        }
        if shared.pointee.finished.load(ordering: .acquiring) { wantPlaying = false }
        return wantPlaying
    }

    /// Plays clip slot `slot` (1...16) at `velocity` (0...1) at once: it starts at the beginning of the next block
    /// rendered, through the transport ring (no schedule is rebuilt), with the slot's sample, gain and envelope,
    /// and rings to its end whatever else plays, stops or starts. Returns where the music was when the key
    /// arrived (`arrival`, on `MonotonicClock`), as a recording needs it. An empty slot or a velocity of 0 plays
    /// nothing. Never allocates.
    @discardableResult
    public func hitPad(slot: Int, velocity: Double, arrival: UInt64 = MonotonicClock.nanos()) -> PadHit {
        let v = velocity.isFinite ? min(max(velocity, 0), 1) : 0
        let clock = shared.pointee.readClock()
        if (1...EngineShared.slotCount).contains(slot) {
            send(TransportCommand(.pad, value: Int32(slot - 1), level: Float(v)))
        }
        // The song's sections as the snapshot the clock was stamped with has them (built with it, on this thread).
        let played = live.last(where: { $0.seq == clock.snapshot }) ?? live.last
        let songPasses = passLimit > 0 ? passLimit : (played?.pointer.pointee.looping == true ? Int.max : 1)
        return PadHit(slot: slot, velocity: v, arrival: arrival, clock: clock, song: played?.songTiming,
                      songPasses: songPasses, loop: played?.loopTiming)
    }

    /// Null output only: renders `frames` frames on the calling thread and returns them (interleaved stereo).
    public func pump(frames: Int) -> [Float] {
        guard let null = output as? NullOutput else { return [] }
        let out = null.pump(frames: frames)
        reclaim()
        return out
    }

    /// Null output only: renders `frames` frames into `buffer` (interleaved stereo) on the calling thread, with
    /// no allocation: what an output backend's thread does on every callback.
    public func pump(into buffer: UnsafeMutablePointer<Float>, frames: Int) {
        guard let null = output as? NullOutput else { return }
        null.pump(into: buffer, frames: frames)
    }

    /// Retries a missing server every `retryInterval`, and gives up on a connection that takes too long.
    func maintain() {
        reclaim()
        followLinkTempo()
        followClockTempo()
        guard started, let output else { return }
        let elapsed = Date().timeIntervalSince(attemptAt)
        switch output.state {
        case .failed(let why) where !(output is FailedOutput):
            // Release the dead connection now (its thread stops), so edits are taken directly until the retry,
            // which comes `retryInterval` after the failure was seen.
            output.close()
            self.output = FailedOutput(reason: why)
            attemptAt = Date()
            // What was sounding is gone with the server; resuming voices mid-sample later would click.
            silenceVoices()
        case .failed where elapsed >= Self.retryInterval:
            connect()
        case .connecting where elapsed >= Self.connectTimeout:
            output.close()
            self.output = FailedOutput(reason: outputKind == .jack ? "JACK server not answering"
                                                                   : "PulseAudio server not answering")
            attemptAt = Date()
        case .running where outputKind == .pulse:
            // A server that freezes keeps its socket open: the stream only stops asking for audio.
            let frames = renderedFrames, now = Date()
            let started = shared.pointee.streamStarted.load(ordering: .relaxed)
            guard let last = lastProgress, last.frames == frames, last.started == started else {
                lastProgress = (frames, started, now)
                return
            }
            let limit = started ? Self.stallTimeout : Self.startStallTimeout
            if now.timeIntervalSince(last.at) >= limit {
                output.close()
                let seconds = limit == limit.rounded() ? "\(Int(limit))" : "\(limit)"
                self.output = FailedOutput(reason: "PulseAudio server stalled (it took no audio for \(seconds) s)")
                attemptAt = now
                lastProgress = nil
                silenceVoices()
            }
        default:
            break
        }
    }
}

/// Stands for an output that could not be reached until the next retry.
private final class FailedOutput: AudioOutput {
    let reason: String
    init(reason: String) { self.reason = reason }
    func open(render: UnsafeMutablePointer<RenderState>, shared: UnsafeMutablePointer<EngineShared>, sampleRate: Double) {}
    var state: OutputState { .failed(reason) }
    func close() {}
}

/// Made and used on one thread (the editor's): the compiler refuses to let it cross to another (a `@Sendable`
/// closure, a queue, a thread, a task), and nothing may declare it `Sendable` later.
@available(*, unavailable)
extension AudioEngine: Sendable {}

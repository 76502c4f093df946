import CJack
import Foundation
import Synchronization

/// Plays through a JACK server (jackd2, or PipeWire's JACK): client `tempera` (or the name asked for) with the mix
/// on ports `out_1` and `out_2`, connected to the physical playback ports where there are some (or to the ports
/// asked for, or nowhere), per-track or per-slot stereo ports when asked, the MIDI ports `midi_out` (notes) and
/// `clock_out` (MIDI clock), and `midi_in`.
/// The server's rate and period rule: the engine renders at the rate the server runs (`serverRate`), each
/// process callback one period. Xruns count as underruns; the server going away is reported in one line.
/// Rendering happens in JACK's process callback, on its real-time thread.
///
/// The server is the one `JACK_DEFAULT_SERVER` names (libjack reads it), else the default one; none is ever
/// started behind the user's back.
final class JackOutput: AudioOutput {
    private var link: UnsafeMutablePointer<JackLink>?
    private var client: OpaquePointer?
    private var openFailure: String?
    let options: JackOptions
    /// The name the server gave the client: the one asked for, or another when that was taken (`tempera-01`).
    let clientName: String
    /// The document's tracks when the output opens (`JackOptions.Outputs.tracks`: their ports are registered at
    /// once, up to `JackOptions.trackOutputCapacity`). Set before `open`.
    var trackCount = 0
    /// The render state whose stems this output allocated (freed on close).
    private var stemmed: UnsafeMutablePointer<RenderState>?
    /// JACK transport: followed or led (nil: neither).
    var transport: JackTransportMode?
    /// The rate the server runs at (nil: no server was reached).
    let serverRate: Double?

    /// Connects to the server at once (without activating), so its rate is known before samples are loaded.
    init(options: JackOptions = JackOptions()) {
        self.options = options
        CJack_silence()
        var status = jack_status_t(rawValue: 0)
        client = CJack_open(options.clientName, &status)
        if let client {
            serverRate = Double(jack_get_sample_rate(client))
            clientName = jack_get_client_name(client).map { String(cString: $0) } ?? options.clientName
        } else {
            serverRate = nil
            clientName = options.clientName
            // libjack missing (it is opened on first use, not linked) says so rather than a bare status.
            openFailure = CJack_load().map { "JACK: cannot open libjack (\(String(cString: $0)))" }
                ?? Self.describe(status)
        }
    }

    /// A failed `jack_client_open`'s status in words.
    static func describe(_ status: jack_status_t) -> String {
        let bits = status.rawValue
        if bits & JackServerFailed.rawValue != 0 || bits & JackServerError.rawValue != 0 {
            let name = ProcessInfo.processInfo.environment["JACK_DEFAULT_SERVER"].map { " '\($0)'" } ?? ""
            return "no JACK server\(name) (cannot connect)"
        }
        if bits & JackNameNotUnique.rawValue != 0 { return "JACK: the client name is taken" }
        if bits & JackVersionError.rawValue != 0 { return "JACK: the server speaks another protocol version" }
        return "JACK: cannot open a client (status \(bits))"
    }

    func open(render: UnsafeMutablePointer<RenderState>, shared: UnsafeMutablePointer<EngineShared>, sampleRate: Double) {
        guard let client else {
            openFailure = openFailure ?? "JACK: closed"
            return
        }
        let rate = Double(jack_get_sample_rate(client))
        guard rate == sampleRate else {
            openFailure = "the JACK server runs at \(Int(rate)) Hz, the samples were loaded at \(Int(sampleRate)) Hz:"
                + " restart tempera"
            closeClient()
            return
        }
        // No thread renders yet: the state may be set directly. JACK says how late each period is heard.
        render.pointee.aimsByClock = true
        let l = UnsafeMutablePointer<JackLink>.allocate(capacity: 1)
        l.initialize(to: JackLink(client: client, render: render, shared: shared, rate: rate))
        link = l
        func port(_ name: String, _ type: String, _ flags: JackPortFlags) -> OpaquePointer? {
            jack_port_register(client, name, type, UInt(flags.rawValue), 0)
        }
        l.pointee.out1 = port("out_1", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput)
        l.pointee.out2 = port("out_2", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput)
        l.pointee.midiOut = port("midi_out", JACK_DEFAULT_MIDI_TYPE, JackPortIsOutput)
        l.pointee.clockOut = port("clock_out", JACK_DEFAULT_MIDI_TYPE, JackPortIsOutput)
        l.pointee.midiIn = port("midi_in", JACK_DEFAULT_MIDI_TYPE, JackPortIsInput)
        guard l.pointee.out1 != nil, l.pointee.out2 != nil, l.pointee.midiOut != nil, l.pointee.clockOut != nil,
              l.pointee.midiIn != nil else {
            openFailure = "JACK: cannot register tempera's ports"
            closeClient()
            return
        }
        // Room for every stem from the start (the render call never allocates); the ports of the tracks there are
        // now, the ones added later as the document gains tracks (`addTrackPorts`).
        let stems = options.outputs == .slots ? EngineShared.slotCount
            : options.outputs == .tracks ? JackOptions.trackOutputCapacity : 0
        if stems > 0 {
            let ports = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: 2 * stems)
            ports.initialize(repeating: nil, count: 2 * stems)
            l.pointee.stemPorts = ports
            render.pointee.stems = Stems.make(count: stems, frames: JackLink.scratchFrames,
                                              bySlot: options.outputs == .slots)
            stemmed = render
            let wanted = options.outputs == .slots ? stems : trackCount
            guard registerStemPorts(upTo: wanted) else {
                openFailure = "JACK: cannot register tempera's \(options.outputs == .slots ? "slot" : "track") ports"
                closeClient()
                return
            }
        }
        let raw = UnsafeMutableRawPointer(l)
        jack_set_process_callback(client, jackProcess, raw)
        jack_set_xrun_callback(client, jackXrun, raw)
        jack_on_info_shutdown(client, jackShutdown, raw)
        l.pointee.transport = transport
        if transport == .lead && jack_set_timebase_callback(client, 0, jackTimebase, raw) != 0 {
            openFailure = "JACK: another client is the timebase master (--transport lead)"
            closeClient()
            return
        }
        shared.pointee.realTime.store(jack_is_realtime(client) != 0 ? 1 : 2, ordering: .relaxed)
        guard jack_activate(client) == 0 else {
            openFailure = "JACK: the server would not run tempera's client"
            closeClient()
            return
        }
        switch options.connect {
        case .physical: connectMix(client, pattern: nil, flags: JackPortIsPhysical.rawValue)
        case .matching(let pattern): connectMix(client, pattern: pattern, flags: 0)
        case .none: break
        }
        l.pointee.phase.store(1, ordering: .releasing)
    }

    /// Registers the stem ports up to stem `n` (at most the room there is) that are not yet, and lets the process
    /// callback fill them. False when the server refused one.
    @discardableResult
    private func registerStemPorts(upTo n: Int) -> Bool {
        guard let client, let l = link, let ports = l.pointee.stemPorts else { return true }
        let prefix = options.outputs == .slots ? "slot" : "track"
        var ready = l.pointee.stemPortsReady.load(ordering: .relaxed)
        while ready < min(n, l.pointee.render.pointee.stems.count) {
            for side in 0..<2 {
                ports[2 * ready + side] = jack_port_register(client, "\(prefix)_\(ready + 1)_\(side + 1)",
                                                             JACK_DEFAULT_AUDIO_TYPE, UInt(JackPortIsOutput.rawValue), 0)
                guard ports[2 * ready + side] != nil else { return false }
            }
            ready += 1
            l.pointee.stemPortsReady.store(ready, ordering: .releasing)
        }
        return true
    }

    /// Editor thread: the document has `count` tracks; with `--outputs tracks` the new ones get their ports (up
    /// to `JackOptions.trackOutputCapacity`).
    func addTrackPorts(_ count: Int) {
        guard options.outputs == .tracks else { return }
        registerStemPorts(upTo: count)
    }

    /// Connects `out_1` and `out_2` (by the name the server gave the client) to the first two audio input ports
    /// with `flags` whose names match `pattern` (both to the one, where there is one). Never to tempera's own.
    private func connectMix(_ client: OpaquePointer, pattern: String?, flags: UInt32) {
        guard let ports = jack_get_ports(client, pattern, JACK_DEFAULT_AUDIO_TYPE,
                                         UInt(flags | JackPortIsInput.rawValue)) else { return }
        defer { jack_free(ports) }
        var names: [String] = []
        var k = 0
        while let p = ports[k] {
            let name = String(cString: p)
            if !name.hasPrefix(clientName + ":") { names.append(name) }
            k += 1
        }
        guard let first = names.first else { return }
        jack_connect(client, "\(clientName):out_1", first)
        jack_connect(client, "\(clientName):out_2", names.count > 1 ? names[1] : first)
    }

    var state: OutputState {
        if let why = openFailure { return .failed(why) }
        guard let l = link else { return .failed("closed") }
        switch l.pointee.phase.load(ordering: .acquiring) {
        case 1:
            // The latency shown is the one a take subtracts from MIDI in's hits: the playback latency JACK
            // reports for `out_1`.
            return .running(latencyMs: Double(l.pointee.latencyFrames.load(ordering: .relaxed)) / l.pointee.rate * 1000)
        case 2:
            return .failed(l.pointee.lostReason())
        default:
            return .connecting
        }
    }

    /// The playback latency JACK reports for `out_1`, in frames (the most of its range).
    var playbackLatencyFrames: Int {
        guard let l = link else { return 0 }
        return Int(l.pointee.latencyFrames.load(ordering: .relaxed))
    }

    /// Editor thread: the hits MIDI in played since the last call, oldest first.
    func takeHits() -> [MidiInHit] { link?.pointee.takeHits() ?? [] }

    /// MIDI in's hits that could not be kept for the editor since the client started (the ring was full).
    var droppedHits: Int { link?.pointee.hitsDropped.load(ordering: .relaxed) ?? 0 }

    /// The controllers and note-ons MIDI in received since the last call (status, data 1, data 2).
    func takeControls() -> [(UInt8, UInt8, UInt8)] { link?.pointee.takeControls() ?? [] }

    func close() {
        closeClient()
        if let l = link {
            link = nil
            l.deinitialize(count: 1)
            l.deallocate()
        }
    }

    private func closeClient() {
        if let c = client {
            client = nil
            // Deactivating waits for a process callback under way; after it none runs.
            jack_deactivate(c)
            jack_client_close(c)
        }
        if let r = stemmed {
            stemmed = nil
            r.pointee.stems.deallocate()
            r.pointee.stems = Stems()
        }
    }

    deinit { close() }
}

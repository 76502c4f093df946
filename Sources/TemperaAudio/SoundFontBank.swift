import CFluidSynth
import Foundation
import TemperaCore

/// Notes of SoundFonts rendered with FluidSynth into samples, off the audio thread, so a SoundFont slot plays
/// like any other sample: from its exact frame, with no lock and nothing but a buffer read on the audio thread,
/// and the same live and offline.
///
/// A note is rendered from its note on at frame 0 (FluidSynth starts a note at the block after the call, and
/// no block came before), held `holdSeconds`, released, and kept until its release has died away below
/// -90 dBFS (at most `maxSeconds`); a slot's note once per velocity band. Fonts stay loaded and notes cached
/// by (font, bank, program, note, velocity).
///
/// - Warning: editor thread only (one synth per font, not shared with any other thread).
public final class SoundFontBank {
    /// How long a note is held before its release (a one-shot slot); a gate slot's note is held up to
    /// `maxSeconds` and cut by its gate.
    public static let holdSeconds = 1.0
    public static let maxSeconds = 12.0
    /// How long a gate slot's note is held: its gate closes it sooner.
    public static let gateHoldSeconds = 8.0
    /// The level below which a released note's tail counts as gone (-90 dBFS).
    static let silence: Float = 3.2e-5
    /// FluidSynth's master gain (its default, 0.2, leaves room for a whole orchestra): at 1, a loud snare of
    /// TimGM6mb peaks near -5 dBFS and its piano near -15 dBFS, about as loud as the default kit.
    static let gain = 1.0

    /// Where Debian installs General MIDI SoundFonts, best first: `sf2=default` plays the first that exists.
    public static let defaultFonts = ["/usr/share/sounds/sf2/FluidR3_GM.sf2", "/usr/share/sounds/sf2/default-GM.sf2",
                                      "/usr/share/sounds/sf2/TimGM6mb.sf2", "/usr/share/soundfonts/default.sf2",
                                      "/usr/share/soundfonts/FluidR3_GM.sf2"]
    /// The reference that names the default font.
    public static let defaultName = "default"

    /// A font that could not be used, or a note it does not have; the message names it, on one line.
    public struct FontError: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    private struct Key: Hashable {
        var path: String
        var bank: Int
        var program: Int
        var note: Int
        var velocity: Int
        var seconds: Double
    }

    private final class Font {
        let settings: OpaquePointer
        let synth: OpaquePointer
        let id: Int32

        init(settings: OpaquePointer, synth: OpaquePointer, id: Int32) {
            self.settings = settings
            self.synth = synth
            self.id = id
        }

        deinit {
            delete_fluid_synth(synth)
            delete_fluid_settings(settings)
        }
    }

    public let sampleRate: Double
    /// The rate FluidSynth renders at: the output's, or 48 kHz converted with libsamplerate when the output's
    /// is beyond what FluidSynth takes (8–96 kHz).
    let synthRate: Double
    private var fonts: [String: Font] = [:]
    private var notes: [Key: SampleBuffer] = [:]
    private var failures: [Key: String] = [:]

    public init(sampleRate: Double) {
        self.sampleRate = sampleRate
        synthRate = (8_000...96_000).contains(sampleRate) ? sampleRate : 48_000
    }

    /// The path `sf2=default` stands for on this machine, nil when no General MIDI font is installed.
    public static func defaultFont(exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) -> String? {
        defaultFonts.first(where: exists)
    }

    /// The note `note` of `program` in `bank` of the font at `path` (bank 128: General MIDI drums), struck at
    /// `velocity`, at the bank's rate, held `hold` seconds. `label` is how messages name the font.
    public func note(path: String, label: String, bank: Int, program: Int, note: Int, velocity: Int = 127,
                     hold: Double = holdSeconds) throws -> SampleBuffer {
        let key = Key(path: path, bank: bank, program: program, note: note, velocity: velocity, seconds: hold)
        if let b = notes[key] { return b }
        if let message = failures[key] { throw FontError(description: message) }
        do {
            let font = try load(path, label: label)
            let b = try render(font, label: label, bank: bank, program: program, note: note, velocity: velocity, hold: hold)
            notes[key] = b
            return b
        } catch let e as FontError {
            failures[key] = e.description
            throw e
        }
    }

    /// The sounds of a SoundFont slot: its note rendered once per velocity band (`ClipSlot.soundFontBands`, in
    /// order; held longer for a gate), or nils and the line that says why (a missing or broken font, a preset
    /// it lacks, no default font installed).
    public func samples(for slot: ClipSlot, baseDirectory: String?) -> ([SampleBuffer?], String?) {
        let bands = ClipSlot.soundFontBands.indices
        let silent = bands.map { _ -> SampleBuffer? in nil }
        guard let reference = slot.soundFont else { return (silent, nil) }
        let path: String
        if reference == Self.defaultName {
            guard let found = Self.defaultFont() else {
                return (silent, "no General MIDI SoundFont is installed for sf2=default (fluid-soundfont-gm or timgm6mb-soundfont)")
            }
            path = found
        } else {
            path = SamplePaths.resolve(reference, baseDirectory: baseDirectory)
        }
        used.insert(path)
        do {
            let hold = slot.mode == .gate ? Self.gateHoldSeconds : Self.holdSeconds
            return (try bands.map {
                try note(path: path, label: reference, bank: slot.bank, program: slot.program, note: slot.note ?? 60,
                         velocity: ClipSlot.soundFontVelocity(band: $0), hold: hold)
            }, nil)
        } catch {
            return (silent, "\(error)")
        }
    }

    /// The sound of a SoundFont slot at full velocity (the longest a note of the slot lasts), or nil and why.
    public func sample(for slot: ClipSlot, baseDirectory: String?) -> (SampleBuffer?, String?) {
        let (bands, problem) = samples(for: slot, baseDirectory: baseDirectory)
        return (bands.last ?? nil, problem)
    }

    /// Fonts named since the last `sweep`.
    private var used = Set<String>()

    /// Forgets the fonts and notes no slot named since the last sweep, and failures (so a fixed file is
    /// tried again at the next load).
    public func sweep() {
        keep(paths: used)
        used = []
    }

    /// Forgets the notes and fonts no slot uses any more.
    public func keep(paths: Set<String>) {
        fonts = fonts.filter { paths.contains($0.key) }
        notes = notes.filter { paths.contains($0.key.path) }
        failures = failures.filter { paths.contains($0.key.path) }
    }

    /// Forgets failures so the next load tries those fonts again.
    public func retryFailures() { failures.removeAll() }

    private func load(_ path: String, label: String) throws -> Font {
        if let f = fonts[path] { return f }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw FontError(description: "\(label): SoundFont not found (\(path))")
        }
        if isFolder.boolValue { throw FontError(description: "\(label): is a folder, not a SoundFont") }
        if let why = SampleLoader.notARegularFile(path) { throw FontError(description: "\(label): \(why) (\(path))") }
        if let why = SoundFontHeader.problem(path, limits: SampleLoader.limits) { throw FontError(description: "\(label): \(why)") }
        // FluidSynth is opened here, the first time a note is rendered, not when the program starts.
        if let why = CFluidSynth_load() {
            throw FontError(description: "\(label): FluidSynth could not be loaded (\(String(cString: why)))")
        }
        // Its own logging silenced once it is open (a bank made for a document without SoundFonts, as every
        // render makes, must not open it: with the sixty libraries it brings it took a third of a short render).
        CFluidSynth_quiet()
        guard let settings = new_fluid_settings() else { throw FontError(description: "\(label): FluidSynth could not start") }
        fluid_settings_setnum(settings, "synth.sample-rate", synthRate)
        fluid_settings_setnum(settings, "synth.gain", Self.gain)
        fluid_settings_setint(settings, "synth.reverb.active", 0)
        fluid_settings_setint(settings, "synth.chorus.active", 0)
        fluid_settings_setint(settings, "synth.threadsafe-api", 0)
        fluid_settings_setint(settings, "synth.cpu-cores", 1)
        guard let synth = new_fluid_synth(settings) else {
            delete_fluid_settings(settings)
            throw FontError(description: "\(label): FluidSynth could not start")
        }
        let id = fluid_synth_sfload(synth, path, 0)
        guard id != FLUID_FAILED else {
            delete_fluid_synth(synth)
            delete_fluid_settings(settings)
            throw FontError(description: "\(label): not a SoundFont FluidSynth can read")
        }
        let f = Font(settings: settings, synth: synth, id: id)
        fonts[path] = f
        return f
    }

    /// Runs the synth, its output thrown away, until no voice is left (voices turned off end at the next block).
    private static func flush(_ synth: OpaquePointer) {
        var scratch = [Float](repeating: 0, count: 64)
        for _ in 0..<1_000 where fluid_synth_get_active_voice_count(synth) > 0 {
            scratch.withUnsafeMutableBufferPointer {
                _ = fluid_synth_write_float(synth, 64, $0.baseAddress, 0, 1, $0.baseAddress, 0, 1)
            }
        }
    }

    private func render(_ font: Font, label: String, bank: Int, program: Int, note: Int, velocity: Int, hold: Double)
        throws -> SampleBuffer {
        let synth = font.synth
        // Bank 128 is General MIDI's percussion: FluidSynth's channel 10 plays it.
        let channel: Int32 = bank == 128 ? 9 : 0
        fluid_synth_system_reset(synth)
        Self.flush(synth)
        guard fluid_synth_program_select(synth, channel, font.id, Int32(bank), Int32(program)) == FLUID_OK else {
            throw FontError(description: "\(label): no program \(program) in bank \(bank)")
        }
        // The first time a synth plays a sample it comes out slightly unlike every later time (measured: from
        // its second frame on, by less than 1e-8): the same note is struck unheard first, so a rendering depends on
        // nothing but its note, whatever the synth rendered before.
        let v = Int32(max(1, min(velocity, 127)))
        fluid_synth_noteon(synth, channel, Int32(note), v)
        var scratch = [Float](repeating: 0, count: 256)
        scratch.withUnsafeMutableBufferPointer {
            _ = fluid_synth_write_float(synth, 256, $0.baseAddress, 0, 1, $0.baseAddress, 0, 1)
        }
        fluid_synth_all_sounds_off(synth, -1)
        Self.flush(synth)
        guard fluid_synth_noteon(synth, channel, Int32(note), v) == FLUID_OK else {
            throw FontError(description: "\(label): bank \(bank) program \(program) has no note \(note)")
        }
        let block = 64
        let rate = synthRate
        // Whole 64-frame blocks, so the synth is at a block's start when the next note is rendered.
        let holdFrames = Int((hold * rate / 64).rounded(.up)) * 64
        let maxFrames = Int(Self.maxSeconds * rate)
        var left = [Float](repeating: 0, count: block), right = [Float](repeating: 0, count: block)
        var out: [Float] = []
        out.reserveCapacity(min(holdFrames + Int(rate), maxFrames) * 2)
        var frames = 0, quietSince = 0, released = false, sounded = false
        while frames < maxFrames {
            if !released && frames >= holdFrames {
                fluid_synth_noteoff(synth, channel, Int32(note))
                released = true
            }
            let n = released ? block : min(block, holdFrames - frames)
            left.withUnsafeMutableBufferPointer { l in
                right.withUnsafeMutableBufferPointer { r in
                    _ = fluid_synth_write_float(synth, Int32(n), l.baseAddress, 0, 1, r.baseAddress, 0, 1)
                }
            }
            var loud = false
            for i in 0..<n {
                out.append(left[i])
                out.append(right[i])
                if abs(left[i]) > Self.silence || abs(right[i]) > Self.silence { loud = true }
            }
            frames += n
            if loud {
                quietSince = frames
                sounded = true
            }
            // Done once released, no voice sounds, and the last 10 ms were below the floor.
            if released && fluid_synth_get_active_voice_count(synth) == 0 { break }
            if released && frames - quietSince >= Int(0.01 * rate) { break }
        }
        // No voice of this note may sound into the next one rendered: a note's rendering depends on nothing
        // rendered before it.
        fluid_synth_all_sounds_off(synth, -1)
        Self.flush(synth)
        guard sounded else { throw FontError(description: "\(label): bank \(bank) program \(program) has no sound for note \(note)") }
        // Drop the silent tail, keeping one quiet block; a note still sounding at the limit fades out.
        let keep = min(frames, quietSince + block)
        out.removeSubrange((keep * 2)...)
        if rate != sampleRate {
            do {
                out = try SampleLoader.convert(out, frames: keep, ratio: sampleRate / rate, label: label)
            } catch {
                throw FontError(description: "\(error)")
            }
        }
        let length = out.count / 2
        let fade = min(length, max(1, Int(SampleLoader.endFadeSeconds * sampleRate)))
        for k in 0..<fade {
            let g = Float(fade - 1 - k) / Float(fade)
            out[2 * (length - fade + k)] *= g
            out[2 * (length - fade + k) + 1] *= g
        }
        return SampleBuffer(stereo: out, sampleRate: sampleRate)
    }
}

/// Made and used on one thread (the editor's): the compiler refuses to let it cross to another (a `@Sendable`
/// closure, a queue, a thread, a task), and nothing may declare it `Sendable` later.
@available(*, unavailable)
extension SoundFontBank: Sendable {}

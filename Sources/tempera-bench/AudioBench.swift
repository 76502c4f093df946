import CAllocCounter
import CFluidSynth
import Foundation
import TemperaAudio
import TemperaCore

/// Audio figures: offline render speed, the cost of 64 voices, and allocations in the render path.
enum AudioBench {
    static func run() {
        print("== Audio")
        let dir = NSTemporaryDirectory() + "tempera-bench-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        renderSpeed()
        voiceCost(dir: dir)
        allocations(click: false)
        allocations(click: true)
        studioAllocations()
        publishCost()
        soundFontCost()
    }

    /// What a SoundFont slot costs the editor thread: loading the font, rendering a note into a sample.
    static func soundFontCost() {
        guard let font = SoundFontBank.defaultFont() else { return print("  SoundFont: no General MIDI font installed") }
        let bank = SoundFontBank(sampleRate: 48_000)
        let t0 = Date()
        do {
            let piano = try bank.note(path: font, label: font, bank: 0, program: 0, note: 60)
            let t1 = Date()
            let snare = try bank.note(path: font, label: font, bank: 128, program: 0, note: 38)
            let t2 = Date()
            let gate = try bank.note(path: font, label: font, bank: 0, program: 48, note: 60, hold: SoundFontBank.gateHoldSeconds)
            let t3 = Date()
            print(String(format: "  SoundFont %@: load + piano C4 (%.2f s of sound) %.0f ms, snare (%.2f s) %.1f ms, "
                + "strings held 8 s (%.2f s, %.1f MB) %.0f ms", (font as NSString).lastPathComponent,
                Double(piano.frames) / 48_000, t1.timeIntervalSince(t0) * 1000, Double(snare.frames) / 48_000,
                t2.timeIntervalSince(t1) * 1000, Double(gate.frames) / 48_000, Double(gate.frames * 8) / 1e6,
                t3.timeIntervalSince(t2) * 1000))
        } catch {
            print("  SoundFont: \(error)")
        }
        // Why notes are pre-rendered: a note on sent to a running synth mid-block sounds at its next 64-frame block.
        CFluidSynth_quiet()
        let settings = new_fluid_settings()
        fluid_settings_setnum(settings, "synth.sample-rate", 48_000)
        let synth = new_fluid_synth(settings)
        defer {
            delete_fluid_synth(synth)
            delete_fluid_settings(settings)
        }
        guard fluid_synth_sfload(synth, font, 0) != FLUID_FAILED else { return }
        fluid_synth_program_select(synth, 9, 1, 128, 0)
        var late: [Int] = []
        for offset in [0, 1, 20, 37, 63] {
            fluid_synth_system_reset(synth)
            fluid_synth_program_select(synth, 9, 1, 128, 0)
            var l = [Float](repeating: 0, count: 256), r = [Float](repeating: 0, count: 256)
            l.withUnsafeMutableBufferPointer { lp in
                r.withUnsafeMutableBufferPointer { rp in
                    // 128 frames run first, then `offset` more, then the note on, then the rest.
                    _ = fluid_synth_write_float(synth, Int32(128 + offset), lp.baseAddress, 0, 1, rp.baseAddress, 0, 1)
                    fluid_synth_noteon(synth, 9, 38, 127)
                    _ = fluid_synth_write_float(synth, Int32(128 - offset), lp.baseAddress! + 128 + offset, 0, 1,
                                                rp.baseAddress! + 128 + offset, 0, 1)
                }
            }
            let first = (0..<256).first { abs(l[$0]) > 1e-4 } ?? 256
            late.append(first - 128 - offset)
        }
        let offsets = [0, 1, 20, 37, 63]
        print("  FluidSynth note on sent mid-block, first sound after it (frames) for offsets "
            + "\(offsets.map(String.init).joined(separator: "/")): \(late.map(String.init).joined(separator: "/"))")
    }

    /// What an edit costs the editor thread: compiling and publishing the schedule of a large document.
    static func publishCost() {
        var id: MarkerID = 0
        let tracks = (0..<10).map { t in
            Track(name: "t\(t)", markers: MarkerList((0..<10_000).map { i -> Marker in
                id += 1
                return Marker(id: id, time: Double(i) * 0.01 + Double(t) * 0.001, amp: 0.5, content: .clip(t + 1))
            }))
        }
        var doc = Document(tracks: tracks, transport: Transport(loopEnd: 100, length: 100))
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: nil)
        let rounds = 10
        let t0 = Date()
        for k in 0..<rounds {
            doc.transport.volume = 0.5 + Double(k) / 100
            engine.update(document: doc)
        }
        let ms = Date().timeIntervalSince(t0) / Double(rounds) * 1000
        print(String(format: "  publishing a volume change of a 100,000-marker document: %.1f ms", ms))
        var edits: [Document] = []
        for k in 0..<rounds {
            doc.tracks[3].markers.insert(Marker(id: 1_000_000 + MarkerID(k), time: 0.0005 + Double(k) * 0.01, amp: 0.5,
                                                content: .clip(2)))
            edits.append(doc)
        }
        let t1 = Date()
        for edit in edits { engine.update(document: edit) }
        let msEdit = Date().timeIntervalSince(t1) / Double(rounds) * 1000
        print(String(format: "  publishing a marker added to one of its 10 tracks: %.1f ms", msEdit))
    }

    /// 16 tracks of the default kit: straight sixteenths, swung eighths, fives and sevens, over a two-second loop.
    static func sixteenTrackDocument() -> Document {
        var tracks: [Track] = []
        var id: MarkerID = 0
        for t in 0..<16 {
            let division = [16, 12, 10, 14, 8, 7, 5, 9][t % 8]
            var markers: [Marker] = []
            for i in 0..<division {
                let time = 2 * Double(i) / Double(division) + (t >= 8 ? 0.013 * Double(i % 3) : 0)
                markers.append(Marker(id: id, time: time, amp: 0.3 + 0.05 * Double(i % 4), content: .clip(t + 1)))
                id += 1
            }
            tracks.append(Track(name: "t\(t + 1)", markers: MarkerList(markers)))
        }
        return Document(tracks: tracks)
    }

    static func renderSpeed() {
        let doc = sixteenTrackDocument()
        let r = OfflineRenderer(document: doc, baseDirectory: nil, loops: 30, maxTail: 0)
        if !r.warnings.isEmpty { print("  (kit not found: \(r.warnings[0]))") }
        var frames = 0
        let t0 = Date()
        r.render(blockFrames: 512) { block, _ in frames += block.count / 2 }
        let seconds = Date().timeIntervalSince(t0)
        let audio = Double(frames) / 48_000
        print(String(format: "  offline render, 16 tracks, %.0f s of audio: %.3f s = %.0fx real time", audio, seconds,
                     audio / seconds))
    }

    static func voiceCost(dir: String) {
        // A 3 s tone, so 64 voices started together all sound for the whole measurement.
        let tone = (0..<144_000).map { Float(0.2 * sin(2 * Double.pi * 220 * Double($0) / 48_000)) }
        let path = dir + "/tone.wav"
        do { try AudioFile.write(tone, sampleRate: 48_000, to: path, as: .wavFloat) } catch {
            print("  64 voices: \(error)")
            return
        }
        var slots = Document.defaultKit
        slots[0] = ClipSlot(name: "tone", file: path)
        let tracks = (0..<64).map { t in
            Track(name: "v\(t)", markers: MarkerList([Marker(id: MarkerID(t), time: 0, amp: 0.1, content: .clip(1))]))
        }
        let doc = Document(tracks: tracks, slots: slots, transport: Transport(loopEnd: 4, length: 4))
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        let block = 480
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: block * 2)
        defer { buffer.deallocate() }
        engine.pump(into: buffer, frames: block)
        let voices = engine.activeVoices
        let blocks = 200
        let t0 = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<blocks { engine.pump(into: buffer, frames: block) }
        let ns = Double(DispatchTime.now().uptimeNanoseconds - t0) / Double(blocks)
        print(String(format: "  %d voices: %.1f µs per 10 ms block = %.2f%% of real time", voices, ns / 1000,
                     ns / 10_000_000 * 100))
    }

    /// With `click`, the metronome sounds on every beat and a bar of count-in starts the playback.
    /// The render path with MIDI out on every slot and MIDI clock out: the sequencer's list, the sampler, the MIDI
    /// output's notes and note-offs, the clocks, through live edits and pads.
    static func studioAllocations() {
        var doc = sixteenTrackDocument()
        for i in 0..<16 { doc.slots[i].midiChannel = 1 + i % 16 }
        let engine = AudioEngine(output: .null)
        engine.sendsClock = true
        engine.load(document: doc, baseDirectory: nil)
        engine.start()
        engine.play()
        let block = 256
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: block * 2)
        defer { buffer.deallocate() }
        var counted = 0, calls = 0
        for round in 0..<20 {
            doc.transport.tempo = 1 + Double(round % 5) / 10
            engine.update(document: doc)
            for k in 0..<94 {
                // Pads go through the ring between blocks (the hit itself is the editor's), so the sequencer lists
                // them and MIDI out sends them; only the render calls are counted.
                if k % 5 == 0 { engine.hitPad(slot: 1 + (round + k) % 16, velocity: 0.5) }
                tempera_alloc_count_start()
                engine.pump(into: buffer, frames: block)
                counted += tempera_alloc_count_stop()
            }
            calls += 94
        }
        print("  allocations in the render path with MIDI out on 16 slots and MIDI clock out: \(counted) in \(calls) "
            + "render calls (20 tempo changes, pads between blocks)")
    }

    static func allocations(click: Bool) {
        // The counter counts: an array allocates.
        tempera_alloc_count_start()
        let probe = [Int](repeating: 1, count: Int(getpid() % 7) + 100)
        let check = tempera_alloc_count_stop()
        _ = probe.count

        var doc = sixteenTrackDocument()
        doc.transport.click = click
        doc.transport.countIn = click ? 1 : 0
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: nil)
        engine.start()
        engine.play()
        let block = 256
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: block * 2)
        defer { buffer.deallocate() }
        var counted = 0, calls = 0
        for round in 0..<20 {
            // Edits and tempo changes published between blocks (outside the count), adopted inside it.
            doc.transport.tempo = 1 + Double(round % 5) / 10
            doc.tracks[round % 16].gain = 0.5 + Double(round % 3) / 4
            if click { doc.transport.beat = 0.5 - Double(round % 3) / 10 }
            engine.update(document: doc)
            tempera_alloc_count_start()
            for _ in 0..<94 { engine.pump(into: buffer, frames: block) }   // about half a second
            counted += tempera_alloc_count_stop()
            calls += 94
        }
        print("  allocations in the render path\(click ? " with the click and a count-in" : ""): \(counted) in \(calls) "
            + "render calls (10 s of audio, 20 live edits; counter check: \(check) for one array)")

        // Pads hit between the blocks while the loop plays: the hit (its trip through the ring, the clock read)
        // and the render that starts it are both counted.
        // One silent hit first: the first hit in the process instantiates its types' runtime metadata, once.
        engine.hitPad(slot: 1, velocity: 0)
        var padCounted = 0, hits = 0
        for round in 0..<20 {
            tempera_alloc_count_start()
            for k in 0..<94 {
                if k % 3 == 0 {
                    engine.hitPad(slot: 1 + (round + k) % 16, velocity: 0.3 + Double(k % 7) / 10)
                    hits += 1
                }
                engine.pump(into: buffer, frames: block)
                _ = engine.slotSound(1 + k % 16)
            }
            padCounted += tempera_alloc_count_stop()
        }
        print("  allocations with pads being hit\(click ? " (click on)" : ""): \(padCounted) in \(20 * 94) render calls"
            + " and \(hits) pad hits")
    }
}

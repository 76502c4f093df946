import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// SoundFont slots: notes rendered by FluidSynth from the small General MIDI font `make test` installs
/// (Debian's timgm6mb-soundfont), played as samples on their exact frames.
final class SoundFontTests: XCTestCase {
    static let font = "/usr/share/sounds/sf2/TimGM6mb.sf2"
    var dir = ""

    override func setUpWithError() throws {
        dir = TestPaths.temporaryDirectory("sf2")
        guard FileManager.default.fileExists(atPath: Self.font) else {
            return XCTFail("\(Self.font) is missing: install timgm6mb-soundfont (make test does)")
        }
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// The frequency (to 0.05 Hz) between `low` and `high` where the spectrum of `mono` is strongest.
    static func peakFrequency(_ mono: [Float], rate: Double, low: Double, high: Double) -> Double {
        func power(_ hz: Double) -> Double {
            // Goertzel's recurrence: the DFT magnitude at one frequency.
            let w = 2 * Double.pi * hz / rate, c = 2 * cos(w)
            var s1 = 0.0, s2 = 0.0
            for x in mono {
                let s0 = Double(x) + c * s1 - s2
                s2 = s1
                s1 = s0
            }
            return s1 * s1 + s2 * s2 - c * s1 * s2
        }
        var best = low, bestPower = -1.0
        var hz = low
        while hz <= high {
            let p = power(hz)
            if p > bestPower { (best, bestPower) = (hz, p) }
            hz += 2
        }
        var fine = best - 2
        while fine <= best + 2 {
            let p = power(fine)
            if p > bestPower { (best, bestPower) = (fine, p) }
            fine += 0.05
        }
        return best
    }

    func testAPianoProgramPlayingNote69SoundsA440() throws {
        let bank = SoundFontBank(sampleRate: 48_000)
        let b = try bank.note(path: Self.font, label: "TimGM6mb", bank: 0, program: 0, note: 69)
        let samples = Array(UnsafeBufferPointer(start: b.data, count: b.frames * 2))
        // Half a second from 50 ms in, past the hammer's noise; left channel.
        let mono = stride(from: 2 * 2_400, to: 2 * 26_400, by: 2).map { samples[$0] }
        let peak = Self.peakFrequency(mono, rate: 48_000, low: 100, high: 2_000)
        XCTAssertEqual(peak, 440, accuracy: 0.5, "the strongest partial between 100 Hz and 2 kHz")
        // Held one second, then released: the note outlasts its hold and then ends.
        XCTAssertGreaterThan(b.frames, 48_000)
        XCTAssertLessThan(b.frames, Int(SoundFontBank.maxSeconds * 48_000))
    }

    /// A document of one track playing slot 1 at `times`, loop over `span` seconds.
    func document(_ slot: ClipSlot, times: [Double], span: Double, more: [ClipSlot] = [], amp: Double = 1) -> Document {
        Fixture.document(tracks: [times.map { ($0, Content.clip(1)) }], slots: [slot] + more, span: span, volume: 1, amp: amp)
    }

    func testADrumNoteSoundsWithin1msOfItsFrameWhereverItFallsInA64FrameBlock() throws {
        var snare = ClipSlot(name: "snare", note: 38)
        snare.soundFont = Self.font
        snare.bank = 128
        // Onsets 1.5 s apart, at frames 72000·i + r for offsets r across a 64-frame block.
        let offsets = [0, 1, 13, 31, 32, 47, 63, 64 + 5]
        let frames = offsets.enumerated().map { 72_000 * ($0.offset + 1) + $0.element }
        let doc = document(snare, times: frames.map { Double($0) / 48_000 }, span: Double(frames.last! + 72_000) / 48_000)
        let renderer = OfflineRenderer(document: doc, baseDirectory: dir, maxTail: 0)
        XCTAssertEqual(renderer.warnings, [])
        let out = renderer.renderAll()
        let floor: Float = 1e-4
        var delays: [Int] = []
        for f in frames {
            let before = (f - 4_800..<f).map { max(abs(out[2 * $0]), abs(out[2 * $0 + 1])) }.max()!
            XCTAssertLessThan(before, floor, "silence before the onset at \(f)")
            let first = (f..<f + 4_800).first { abs(out[2 * $0]) > floor || abs(out[2 * $0 + 1]) > floor }
            XCTAssertNotNil(first)
            XCTAssertLessThanOrEqual(first! - f, 48, "onset at \(f) (\(f % 64) into its block) sounds \(first! - f) frames late")
            delays.append(first! - f)
        }
        XCTAssertEqual(Set(delays).count, 1, "the same sound from every onset, wherever it falls: \(delays)")
    }

    func testAMissingOrBrokenSoundFontIsOneLineAndOnlyItsSlotIsSilent() throws {
        let click = try Fixture.wav(Fixture.block(frames: 200, level: 0.5), in: dir, name: "click.wav")
        let garbage = dir + "/garbage.sf2"
        _ = FileManager.default.createFile(atPath: garbage, contents: Data("RIFF\u{0}\u{0}\u{0}\u{0}sfbk not really".utf8))
        let truncated = dir + "/truncated.sf2"
        let whole = try Data(contentsOf: URL(fileURLWithPath: Self.font))
        _ = FileManager.default.createFile(atPath: truncated, contents: whole.prefix(200_000))
        for (font, message) in [(dir + "/none.sf2", "SoundFont not found (\(dir)/none.sf2)"),
                                (garbage, "not a SoundFont FluidSynth can read"),
                                (truncated, "damaged or truncated (it declares \(Limits.count(whole.count)) bytes, the file holds 200,000)")] {
            var piano = ClipSlot(name: "piano", note: 60)
            piano.soundFont = font
            let doc = Fixture.document(tracks: [[(0, .clip(1)), (0.25, .clip(2))]], slots: [piano, ClipSlot(file: click)],
                                       span: 0.5, volume: 1)
            let renderer = OfflineRenderer(document: doc, baseDirectory: dir, maxTail: 0)
            XCTAssertEqual(renderer.warnings, ["slot 1: \(font): \(message)"])
            let out = renderer.renderAll()
            XCTAssertEqual(Onsets.soundStarts(out), [12_000], "the click plays, the piano is silent")
        }
    }

    func testAnOutputRateBeyondFluidSynthsIsConvertedAndStaysInTune() throws {
        let bank = SoundFontBank(sampleRate: 192_000)
        let b = try bank.note(path: Self.font, label: "TimGM6mb", bank: 0, program: 0, note: 69)
        XCTAssertEqual(b.sampleRate, 192_000)
        let samples = Array(UnsafeBufferPointer(start: b.data, count: b.frames * 2))
        let mono = stride(from: 2 * 9_600, to: 2 * 105_600, by: 2).map { samples[$0] }
        XCTAssertEqual(Self.peakFrequency(mono, rate: 192_000, low: 300, high: 600), 440, accuracy: 0.5)
    }

    func testAMarkerPlaysTheRenderingOfItsVelocityBandScaledToItsAmplitude() throws {
        var piano = ClipSlot(name: "piano", note: 60)
        piano.soundFont = Self.font
        let bank = SoundFontBank(sampleRate: 48_000)
        let soft = try bank.note(path: Self.font, label: "", bank: 0, program: 0, note: 60, velocity: 32)
        let loud = try bank.note(path: Self.font, label: "", bank: 0, program: 0, note: 60, velocity: 127)
        func played(amp: Double) -> [Float] {
            let doc = Fixture.document(tracks: [[(0, .clip(1))]], slots: [piano], span: 2, volume: 1, amp: amp)
            return OfflineRenderer(document: doc, baseDirectory: dir, maxTail: 0).renderAll()
        }
        func frames(_ b: SampleBuffer, scale: Float) -> [Float] {
            // Past the 1 ms attack every voice starts with.
            (96..<24_000).map { b.data[$0] * scale }
        }
        // At a band's top the marker sounds exactly as FluidSynth plays that velocity.
        assertSamplesEqual(Array(played(amp: 0.25)[96..<24_000]), frames(soft, scale: 1), accuracy: 1e-6)
        assertSamplesEqual(Array(played(amp: 1)[96..<24_000]), frames(loud, scale: 1), accuracy: 1e-6)
        // Inside a band, scaled from the band's top: 0.2 is 0.8 of the velocity-32 rendering.
        assertSamplesEqual(Array(played(amp: 0.2)[96..<24_000]), frames(soft, scale: 0.8), accuracy: 1e-6)
        // FluidSynth's soft note is not the loud one turned down.
        let softPeak = frames(soft, scale: 1).map(abs).max()!, loudPeak = frames(loud, scale: 1).map(abs).max()!
        XCTAssertLessThan(softPeak, loudPeak * 0.25 * 0.9)
    }

    func testANoteRendersTheSameWhateverWasRenderedBefore() throws {
        func same(_ a: SampleBuffer, _ b: SampleBuffer) -> Bool {
            a.frames == b.frames && (0..<a.frames * 2).allSatisfy { a.data[$0] == b.data[$0] }
        }
        for rate in [48_000.0, 44_100] {
            let first = SoundFontBank(sampleRate: rate), second = SoundFontBank(sampleRate: rate)
            let a = try first.note(path: Self.font, label: "", bank: 0, program: 0, note: 60, velocity: 127)
            _ = try second.note(path: Self.font, label: "", bank: 128, program: 0, note: 38, velocity: 90, hold: 0.3)
            _ = try second.note(path: Self.font, label: "", bank: 0, program: 48, note: 72, velocity: 32)
            let b = try second.note(path: Self.font, label: "", bank: 0, program: 0, note: 60, velocity: 127)
            XCTAssertTrue(same(a, b), "at \(rate) Hz")
        }
    }

    func testAProgramTheFontLacksIsOneLine() throws {
        var slot = ClipSlot(name: "x", note: 60)
        slot.soundFont = Self.font
        slot.program = 3
        slot.bank = 77
        let renderer = OfflineRenderer(document: document(slot, times: [0], span: 0.5), baseDirectory: dir, maxTail: 0)
        XCTAssertEqual(renderer.warnings, ["slot 1: \(Self.font): no program 3 in bank 77"])
    }

    func testLivePlaybackOfSoundFontSlotsIsTheOfflineRenderSampleForSample() throws {
        let server = try PulseTestServer()
        defer { server.stop() }
        var piano = ClipSlot(name: "piano", note: 69, mode: .gate)
        piano.soundFont = Self.font
        var kick = ClipSlot(name: "kick", note: 36)
        kick.soundFont = Self.font
        kick.bank = 128
        let doc = Fixture.document(tracks: [[(0, .clip(2)), (0.1234, .clip(2)), (2.0.squareRoot() / 4, .clip(2))],
                                            [(0.05, .clip(1)), (0.3, .clip(1)), (0.4, .rest)]],
                                   slots: [piano, kick], tempo: 1.1, span: 0.5, volume: 0.9, amp: 0.8)
        let offline = OfflineRenderer(document: doc, baseDirectory: dir, loops: 3).renderAll()
        let heard = try server.recordPlayback(of: doc, baseDirectory: dir, loops: 3, in: dir,
                                              ringOut: 2)   // the last notes ring out
        XCTAssertEqual(heard.underruns, 0)
        let played = try XCTUnwrap(heard.aligned(with: offline), "nothing was recorded, or too little")
        assertSamplesEqual(played, offline, accuracy: 1e-6)
    }
}

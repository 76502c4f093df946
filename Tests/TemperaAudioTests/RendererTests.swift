import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// The mixing code, driven offline: every onset on its frame, gates, rests, no clicks.
final class RendererTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("render") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Two tracks of irregular times (sqrt(2), thirds, a `?`) at tempo 1.37 over three passes.
    func irregularDocument() throws -> Document {
        let a = try Fixture.wav(Fixture.block(frames: 200, level: 0.5), in: dir, name: "a.wav")
        let b = try Fixture.wav(Fixture.block(frames: 200, level: -0.25), in: dir, name: "b.wav")
        let t1: [(Double, Content?)] = [(0, .clip(1)), (1.0 / 3, .clip(2)), (2.0.squareRoot() / 4, .clip(1)),
                                        (0.61, .random), (0.9, .clip(2))]
        let t2: [(Double, Content?)] = [(0.125, .clip(2)), (0.5, .clip(1)), (0.777, .random), (0.8, nil)]
        return Fixture.document(tracks: [t1, t2], slots: [ClipSlot(file: a), ClipSlot(file: b)], tempo: 1.37, span: 1,
                                amp: 0.8)
    }

    func testEveryOnsetLandsOnItsScheduleFrame() throws {
        let doc = try irregularDocument()
        let r = OfflineRenderer(document: doc, baseDirectory: dir, loops: 3)
        let out = r.renderAll()
        let expected = Schedule(document: doc, sampleRate: 48_000).onsets(loops: 3).map { Int($0.frame) }.sorted()
        XCTAssertEqual(expected.count, 24)
        XCTAssertEqual(Onsets.soundStarts(out), expected)
        // The first frame of a voice: sample x amp x the first step of a 1 ms (48-frame) attack.
        XCTAssertEqual(out[0], 0.5 * 0.8 / 48, accuracy: 1e-7)
        XCTAssertEqual(r.passFrames, Int((3 / 1.37 * 48_000).rounded()))
    }

    func testTheBlockSizeNeverChangesTheSamples() throws {
        let doc = try irregularDocument()
        let r = OfflineRenderer(document: doc, baseDirectory: dir, loops: 2)
        let reference = r.renderAll(blockFrames: 512)
        XCTAssertEqual(r.renderAll(blockFrames: 37), reference)
        XCTAssertEqual(r.renderAll(blockFrames: 4096), reference)
    }

    func testAGateClosesAtTheNextMarkerThatIsNotAHold() throws {
        let long = try Fixture.wav(Fixture.block(frames: 48_000, level: 0.5), in: dir, name: "long.wav")
        let doc = Fixture.document(tracks: [[(0, .clip(1)), (0.25, .hold), (0.5, nil), (0.75, nil)]],
                                   slots: [ClipSlot(file: long, mode: .gate, release: 10)])
        let out = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0).renderAll()
        XCTAssertEqual(out[2 * 23_999], 0.5, "full level through the hold up to the gate's end")
        XCTAssertLessThan(out[2 * 24_200], 0.5, "releasing")
        XCTAssertEqual(out[2 * (24_000 + 480)], 0, "silent once the 10 ms release is over")
    }

    func testARestCutsAOneShotWithItsRelease() throws {
        let long = try Fixture.wav(Fixture.block(frames: 48_000, level: 0.5), in: dir, name: "long.wav")
        let doc = Fixture.document(tracks: [[(0, .clip(1)), (0.3, .hold), (0.4, .rest)], [(0.1, .clip(1))]],
                                   slots: [ClipSlot(file: long, gain: 0.8, release: 5)])
        let out = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0).renderAll()
        // Until the rest both tracks sound; 5 ms after it only the second track's voice is left.
        XCTAssertEqual(out[2 * 19_199], 0.8, accuracy: 1e-6)
        XCTAssertEqual(out[2 * (19_200 + 240)], 0.4, accuracy: 1e-6)
    }

    func testADecayEnvelopeFadesTheVoiceOut() throws {
        let long = try Fixture.wav(Fixture.block(frames: 48_000, level: 0.5), in: dir, name: "long.wav")
        let doc = Fixture.document(tracks: [[(0, .clip(1))]], slots: [ClipSlot(file: long, attack: 1, decay: 100)])
        let out = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0).renderAll()
        XCTAssertEqual(out[2 * 47], 0.5, accuracy: 1e-6, "attack over")
        XCTAssertEqual(out[2 * (48 + 2_400)], 0.25, accuracy: 1e-3, "half-way down the 100 ms decay")
        XCTAssertEqual(out[2 * (48 + 4_801)], 0)
    }

    func testTracksMutesAndMasterVolumeScaleTheMix() throws {
        let dc = try Fixture.wav(Fixture.block(frames: 4_800, level: 0.5), in: dir, name: "dc.wav")
        var doc = Fixture.document(tracks: [[(0, .clip(1))], [(0, .clip(1))], [(0, .clip(1))]],
                                   slots: [ClipSlot(file: dc, gain: 0.5)], volume: 0.5)
        doc.tracks[0].gain = 0.5
        doc.tracks[2].mute = true
        let out = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0).renderAll()
        // (0.5 x 0.5 x 0.5 + 0.5 x 0.5 x 1) x master 0.5
        XCTAssertEqual(out[2 * 1_000], 0.1875, accuracy: 1e-6)
    }

    func testAtThePolyphonyLimitTheOldestVoiceFadesOutFor2point5ms() throws {
        let dc = try Fixture.wav(Fixture.block(frames: 48_000, level: 0.1), in: dir, name: "dc.wav")
        let tracks: [[(Double, Content?)]] = (0..<5).map { [(Double($0) * 0.01, .clip(1))] }
        let doc = Fixture.document(tracks: tracks, slots: [ClipSlot(file: dc)])
        let out = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0, polyphony: 4).renderAll()
        XCTAssertEqual(out[2 * 1_900], 0.4, accuracy: 1e-6, "four voices")
        // The fifth starts at frame 1 920 (1 ms attack) while the first fades over 120 frames: never five at full
        // level (0.5).
        for i in 1_920..<1_920 + 120 { XCTAssertLessThan(out[2 * i], 0.47) }
        XCTAssertEqual(out[2 * (1_920 + 121)], 0.4, accuracy: 1e-6, "four again, the first one gone")
    }

    func testWithEverySlotBusyANewVoiceTakesTheQuietestFadingOneNeverASoundingOne() {
        let buffer = SampleBuffer(mono: Fixture.block(frames: 48_000, level: 0.1), sampleRate: 48_000)
        withOneClipRenderState(buffer) { state, shared in
            // Slot 0 sounds, quieter than everything else; the other 79 are stolen voices fading out, slot 5 the
            // quietest of them.
            for v in 0..<RenderState.voiceCapacity {
                state.pointee.voices[v] = Voice(
                    active: true, stolen: v != 0, track: 0, data: UnsafePointer(buffer.data), frames: buffer.frames,
                    trackGain: 1, level: v == 0 ? 0.2 : (v == 5 ? 0.5 : 0.9), stage: v == 0 ? .sustain : .release,
                    releaseStep: 0.001, seq: 1, order: UInt64(v + 1))
            }
            state.pointee.order = 100
            shared.pointee.send(TransportCommand(.play))
            var out: [Float] = [0, 0]
            RenderState.render(state, into: &out, frames: 1)
            XCTAssertEqual(state.pointee.voices[0].order, 1, "the sounding voice plays on")
            XCTAssertEqual(state.pointee.voices[0].position, 1)
            XCTAssertEqual(state.pointee.voices[5].order, 101, "the new voice took the quietest fading slot")
            XCTAssertEqual(state.pointee.voices[5].position, 1)
        }
    }

    /// A golden render: all 16 kit sounds on four tracks of uneven time, with a `?`, a rest and a gate, two
    /// passes at tempo 1.1, as 16-bit samples, hashed. A change to the kit or the mixer shows here; when it is
    /// meant, take the new hash from the failure message.
    func testAKitGrooveRendersAsItAlwaysHas() {
        let sixths: [(Double, Content?)] = (0..<12).map { (i: Int) -> (Double, Content?) in
            (Double(i) / 6, i % 4 == 3 ? .clip(4) : .clip(3))
        }
        let tracks: [[(Double, Content?)]] = [
            [(0, .clip(1)), (0.375, .clip(1)), (0.75, .clip(2)), (1.25, .clip(1)), (1.5, .clip(2)), (1.875, .clip(6))],
            sixths,
            [(0.2, .clip(7)), (0.55, .clip(8)), (0.9, .clip(9)), (1.1, .clip(5)), (1.3, .rest), (1.6, .random)],
            [(0, .clip(13)), (0.4, .clip(10)), (2.0.squareRoot() / 2, .clip(11)), (1, .clip(12)), (1.2, .clip(14)),
             (1.4, .clip(15)), (1.7, .clip(16)), (1.8, nil)],
        ]
        var doc = Fixture.document(tracks: tracks, slots: Document.defaultKit, tempo: 1.1, span: 2, volume: 0.8, amp: 0.7)
        doc.slots[15].mode = .gate
        let r = OfflineRenderer(document: doc, baseDirectory: nil, loops: 2, maxTail: 0, kitDirectory: TestPaths.kitDirectory)
        XCTAssertEqual(r.warnings, [])
        let out = r.renderAll()
        XCTAssertEqual(out.count / 2, Int((4 / 1.1 * 48_000).rounded()))
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for x in out {
            let q = UInt16(bitPattern: Int16((max(-1, min(1, x)) * 32_767).rounded()))
            hash = (hash ^ UInt64(q & 0xff)) &* 0x100_0000_01b3
            hash = (hash ^ UInt64(q >> 8)) &* 0x100_0000_01b3
        }
        XCTAssertEqual(String(hash, radix: 16), "a6b274e9e7a1131")
        XCTAssertLessThan(out.map(abs).max()!, 1)
    }

    func testTheMasterLimitsPeaksInsteadOfClipping() throws {
        let dc = try Fixture.wav(Fixture.block(frames: 4_800, level: 0.5), in: dir, name: "dc.wav")
        let doc = Fixture.document(tracks: [[(0, .clip(1))], [(0, .clip(1))], [(0, .clip(1))], [(0.05, .clip(1))]],
                                   slots: [ClipSlot(file: dc)])
        let out = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0).renderAll()
        // Below the limit the mix is untouched: three voices 2 frames into their attack.
        XCTAssertEqual(out[2 * 1], 1.5 * 2 / 48, accuracy: 1e-6)
        // 1.5 and 2.0 come out at the limit (the soft clip's knee), never past it: the soft clip is not reached.
        XCTAssertEqual(out[2 * 1_000], RenderState.limit, accuracy: 1e-6)
        XCTAssertEqual(out[2 * 3_000], RenderState.limit, accuracy: 1e-6)
        XCTAssertLessThanOrEqual(out.map(abs).max()!, RenderState.clipKnee)
        // The frame the mix first passes the limit (the attack reaches it two thirds of the way up) is limited at once.
        let first = (0..<48).first { 1.5 * Float($0) / 48 > RenderState.limit }!
        XCTAssertEqual(out[2 * first], RenderState.limit, accuracy: 1e-6)
    }

    func testTheLimitersGainComesBackAfterAPeak() throws {
        // A loud burst (four voices, 2.0) for 10 ms, then one voice of 0.5 from 100 ms: by then the gain is back to
        // within 30% of 1 (80 ms time constant); 850 ms later it is back at 1 and the voice untouched.
        let burst = try Fixture.wav(Fixture.block(frames: 480, level: 0.5), in: dir, name: "burst.wav")
        let long = try Fixture.wav(Fixture.block(frames: 48_000, level: 0.5), in: dir, name: "long.wav")
        let doc = Fixture.document(tracks: [[(0, .clip(1))], [(0, .clip(1))], [(0, .clip(1))], [(0, .clip(1))],
                                            [(0.1, .clip(2))]], slots: [ClipSlot(file: burst), ClipSlot(file: long)])
        let out = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0).renderAll()
        XCTAssertEqual(out[2 * 200], RenderState.limit, accuracy: 1e-6)
        XCTAssertLessThan(out[2 * 4_900], 0.5)
        XCTAssertGreaterThan(out[2 * 4_900], 0.5 * 0.7)
        XCTAssertEqual(out[2 * 45_600], 0.5)
    }

    func testAMidiNoteSlotPlaysItsPitchedSample() throws {
        let tone = try Fixture.wav(Fixture.sine(hz: 200, seconds: 0.5), in: dir, name: "tone.wav")
        let doc = Fixture.document(tracks: [[(0, .clip(1))]], slots: [ClipSlot(file: tone, note: 72)])
        let out = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 1).renderAll()
        XCTAssertEqual(out.count / 2, 48_000, "one pass; the half-length sample ends inside it")
        let last = (0..<48_000).last { out[2 * $0] != 0 }!
        XCTAssertEqual(last, 11_998, accuracy: 2)
    }

    func testANoteSlotWithoutAFilePlaysTheKitToneAtItsPitch() throws {
        let doc = Fixture.document(tracks: [[(0, .clip(1))]], slots: [ClipSlot(note: 72)], span: 2)
        let r = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0,
                                kitDirectory: TestPaths.kitDirectory)
        XCTAssertEqual(r.warnings, [])
        let out = r.renderAll()
        // An octave up, the kit's middle-C tone lasts half as long.
        let recorded = try SampleLoader.load(path: TestPaths.kitDirectory + "/note.wav", sampleRate: 48_000)
        let last = (0..<(out.count / 2)).last { out[2 * $0] != 0 }!
        XCTAssertEqual(last, recorded.frames / 2, accuracy: 2)
    }

    /// A continuous 220 Hz tone cut by rests, restarted by new onsets, stolen at a polyphony of 2 and carried
    /// across loop wraps: no sample-to-sample step exceeds the tone's own largest step.
    func testNothingClicks() throws {
        let sine = Fixture.sine(hz: 220, seconds: 1.2)
        let toneStep = zip(sine, sine.dropFirst()).map { abs($1 - $0) }.max()!
        let tone = try Fixture.wav(sine, in: dir, name: "tone.wav")
        let gate = try Fixture.wav(sine, in: dir, name: "gate.wav")
        let oneShots: [(Double, Content?)] = [(0, .clip(1)), (0.0731, .clip(1)), (0.1313, .rest), (0.2, .clip(1)),
                                              (0.2417, .clip(1)), (0.2903, .clip(1)), (0.3377, .clip(1)),
                                              (0.41, .rest), (0.4551, .clip(1))]
        let gates: [(Double, Content?)] = [(0.0113, .clip(2)), (0.1, .hold), (0.1771, .clip(2)), (0.2555, nil),
                                           (0.3, .clip(2)), (0.371, .rest), (0.43, .clip(2))]
        let doc = Fixture.document(tracks: [oneShots, gates],
                                   slots: [ClipSlot(file: tone, attack: 0, release: 0),
                                           ClipSlot(file: gate, mode: .gate, attack: 0, release: 0)],
                                   span: 0.5, amp: 0.25)
        let r = OfflineRenderer(document: doc, baseDirectory: dir, loops: 4, maxTail: 0, polyphony: 2)
        let out = r.renderAll()
        var largest: Float = 0
        for i in 1..<(out.count / 2) { largest = max(largest, abs(out[2 * i] - out[2 * (i - 1)])) }
        XCTAssertLessThanOrEqual(largest, toneStep)
        // The same document without fades would jump by about a quarter of the tone's amplitude.
        XCTAssertGreaterThan(largest, toneStep / 10, "the tone is really there")
    }
}

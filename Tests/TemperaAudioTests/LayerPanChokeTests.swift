import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// Velocity layers, pan and choke groups, rendered: what the mixer plays is checked sample by sample.
final class LayerPanChokeTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("layers") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Three layer files, each a sine of its own pitch, 0.2 s long.
    func threeLayers() throws -> [(samples: [Float], layer: ClipSlot.Layer)] {
        let specs: [(hz: Double, lo: Double, hi: Double, gain: Double)] = [(220, 0, 0.3, 0.5), (330, 0.3, 0.7, 1),
                                                                          (550, 0.7, 1, 1.5)]
        return try specs.enumerated().map { i, s in
            let samples = Fixture.sine(hz: s.hz, seconds: 0.2, amp: 0.3)
            let path = try Fixture.wav(samples, in: dir, name: "layer\(i + 1).wav")
            return (samples, ClipSlot.Layer(file: path, min: s.lo, max: s.hi, gain: s.gain))
        }
    }

    /// One track: markers at 0, 0.25 and 0.5 s with amplitudes 0.2, 0.5 and 0.9 on slot 1.
    func document(slot: ClipSlot) -> Document {
        var doc = Fixture.document(tracks: [[(0, .clip(1)), (0.25, .clip(1)), (0.5, .clip(1))]], slots: [slot])
        let amps = [0.2, 0.5, 0.9]
        let markers = Array(doc.tracks[0].markers)
        doc.tracks[0].markers = MarkerList(markers.enumerated().map { k, m in
            var m = m
            m.amp = amps[k]
            return m
        })
        return doc
    }

    func testEachAmplitudePlaysExactlyItsLayerFileAtItsGain() throws {
        let layers = try threeLayers()
        let slotGain = 0.8
        let doc = document(slot: ClipSlot(name: "drum", gain: slotGain, layers: layers.map(\.layer)))
        let out = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0).renderAll()
        let attack = 48, fadeAtEnd = 96
        for (k, amp) in [0.2, 0.5, 0.9].enumerated() {
            let (samples, layer) = layers[k]
            let start = k * 12_000
            let g = Float(amp) * Float(slotGain) * Float(layer.gain)
            for f in attack..<(samples.count - fadeAtEnd) {
                let expected = samples[f] * g
                XCTAssertEqual(out[2 * (start + f)], expected, "marker \(k + 1) left, frame \(f)")
                XCTAssertEqual(out[2 * (start + f) + 1], expected, "marker \(k + 1) right, frame \(f)")
                if out[2 * (start + f)] != expected { return }
            }
            // Nothing else sounds between the layers' ends and the next marker.
            for f in (start + samples.count)..<(start + 12_000) where out[2 * f] != 0 {
                XCTFail("marker \(k + 1): sound at frame \(f) after its layer ended")
                return
            }
        }
    }

    func testALayerIsChosenByTheRangeHoldingTheAmplitudeElseTheNearest() {
        let slot = ClipSlot(layers: [ClipSlot.Layer(file: "a", min: 0, max: 0.3), ClipSlot.Layer(file: "b", min: 0.3, max: 0.6),
                                     ClipSlot.Layer(file: "c", min: 0.8, max: 1)])
        XCTAssertEqual(slot.layer(for: 0), 0)
        XCTAssertEqual(slot.layer(for: 0.3), 0, "a shared end belongs to the earlier layer")
        XCTAssertEqual(slot.layer(for: 0.45), 1)
        XCTAssertEqual(slot.layer(for: 0.65), 1, "in a gap: the nearest range")
        XCTAssertEqual(slot.layer(for: 0.75), 2)
        XCTAssertEqual(slot.layer(for: 1), 2)
        XCTAssertNil(ClipSlot(file: "x").layer(for: 0.5))
    }

    func testPanHardLeftPutsEverythingInTheLeftChannel() throws {
        let layers = try threeLayers()
        let doc = document(slot: ClipSlot(name: "drum", layers: layers.map(\.layer), pan: -1))
        let out = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0).renderAll()
        var leftEnergy: Float = 0
        for f in 0..<(out.count / 2) {
            XCTAssertEqual(out[2 * f + 1], 0, "right channel at frame \(f)")
            if out[2 * f + 1] != 0 { return }
            leftEnergy += out[2 * f] * out[2 * f]
        }
        XCTAssertGreaterThan(leftEnergy, 1)
        // Equal power: hard left is the centre's two channels' power in one, sqrt(2) times the centre's level.
        let (samples, layer) = layers[0]
        XCTAssertEqual(out[2 * 100], samples[100] * (Float(0.2) * Float(layer.gain) * Float(2.0.squareRoot())))
    }

    func testThePanLawIsEqualPowerWithUnityAtTheCentre() {
        XCTAssertTrue(Pan.gains(0) == (1, 1))
        for p in stride(from: -1.0, through: 1.0, by: 0.125) {
            let (l, r) = Pan.gains(p)
            XCTAssertEqual(l * l + r * r, 2, accuracy: 1e-12, "pan \(p)")
        }
        XCTAssertTrue(Pan.gains(-1) == (2.0.squareRoot(), 0))
        XCTAssertTrue(Pan.gains(1) == (0, 2.0.squareRoot()))
        XCTAssertEqual(Pan.gains(0.5).right / Pan.gains(0.5).left, tan(3 * Double.pi / 8), accuracy: 1e-12)
    }

    /// An open hat (slot 2, one second of a constant level) at 0, a closed hat (slot 1, 100 frames) at 0.5 s on
    /// another track; both in `choke` group when given.
    func hats(choke: Int) throws -> [Float] {
        let closed = try Fixture.wav(Fixture.block(frames: 100, level: 0.25), in: dir, name: "closed.wav")
        let open = try Fixture.wav(Fixture.block(frames: 48_000, level: 0.5), in: dir, name: "open.wav")
        let doc = Fixture.document(tracks: [[(0.5, .clip(1))], [(0, .clip(2))]],
                                   slots: [ClipSlot(file: closed, choke: choke),
                                           ClipSlot(file: open, release: 500, choke: choke)])
        return OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0).renderAll()
    }

    func testAClosedHatOnsetFadesTheOpenHatOutWithinFiveMilliseconds() throws {
        let out = try hats(choke: 3)
        let onset = 24_000
        XCTAssertEqual(out[2 * (onset - 1)], 0.5, "the open hat sounds at full level up to the closed hat's frame")
        XCTAssertGreaterThan(out[2 * (onset + 10)], 0.25, "the fade has begun, not a jump to silence")
        let fiveMs = 240
        for f in (onset + fiveMs)..<(out.count / 2) where out[2 * f] != 0 || out[2 * f + 1] != 0 {
            XCTFail("sound at frame \(f), \(f - onset) frames after the closed hat")
            return
        }
    }

    func testWithoutAChokeGroupTheOpenHatRingsOn() throws {
        let out = try hats(choke: 0)
        XCTAssertEqual(out[2 * (24_000 + 1_000)], 0.5)
    }

    func testAChokeLeavesTheSlotsOwnVoicesAndOtherGroupsAlone() throws {
        let a = try Fixture.wav(Fixture.block(frames: 48_000, level: 0.25), in: dir, name: "a.wav")
        let doc = Fixture.document(tracks: [[(0, .clip(1)), (0.25, .clip(1))], [(0, .clip(2))]],
                                   slots: [ClipSlot(file: a, choke: 1), ClipSlot(file: a, choke: 2)])
        let out = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0).renderAll()
        // Slot 1 twice and slot 2 once, all still sounding at 0.5 s.
        XCTAssertEqual(out[2 * 24_000], 0.75)
    }

    func testCompiledEventsCarryTheirLayerAndFollowAChangeOfRanges() throws {
        let slot = ClipSlot(layers: [ClipSlot.Layer(file: "a", min: 0, max: 0.3), ClipSlot.Layer(file: "b", min: 0.3, max: 0.7),
                                     ClipSlot.Layer(file: "c", min: 0.7, max: 1)])
        var doc = document(slot: slot)
        let compiler = EventCompiler()
        XCTAssertEqual(compiler.events(for: doc).map(\.layer), [0, 1, 2])
        doc.slots[0].layers[1].max = 0.4
        doc.slots[0].layers[2].min = 0.4
        XCTAssertEqual(compiler.events(for: doc).map(\.layer), [0, 2, 2], "a new range recompiles the layers")
        doc.tracks[0].markers = MarkerList(doc.tracks[0].markers.map { m in
            var m = m
            m.content = .random
            return m
        })
        XCTAssertEqual(compiler.events(for: doc).map(\.layer), [-1, -1, -1], "a ? picks its layer when it fires")
    }

    func testARandomClipOnALayeredSlotPlaysTheLayerOfItsAmplitude() throws {
        let layers = try threeLayers()
        var doc = document(slot: ClipSlot(name: "drum", layers: layers.map(\.layer)))
        doc.tracks[0].markers = MarkerList(doc.tracks[0].markers.map { m in
            var m = m
            m.content = .random
            return m
        })
        let out = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0).renderAll()
        let reference = OfflineRenderer(document: document(slot: ClipSlot(name: "drum", layers: layers.map(\.layer))),
                                        baseDirectory: dir, loops: 1, maxTail: 0).renderAll()
        XCTAssertEqual(out, reference, "the only filled slot is drawn, each marker playing its layer")
    }
}

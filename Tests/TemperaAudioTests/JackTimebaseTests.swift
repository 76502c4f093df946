import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// tempera as JACK's timebase master (`--transport lead`) through a tempo map, a ramp and a 7/8 section: a test
/// client reads bar, beat, tick, meter and BPM every period, and they are those heard — checked against the
/// onsets of a click on every pulse, recorded by the same client.
final class JackTimebaseTests: JackTestCase {
    override var directoryName: String { "jack-timebase" }

    /// A 200-frame click in slot 1 on each of `times`.
    func clicks(_ times: [Double], transport: Transport) throws -> Document {
        let slots = try clickSlots("pulse")
        return Document(tracks: [Track(name: "t1", markers: MarkerList(times.enumerated().map {
            Marker(id: MarkerID($0.offset), time: $0.element, amp: 1, content: .clip(1))
        }))], slots: slots, transport: transport)
    }

    /// Leads the transport while `doc` plays for `frames` frames; the client's transport rows while rolling and
    /// the onsets it heard (absolute frames).
    func lead(_ doc: Document, frames: Int) throws -> (rows: [JackRecording.TransportRow], onsets: [Int]) {
        let server = try startServer()
        let rec = try server.startClient(transportLog: true)
        let engine = startEngine(doc, recorder: rec) { $0.jackTransport = .lead }
        let f0 = engine.renderedFrames
        engine.play()
        XCTAssertTrue(waitUntil(30) { engine.renderedFrames > f0 + frames })
        engine.pause()
        usleep(200_000)
        engine.stop()
        let recording = try rec.finish()
        return (recording.transport.filter(\.rolling), Onsets.soundStarts(recording.stereo).map(recording.frame))
    }

    /// Checks every period the client read: the pulse it says the music is at (the pulses of the bars before its
    /// bar, `pulsesBefore`, plus its beat and tick) is the pulse the onsets say (the last onset at or before the
    /// period and the way to the next), within a twentieth of a pulse; its meter is `meter` of that pulse; its
    /// BPM, pulses a minute, is `bpm` at that pulse, within 1.5.
    func check(_ rows: [JackRecording.TransportRow], onsets: [Int], pulsesBefore: (Int) -> Int,
               meter: (Double) -> (count: Int, unit: Int), bpm: (Double) -> Double, file: StaticString = #filePath,
               line: UInt = #line) -> Int {
        var checked = 0
        for row in rows {
            guard let i = onsets.lastIndex(where: { $0 <= row.frame }), i + 1 < onsets.count else { continue }
            let heard = Double(i) + Double(row.frame - onsets[i]) / Double(onsets[i + 1] - onsets[i])
            let said = Double(pulsesBefore(row.bar) + row.beat - 1) + Double(row.tick) / 1920
            XCTAssertEqual(said, heard, accuracy: 0.05, "bar \(row.bar) beat \(row.beat) tick \(row.tick)",
                           file: file, line: line)
            XCTAssertEqual(row.bpm, bpm(heard), accuracy: 1.5, "BPM at pulse \(heard)", file: file, line: line)
            let m = meter(heard)
            XCTAssertEqual(row.beatsPerBar, Double(m.count), "pulses a bar at pulse \(heard)", file: file, line: line)
            XCTAssertEqual(row.beatType, Double(m.unit), "the pulse's note at pulse \(heard)", file: file, line: line)
            checked += 1
        }
        return checked
    }

    /// A loop of two bars of 4/4 (beat 0.5 s) through a tempo map rising linearly from 90 to 150 BPM over it: the
    /// BPM published is the one heard on every period, and bars and beats stay on the onsets pass after pass.
    func testLeadingThroughATempoMapPublishesTheTempoHeardAndBarsThatStayOnTheBeats() throws {
        var t = Transport(tempo: 1, volume: 1, loopStart: 0, loopEnd: 4, loopOn: true, length: 4)
        t.beat = 0.5
        t.meter = 4
        t.tempoMap = TempoMap([TempoMap.Point(time: 0, tempo: 0.75, shape: .linear), TempoMap.Point(time: 4, tempo: 1.25)])
        let doc = try clicks((0..<8).map { Double($0) * 0.5 }, transport: t)
        // Two passes and a half: about 8.5 s.
        let (rows, onsets) = try lead(doc, frames: 48_000 * 8)
        XCTAssertGreaterThanOrEqual(onsets.count, 16, "two passes of pulses")
        let checked = check(rows, onsets: onsets, pulsesBefore: { ($0 - 1) * 4 }, meter: { _ in (4, 4) },
                            bpm: { pulse in
                                let x = (pulse * 0.5).truncatingRemainder(dividingBy: 4)
                                return 120 * (0.75 + 0.125 * x)
                            })
        XCTAssertGreaterThan(checked, 1_000)
    }

    /// A song: A (two bars of 4/4 ramping from 90 to 150 BPM), then B twice (a bar of 7/8 at 120 quarter notes a
    /// minute), looping. Bars count on through sections and song passes; B's bars are 7 eighths (beat type 8)
    /// published at 240 eighths a minute.
    func testLeadingASongCountsBarsThroughItsSectionsWithTheirMetersAndRamps() throws {
        var t = Transport(tempo: 1, volume: 1, loopStart: 0, loopEnd: 2, loopOn: true, length: 6)
        t.beat = 0.5
        t.meter = 4
        let sixteenths: [Double] = (0..<7).map { (i: Int) -> Double in 4 + Double(i) * 0.25 }
        let times: [Double] = [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5] + sixteenths
        var doc = try clicks(times, transport: t)
        var a = Song.Section(name: "A", start: 0, end: 4, repeats: 1, tempo: 0.75)
        a.tempoEnd = 1.25
        var b = Song.Section(name: "B", start: 4, end: 5.75, repeats: 2, tempo: 1)
        b.meter = Meter(7, 8)
        doc.song = Song(sections: [a, b], on: true, loop: true)
        // A song pass: 8 pulses of A (about 4.1 s), 14 of B (3.5 s); a pass and a half.
        let (rows, onsets) = try lead(doc, frames: 48_000 * 11)
        XCTAssertGreaterThanOrEqual(onsets.count, 28, "a song pass and most of the next")
        // Bars: A's two, then B's two (song pass 1: bars 1-4, pass 2: 5-8); 22 pulses a song pass.
        func pulsesBefore(_ bar: Int) -> Int {
            let pass = (bar - 1) / 4, r = (bar - 1) % 4
            return pass * 22 + [0, 4, 8, 15][r]
        }
        func inA(_ pulse: Double) -> Bool { pulse.truncatingRemainder(dividingBy: 22) < 8 }
        let checked = check(rows, onsets: onsets, pulsesBefore: pulsesBefore,
                            meter: { inA($0) ? (4, 4) : (7, 8) },
                            bpm: { pulse in
                                let p = pulse.truncatingRemainder(dividingBy: 22)
                                // A's tempo rises linearly with the music, 0.75 to 1.25 over its 4 s.
                                return p < 8 ? 120 * (0.75 + 0.125 * p * 0.5) : 240
                            })
        XCTAssertGreaterThan(checked, 1_000)
    }
}

import Foundation
import TemperaAudio
import TemperaCore
import TemperaPlayback
import TemperaTestSupport
import XCTest
import TemperaStudio
@testable import TemperaTerminal

/// The editor is its session's host: `play`, `stop`, `locate`, `open`, `import`, `theme`... typed on the `:` line
/// (or sent by OSC, or bound to a key) drive the same engine and files the keys do.
final class HostCommandTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "tempera-host-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// A dispatcher playing the demo through a real engine on the null output, which renders only when pumped.
    func makePlaying() -> (Dispatcher, AudioEngine) {
        let engine = AudioEngine(output: .null)
        engine.start()
        let d = Dispatcher(session: Session(document: .demo()), player: engine)
        engine.load(document: d.session.document, baseDirectory: nil)
        return (d, engine)
    }

    func testPlayStopAndLocateOnTheColonLineDriveTheEngine() throws {
        let (d, engine) = makePlaying()
        defer { engine.stop() }
        try d.runLine("play")
        XCTAssertTrue(engine.isPlaying)
        XCTAssertEqual(d.view.message, "playing")
        _ = engine.pump(frames: 4_800)
        XCTAssertEqual(engine.state.position, 0.1, accuracy: 0.002)
        try d.runLine("locate 1.25")
        XCTAssertEqual(d.view.message, "at 1.25 s")
        _ = engine.pump(frames: 4_800)
        XCTAssertEqual(engine.state.position, 1.35, accuracy: 0.002, "playing goes on from where it was put")
        try d.runLine("stop")
        XCTAssertFalse(engine.isPlaying)
        _ = engine.pump(frames: 4_800)
        let stopped = engine.state.position
        try d.runLine("locate 0.5")
        _ = engine.pump(frames: 4_800)
        XCTAssertEqual(engine.state.position, 0.5, accuracy: 0.002, "stopped, it stays where it was put")
        XCTAssertNotEqual(stopped, engine.state.position)
        try d.runLine("play")
        _ = engine.pump(frames: 2_400)
        XCTAssertEqual(engine.state.position, 0.55, accuracy: 0.002)
        try d.runLine("locate 7")
        XCTAssertEqual(d.view.message, "locate 7 is outside the loop region 0..2")
        XCTAssertTrue(d.view.messageIsError)
        XCTAssertFalse(d.session.isModified, "the transport is not an edit")
    }

    func testLocateSoundsTheFirstMarkerAtOrAfterItAndNoneBefore() throws {
        try AudioFile.write([Float](repeating: 0.5, count: 2_400), sampleRate: 48_000, to: dir + "/hit.wav", as: .wavFloat)
        let s = Session(document: .newDocument())
        try s.run(line: "slot 1 file=\(dir)/hit.wav")
        try s.run(line: "marker add 0.5 clip=1")
        try s.run(line: "marker add 1.5 clip=1")
        let engine = AudioEngine(output: .null)
        engine.start()
        defer { engine.stop() }
        let d = Dispatcher(session: s, player: engine)
        engine.load(document: s.document, baseDirectory: nil)
        try d.runLine("locate 1")
        try d.runLine("play")
        let heard = engine.pump(frames: 48_000 / 2 - 480)
        XCTAssertLessThan(heard.map(abs).max() ?? 0, 0.0001, "the marker at 0.5 is behind the playhead: silent until 1.5")
        let next = engine.pump(frames: 4_800)
        XCTAssertGreaterThan(next.map(abs).max() ?? 0, 0.01, "the marker at 1.5 sounds")
    }

    func testFilesAndTheScreenOnTheColonLine() throws {
        let d = Dispatcher(session: Session(document: .demo()))
        try d.runLine("w \(dir)/a.tempera")
        XCTAssertEqual(d.view.message, "saved \(dir)/a.tempera")
        XCTAssertEqual(d.session.path, "\(dir)/a.tempera")
        try d.runLine("tempo 1.5")
        try d.runLine("open \(dir)/a.tempera")
        XCTAssertEqual(d.view.question, .discard, "unsaved changes: it asks first")
        try d.runLine("e! \(dir)/a.tempera")
        XCTAssertEqual(d.session.document.transport.tempo, 1)
        XCTAssertEqual(d.view.message, "opened \(dir)/a.tempera")
        try d.runLine("open")
        XCTAssertEqual(d.view.message, "open needs a file name")
        XCTAssertTrue(d.view.messageIsError)
        try d.runLine("play")
        XCTAssertEqual(d.view.message, "no audio output in this session")
        try d.runLine("help")
        XCTAssertEqual(d.view.helpOffset, 0)
    }

    /// `:import SONG.h2song` reads a Hydrogen song as `tempera import` does (one registry of formats) and adds
    /// its tracks to the document, below the current track, as one undo step.
    func testTheColonLineImportsAHydrogenSongAsTheCommandLineDoes() throws {
        let song = "/usr/share/hydrogen/data/demo_songs/GM_kit_demo1.h2song"
        let before = Document.newDocument()
        let d = Dispatcher(session: Session(document: before))
        try d.runLine("import \(song)")
        XCTAssertFalse(d.view.messageIsError, d.view.message ?? "")
        XCTAssertTrue(d.view.message?.hasPrefix("imported \(song)") == true, d.view.message ?? "")
        let cli = Spawn.run(TestPaths.binary, ["import", song, "-o", dir + "/demo1.tempera"])
        XCTAssertEqual(cli.status, 0, cli.stderr)
        let alone = try DocumentFile.load(dir + "/demo1.tempera")
        // The song's patterns come as groups with their instances: compared as they play.
        let doc = d.session.document.expandingInstances()
        XCTAssertEqual(d.session.document.song.instances.count, alone.song.instances.count)
        XCTAssertEqual(doc.tracks.count, before.tracks.count + alone.tracks.count)
        XCTAssertEqual(doc.tracks[0].markers.map(\.time), before.tracks[0].markers.map(\.time))
        let added = Array(doc.tracks[1..<(1 + alone.tracks.count)])
        let played = alone.expandingInstances()
        XCTAssertEqual(added.map { $0.markers.map(\.time) }, played.tracks.map { $0.markers.map(\.time) })
        XCTAssertGreaterThan(added.map { $0.markers.count }.reduce(0, +), 50)
        // Each added marker plays the song's own sound, wherever its slot landed.
        for (a, b) in zip(added, played.tracks) {
            for (m, n) in zip(a.markers, b.markers) {
                if case .clip(let x)? = m.content, case .clip(let y)? = n.content {
                    XCTAssertEqual(doc.slot(x), alone.slot(y))
                } else {
                    XCTAssertEqual(m.content, n.content)
                }
            }
        }
        try d.runLine("undo")
        XCTAssertEqual(d.session.document.tracks, before.tracks)
        XCTAssertEqual(d.session.document.song, before.song)
        XCTAssertEqual(d.session.document.groups, before.groups)
        try d.runLine("import \(dir)/demo1.tempera")
        XCTAssertEqual(d.view.message, "\(dir)/demo1.tempera: not a file tempera imports (a recording, a Standard MIDI File or a Hydrogen song)")
        XCTAssertTrue(d.view.messageIsError)
        try d.runLine("import \(song) split")
        XCTAssertEqual(d.view.message, "\(song): split and slice are for recordings (a sound file)")
    }

    /// `:render` and `:export` write through the registry of formats: the file's ending chooses the format.
    func testRenderAndExportGoThroughTheRegistryOfFormats() throws {
        XCTAssertEqual(Formats.writer(for: "a.FLAC", sound: true).name, "a FLAC file")
        XCTAssertEqual(Formats.writer(for: "a.ogg", sound: true).name, "a WAV file", "an ending none writes: the first of its kind")
        XCTAssertEqual(Formats.writer(for: "a.midi", sound: false).name, "a Standard MIDI File")
        let d = Dispatcher(session: Session(document: .demo()), offline: StudioFiles())
        try d.runLine("render \(dir)/demo.flac")
        d.waitForRender()
        XCTAssertEqual(d.view.message, "rendered \(dir)/demo.flac")
        XCTAssertEqual(Array(try DocumentFile.readFile(dir + "/demo.flac").prefix(4)), Array("fLaC".utf8))
        try d.runLine("export \(dir)/demo.mid")
        XCTAssertTrue(d.view.message?.hasPrefix("exported the loop to \(dir)/demo.mid") == true, d.view.message ?? "")
        XCTAssertEqual(Array(try DocumentFile.readFile(dir + "/demo.mid").prefix(4)), Array("MThd".utf8))
    }
}

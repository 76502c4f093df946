import Foundation
import TemperaAudio
import TemperaCore
import TemperaKits
import TemperaTerminal
import TemperaTestSupport
import XCTest

/// Hydrogen drumkits: the three layouts of `drumkit.xml`, read from small kits the tests write themselves, and
/// every kit Hydrogen's packages installed on this machine.
final class HydrogenKitTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("kits") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Writes `root/NAME/drumkit.xml` with `xml` and a short WAV for each file named.
    @discardableResult
    func kit(_ name: String, in root: String, xml: String, files: [String]) throws -> String {
        let folder = root + "/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try xml.write(toFile: folder + "/drumkit.xml", atomically: true, encoding: .utf8)
        for (i, f) in files.enumerated() {
            try AudioFile.write([Float](repeating: 0.1 * Float(i + 1), count: 480), sampleRate: 48_000,
                                to: folder + "/" + f, as: .wavFloat)
        }
        return folder
    }

    /// Layout 1 (Hydrogen 0.9.7 and later): a namespace, layers inside `instrumentComponent`, `pan`.
    static let componentKit = """
        <?xml version="1.0" encoding="UTF-8"?>
        <drumkit_info xmlns="http://www.hydrogen-music.org/drumkit">
         <name>Component Kit</name>
         <author>tests</author>
         <license>CC0</license>
         <instrumentList>
          <instrument>
           <id>0</id><name>Snare</name><volume>0.8</volume><pan>-0.5</pan><pitchOffset>1</pitchOffset>
           <gain>0.5</gain><muteGroup>-1</muteGroup>
           <instrumentComponent>
            <component_id>0</component_id><gain>2</gain>
            <layer><filename>s1.wav</filename><min>0</min><max>0.4</max><gain>1</gain><pitch>0</pitch></layer>
            <layer><filename>s2.wav</filename><min>0.4</min><max>1</max><gain>0.5</gain><pitch>-2</pitch></layer>
           </instrumentComponent>
          </instrument>
          <instrument>
           <id>1</id><name>Hat Open</name><volume>1</volume><pan>0.25</pan><gain>1</gain><muteGroup>0</muteGroup>
           <instrumentComponent><component_id>0</component_id><gain>1</gain>
            <layer><filename>ho.wav</filename><min>0</min><max>1</max><gain>1</gain><pitch>0</pitch></layer>
           </instrumentComponent>
          </instrument>
         </instrumentList>
        </drumkit_info>
        """

    /// Layout 2 (0.9.4–0.9.6): no namespace, layers straight inside `instrument`, `pan_L`/`pan_R`.
    static let layerKit = """
        <drumkit_info>
         <name>Layer Kit</name>
         <license>GPL</license>
         <instrumentList>
          <instrument>
           <id>0</id><name>Kick</name><volume>1</volume><pan_L>1</pan_L><pan_R>0.5</pan_R><gain>1</gain>
           <muteGroup>2</muteGroup>
           <layer><filename>k1.wav</filename><min>0</min><max>0.5</max><gain>1</gain><pitch>0</pitch></layer>
           <layer><filename>k2.wav</filename><min>0.5</min><max>1</max><gain>1.5</gain><pitch>0.5</pitch></layer>
          </instrument>
          <instrument>
           <id>1</id><name>Tom</name><volume>0.9</volume><pan_L>0.25</pan_L><pan_R>1</pan_R>
           <layer><filename>t.wav</filename><min>0</min><max>1</max><gain>1</gain><pitch>0</pitch></layer>
          </instrument>
         </instrumentList>
        </drumkit_info>
        """

    /// Layout 3 (the oldest): one `filename` per instrument.
    static let fileKit = """
        <drumkit_info>
         <name>File Kit</name>
         <author>tests</author>
         <license>GPL</license>
         <instrumentList>
          <instrument><id>0</id><filename>clap.wav</filename><name>Clap</name><volume>0.73</volume>
           <isMuted>false</isMuted><pan_L>1</pan_L><pan_R>1</pan_R><exclude /></instrument>
         </instrumentList>
        </drumkit_info>
        """

    /// What a slot sounds on each side: its gain through tempera's own (equal-power) pan law.
    static func sides(_ slot: ClipSlot) -> (left: Double, right: Double) {
        let g = Pan.gains(slot.pan)
        return (slot.gain * g.left, slot.gain * g.right)
    }

    /// Asserts that `slot` sounds `left` and `right` (to 1e-12), as Hydrogen's default pan law puts them.
    static func assertSides(_ slot: ClipSlot, _ left: Double, _ right: Double, _ what: String,
                            file: StaticString = #filePath, line: UInt = #line) {
        let s = sides(slot)
        XCTAssertEqual(s.left, left, accuracy: 1e-12, "\(what): left", file: file, line: line)
        XCTAssertEqual(s.right, right, accuracy: 1e-12, "\(what): right", file: file, line: line)
    }

    func testLayersInsideComponentsReadWithGainsPanPitchAndMuteGroup() throws {
        let folder = try kit("comp", in: dir, xml: Self.componentKit, files: ["s1.wav", "s2.wav", "ho.wav"])
        let k = try HydrogenKit.read(folder: folder)
        XCTAssertEqual(k.name, "Component Kit")
        XCTAssertEqual(k.licence, "CC0")
        XCTAssertEqual(k.instruments.map(\.name), ["Snare", "Hat Open"])
        XCTAssertEqual(k.instruments.map(\.gain), [0.4, 1])
        XCTAssertEqual(k.instruments.map(\.pan), [-0.5, 0.25])
        let slots = k.kit.slots
        // Levels as Hydrogen plays the kit in a new song (its default law, RATIO_STRAIGHT_POLYGONAL): the near
        // side at the instrument's level, the far side at level × (1 − |pan|).
        Self.assertSides(slots[0], 0.4, 0.4 * 0.5, "Snare: volume 0.8 × gain 0.5, pan −0.5")
        Self.assertSides(slots[1], 0.75, 1, "Hat Open: volume 1, pan 0.25")
        let (snareGain, snarePan) = HydrogenPanLaw.slot(left: 0.4, right: 0.2)
        XCTAssertEqual(slots[0], ClipSlot(name: "Snare", gain: snareGain, layers: [
            ClipSlot.Layer(file: folder + "/s1.wav", min: 0, max: 0.4, gain: 2, pitch: 1),
            ClipSlot.Layer(file: folder + "/s2.wav", min: 0.4, max: 1, gain: 1, pitch: -1)], pan: snarePan))
        let (hatGain, hatPan) = HydrogenPanLaw.slot(left: 0.75, right: 1)
        XCTAssertEqual(slots[1], ClipSlot(name: "Hat Open", file: folder + "/ho.wav", gain: hatGain, pan: hatPan, choke: 1),
                       "one plain full-range layer is the slot's file; mute group 0 is choke group 1")
    }

    func testLayersDirectlyInTheInstrumentReadWithTheOldPanPair() throws {
        let folder = try kit("layers", in: dir, xml: Self.layerKit, files: ["k1.wav", "k2.wav", "t.wav"])
        let k = try HydrogenKit.read(folder: folder)
        XCTAssertEqual(k.instruments.map(\.pan), [-0.5, 0.75], "pan_L 1, pan_R 0.5: half left; pan_L 0.25, pan_R 1: three quarters right")
        let slots = k.kit.slots
        let (kickGain, kickPan) = HydrogenPanLaw.slot(left: 1, right: 0.5)
        XCTAssertEqual(slots[0], ClipSlot(name: "Kick", gain: kickGain, layers: [
            ClipSlot.Layer(file: folder + "/k1.wav", min: 0, max: 0.5),
            ClipSlot.Layer(file: folder + "/k2.wav", min: 0.5, max: 1, gain: 1.5, pitch: 0.5)], pan: kickPan, choke: 3))
        Self.assertSides(slots[0], 1, 0.5, "Kick")
        Self.assertSides(slots[1], 0.9 * 0.25, 0.9, "Tom: volume 0.9, three quarters right")
    }

    func testALoneFilenameIsTheInstrumentsOneFile() throws {
        let folder = try kit("file", in: dir, xml: Self.fileKit, files: ["clap.wav"])
        let k = try HydrogenKit.read(folder: folder)
        XCTAssertEqual(k.kit.slots, [ClipSlot(name: "Clap", file: folder + "/clap.wav", gain: 0.73)])
    }

    func testBrokenKitsAreOneLineNamingTheFile() throws {
        let folder = try kit("broken", in: dir, xml: "<drumkit_info><name>x</name>", files: [])
        XCTAssertThrowsError(try HydrogenKit.read(folder: folder)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix("kit: \(folder)/drumkit.xml is not readable XML"), text)
            XCTAssertFalse(text.contains("\n"))
        }
        let other = try kit("other", in: dir, xml: "<song><name>x</name></song>", files: [])
        XCTAssertThrowsError(try HydrogenKit.read(folder: other)) { error in
            XCTAssertEqual("\(error)", "kit: \(other)/drumkit.xml is not a Hydrogen drumkit (its root is <song>, not <drumkit_info>)")
        }
    }

    func testAKitWhoseDrumkitXmlIsAFifoIsOneLineAtOnce() throws {
        let folder = dir + "/fifo"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(folder + "/drumkit.xml", 0o600), 0)
        let t0 = Date()
        XCTAssertThrowsError(try HydrogenKit.read(folder: folder)) { error in
            XCTAssertEqual("\(error)", "kit: \(folder)/drumkit.xml is a pipe (FIFO), not a regular file")
        }
        XCTAssertLessThan(Date().timeIntervalSince(t0), 1)
    }

    func library() throws -> HydrogenKits {
        let user = dir + "/user", system = dir + "/system"
        try kit("comp", in: system, xml: Self.componentKit, files: ["s1.wav", "s2.wav", "ho.wav"])
        try kit("layers", in: system, xml: Self.layerKit, files: ["k1.wav", "k2.wav", "t.wav"])
        try kit("file", in: user, xml: Self.fileKit, files: ["clap.wav"])
        try FileManager.default.createDirectory(atPath: system + "/not-a-kit", withIntermediateDirectories: true)
        return HydrogenKits(roots: [user, system])
    }

    func testKitListNamesEveryInstalledKitAndLoadFindsThemByNameOrPath() throws {
        let kits = try library()
        XCTAssertEqual(kits.list().map(\.name), ["File Kit", "Component Kit", "Layer Kit"])
        XCTAssertEqual(kits.list().map(\.instruments), [1, 2, 2])
        XCTAssertEqual(try kits.load("Layer Kit").name, "Layer Kit")
        XCTAssertEqual(try kits.load("layer kit").name, "Layer Kit", "a name ignoring case")
        XCTAssertEqual(try kits.load("comp").name, "Component Kit", "a folder's name")
        XCTAssertEqual(try kits.load(dir + "/user/file").name, "File Kit")
        XCTAssertEqual(try kits.load(dir + "/user/file/drumkit.xml").name, "File Kit")
        XCTAssertThrowsError(try kits.load("Nope")) { XCTAssertEqual("\($0)", "no kit named 'Nope' (kit list names the 3 installed)") }
        XCTAssertThrowsError(try kits.load(dir + "/system/not-a-kit")) {
            XCTAssertEqual("\($0)", "kit: \(self.dir)/system/not-a-kit holds no drumkit.xml")
        }
    }

    func testKitLoadPutsInstrumentsOnSlotsFromNAsOneUndoStep() throws {
        let s = Session(document: .demo())
        s.kits = try library()
        let before = s.document.slots
        XCTAssertEqual(try s.run(line: "kit load \"Component Kit\" from=15"), "kit Component Kit (CC0) on slots 15-16")
        XCTAssertEqual(s.document.slot(15).name, "Snare")
        XCTAssertEqual(s.document.slot(16).name, "Hat Open")
        XCTAssertEqual(Array(s.document.slots[0..<14]), Array(before[0..<14]))
        XCTAssertEqual(try s.run(line: "kit load layers from=16"),
                       "kit Layer Kit (GPL) on slots 16-16; 1 more instruments left out: Tom")
        _ = try s.run(line: "undo 2")
        XCTAssertEqual(s.document.slots, before)
        XCTAssertEqual(try s.run(line: "kit list"),
                       "3 kits: File Kit (1, GPL), Component Kit (2, CC0), Layer Kit (2, GPL)")
        XCTAssertThrowsError(try s.run(line: "kit load Nope"))
        XCTAssertEqual(s.document.slots, before, "a failed load changes nothing")
        XCTAssertEqual(try CommandParser.parse("kit load \"My Kit\" from=3")?.text, "kit load \"My Kit\" from=3")
    }

    func testTheClipsTabsKitChooserLoadsTheChosenKitFromTheChosenSlot() throws {
        let d = Dispatcher(session: Session(document: .demo()), width: 100, height: 30, clock: { 0 })
        d.session.kits = try library()
        d.view.tab = .clips
        d.view.focus = .tab
        d.session.chosenClip = .clip(14)
        for k in Key.sequence("K") { d.handle(k) }
        XCTAssertEqual(d.view.picker?.entries.map(\.name), ["File Kit", "Component Kit", "Layer Kit"])
        XCTAssertEqual(d.view.picker?.entries.map(\.detail), ["1 instruments, GPL", "2 instruments, CC0", "2 instruments, GPL"])
        for k in Key.sequence("down enter") { d.handle(k) }
        XCTAssertNil(d.view.picker)
        XCTAssertEqual(d.session.document.slots[13...14].map(\.name), ["Snare", "Hat Open"])
        XCTAssertEqual(d.view.message, "kit Component Kit (CC0) on slots 14-15")
        for k in Key.sequence("u") { d.handle(k) }
        XCTAssertEqual(d.session.document.slot(14).name, "clave")
    }

    func testALoadedKitRendersItsLayers() throws {
        let s = Session(document: Document(tracks: [Track(name: "t", markers: MarkerList([
            Marker(id: 0, time: 0, amp: 0.2, content: .clip(1)), Marker(id: 1, time: 0.5, amp: 0.9, content: .clip(1))]))]))
        s.kits = try library()
        _ = try s.run(line: "kit load layers")
        var doc = s.document
        doc.transport = Transport(volume: 1, loopStart: 0, loopEnd: 1, loopOn: true, length: 1)
        let r = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 0)
        XCTAssertEqual(r.warnings, [])
        let out = r.renderAll()
        // k1.wav (level 0.1) at amp 0.2, then k2.wav (level 0.2, gain 1.5, pitched half a semitone) at amp 0.9,
        // both panned half left as Hydrogen plays them: the left side at unity, the right at a half.
        XCTAssertEqual(out[2 * 100], 0.1 * 0.2, accuracy: 1e-6)
        XCTAssertEqual(out[2 * 100 + 1], 0.1 * 0.2 * 0.5, accuracy: 1e-6)
        XCTAssertEqual(out[2 * (24_000 + 100)], 0.2 * (Float(0.9) * 1.5), accuracy: 2e-3)
        XCTAssertEqual(out[2 * (24_000 + 100) + 1], 0.2 * (Float(0.9) * 1.5) * 0.5, accuracy: 1e-3)
    }

    /// A kit loaded alone sounds as a song using it imports it: the demo songs' instruments are their kits' own
    /// (same volume, gain and pan) and the songs use Hydrogen's default pan law, so each instrument's slot is the
    /// same both ways, gain and pan exactly. (The songs' levels are checked against h2cli's renders in
    /// H2cliComparisonTests.)
    func testAKitLoadedAloneSoundsAsTheDemoSongsUsingItImportIt() throws {
        let pairs = [("GM_kit_demo1", "GMRockKit"), ("TR808kit-demo", "TR808EmulationKit")]
        let kits = HydrogenKits(roots: [HydrogenKits.systemRoot])
        var compared = 0, panned = 0
        for (song, kitName) in pairs {
            let path = "/usr/share/hydrogen/data/demo_songs/\(song).h2song"
            guard FileManager.default.fileExists(atPath: path), let kit = try? kits.load(kitName) else {
                throw XCTSkip("needs Hydrogen's demo songs and kits (Debian's hydrogen-data and hydrogen-drumkits)")
            }
            let (doc, _) = try HydrogenSong.document(path: path, kits: kits)
            for (i, track) in doc.tracks.enumerated() {
                let imported = doc.slot(i + 1)
                let loaded = try XCTUnwrap(kit.slots.first { $0.name == track.name }, "\(kitName) has \(track.name)")
                XCTAssertEqual(loaded.gain, imported.gain, "\(song): \(track.name)")
                XCTAssertEqual(loaded.pan, imported.pan, "\(song): \(track.name)")
                compared += 1
                if imported.pan != 0 { panned += 1 }
            }
        }
        print("kit load against song import: \(compared) instruments, \(panned) of them panned, the same gain and pan")
        XCTAssertGreaterThan(panned, 3, "panned instruments are compared")
    }

    /// Every kit Hydrogen's packages installed here reads, with its instruments and their files.
    func testEveryInstalledHydrogenKitLoads() throws {
        let system = HydrogenKits(roots: [HydrogenKits.systemRoot])
        let folders = system.folders()
        guard !folders.isEmpty else {
            print("HydrogenKitTests: skipped, no kits under \(HydrogenKits.systemRoot) (install hydrogen-drumkits)")
            return
        }
        var instruments = 0, layers = 0, missing = 0
        for folder in folders {
            let k = try HydrogenKit.read(folder: folder)
            XCTAssertFalse(k.instruments.isEmpty, folder)
            instruments += k.sounding.count
            XCTAssertFalse(k.sounding.isEmpty, "\(k.name) has no instrument with a sound")
            XCTAssertEqual(k.kit.slots.count, k.sounding.count)
            for i in k.sounding {
                for l in i.layers {
                    layers += 1
                    if !FileManager.default.fileExists(atPath: l.file) { missing += 1 }
                    XCTAssertTrue(0 <= l.min && l.min <= l.max && l.max <= 1)
                }
            }
            XCTAssertEqual(try system.load(k.name).name, k.name)
        }
        print("HydrogenKitTests: \(folders.count) kits, \(instruments) instruments, \(layers) layers, "
            + "\(missing) layer files missing")
        XCTAssertGreaterThanOrEqual(folders.count, 14)
        XCTAssertEqual(system.list().count, folders.count)
    }
}

import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// SoundFonts whose headers promise what no font should hold — a sample at 1 Hz, a chunk of gigabytes in a
/// file of kilobytes, a sparse file of gigabytes, a sample running past the sample data — are refused from
/// their headers, in one line, at once and in little memory, before FluidSynth reads them; a font whose
/// headers are sound, made the same way, plays.
final class SoundFontBombTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("sf2-bombs") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    static func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    static func le16(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
    static func chunk(_ id: String, _ body: [UInt8], size: Int? = nil) -> [UInt8] {
        Array(id.utf8) + le32(size ?? body.count) + body + (body.count % 2 == 1 ? [0] : [])
    }
    static func name(_ s: String, _ length: Int = 20) -> [UInt8] {
        Array(s.utf8.prefix(length)) + [UInt8](repeating: 0, count: max(0, length - s.utf8.count))
    }

    /// What to write wrong in a font that is otherwise whole: one preset, one instrument, one sample of `frames`
    /// frames of a 441 Hz square wave.
    struct Craft {
        var rate = 44_100
        var frames = 4_410
        /// The sample's end as its header declares it (nil: `frames`).
        var sampleEnd: Int?
        /// The smpl chunk's declared size (nil: what it holds).
        var smplSize: Int?
        /// Zero bytes of sample data the file has beyond the wave (a sparse file when large).
        var extraSampleBytes = 0
    }

    /// Writes the font to `path`; sample data beyond the wave is a hole in the file (sparse).
    static func writeFont(_ craft: Craft, to path: String) throws {
        let wave = (0..<craft.frames).flatMap { le16(($0 / 50) % 2 == 0 ? 12_000 : -12_000) }
        let guardFrames = [UInt8](repeating: 0, count: 92)
        let smplBytes = wave.count + guardFrames.count + craft.extraSampleBytes
        let info = chunk("LIST", Array("INFO".utf8) + chunk("ifil", le16(2) + le16(1)) + chunk("isng", name("EMU8000", 8))
            + chunk("INAM", name("crafted", 8)))
        let phdr = name("P") + le16(0) + le16(0) + le16(0) + le32(0) + le32(0) + le32(0)
            + name("EOP") + le16(0) + le16(0) + le16(1) + le32(0) + le32(0) + le32(0)
        let pbag = le16(0) + le16(0) + le16(1) + le16(0)
        let pgen = le16(41) + le16(0) + le16(0) + le16(0)
        let inst = name("I") + le16(0) + name("EOI") + le16(1)
        let ibag = le16(0) + le16(0) + le16(2) + le16(0)
        // Looped (sampleModes 1), then the sample (sampleID, last of a zone), then the list's end.
        let igen = le16(54) + le16(1) + le16(53) + le16(0) + le16(0) + le16(0)
        let end = craft.sampleEnd ?? craft.frames
        let shdr = name("S") + le32(0) + le32(end) + le32(8) + le32(craft.frames - 8) + le32(craft.rate)
            + [60, 0] + le16(0) + le16(1) + name("EOS") + [UInt8](repeating: 0, count: 26)
        let pdta = chunk("LIST", Array("pdta".utf8) + chunk("phdr", phdr) + chunk("pbag", pbag)
            + chunk("pmod", [UInt8](repeating: 0, count: 10)) + chunk("pgen", pgen) + chunk("inst", inst) + chunk("ibag", ibag)
            + chunk("imod", [UInt8](repeating: 0, count: 10)) + chunk("igen", igen) + chunk("shdr", shdr))
        let sdtaSize = 4 + 8 + smplBytes + smplBytes % 2
        let riffSize = 4 + info.count + 8 + sdtaSize + pdta.count
        var head = Array("RIFF".utf8) + le32(riffSize) + Array("sfbk".utf8) + info
        head += Array("LIST".utf8) + le32(sdtaSize) + Array("sdta".utf8) + Array("smpl".utf8) + le32(craft.smplSize ?? smplBytes)
        head += wave + guardFrames
        _ = FileManager.default.createFile(atPath: path, contents: Data(head))
        let h = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try h.seek(toOffset: UInt64(head.count + craft.extraSampleBytes + smplBytes % 2))
        try h.write(contentsOf: Data(pdta))
        try h.close()
    }

    /// Loads a note of the font through the bank, as a slot does; the error line, and the seconds it took.
    func refusal(_ path: String) -> (String?, Double) {
        let bank = SoundFontBank(sampleRate: 48_000)
        let t0 = monotonicSeconds()
        do {
            _ = try bank.note(path: path, label: (path as NSString).lastPathComponent, bank: 0, program: 0, note: 60)
            return (nil, monotonicSeconds() - t0)
        } catch {
            return ("\(error)", monotonicSeconds() - t0)
        }
    }

    func monotonicSeconds() -> Double { ProcessInfo.processInfo.systemUptime }

    func testACraftedFontWhoseHeadersAreSoundPlays() throws {
        let path = dir + "/sound.sf2"
        try Self.writeFont(Craft(), to: path)
        let bank = SoundFontBank(sampleRate: 48_000)
        let b = try bank.note(path: path, label: "sound.sf2", bank: 0, program: 0, note: 60)
        XCTAssertGreaterThan(b.frames, 48_000, "held a second: the sample loops")
        XCTAssertNil(SoundFontHeader.problem(path, limits: SampleLimits()))
        XCTAssertNil(SoundFontHeader.problem("/usr/share/sounds/sf2/TimGM6mb.sf2", limits: SampleLimits()),
                     "Debian's General MIDI font is sound")
    }

    func testASampleAtOneHertzIsRefusedFromItsHeaderAtOnce() throws {
        let path = dir + "/one-hz.sf2"
        try Self.writeFont(Craft(rate: 1), to: path)
        let (line, seconds) = refusal(path)
        XCTAssertEqual(line, "one-hz.sf2: sample 'S' has a sample rate (1 Hz) outside 1 kHz to 768 kHz")
        XCTAssertLessThan(seconds, 0.2)
    }

    func testAChunkOfGigabytesInAFileOfKilobytesIsRefused() throws {
        let path = dir + "/liar.sf2"
        try Self.writeFont(Craft(smplSize: 4_000_000_000), to: path)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        XCTAssertLessThan(size, 10_000)
        let (line, seconds) = refusal(path)
        XCTAssertEqual(line, "liar.sf2: damaged or truncated (its smpl chunk declares 4,000,000,000 bytes; 8,912 are left)")
        XCTAssertLessThan(seconds, 0.2)
    }

    func testAFontCutShortIsRefusedNamingWhatItDeclares() throws {
        let path = dir + "/cut.sf2"
        let whole = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/sounds/sf2/TimGM6mb.sf2"))
        _ = FileManager.default.createFile(atPath: path, contents: whole.prefix(200_000))
        let (line, seconds) = refusal(path)
        XCTAssertEqual(line, "cut.sf2: damaged or truncated (it declares \(Limits.count(whole.count)) bytes, the file holds 200,000)")
        XCTAssertLessThan(seconds, 0.2)
    }

    func testASparseFontOfTwoGigabytesIsRefusedAtOnce() throws {
        let path = dir + "/sparse.sf2"
        try Self.writeFont(Craft(extraSampleBytes: 2 << 30), to: path)
        var st = stat()
        XCTAssertEqual(stat(path, &st), 0)
        XCTAssertGreaterThan(Int(st.st_size), 2 << 30)
        XCTAssertLessThan(Int(st.st_blocks) * 512, 1 << 20, "sparse: it takes almost no disk")
        let (line, seconds) = refusal(path)
        XCTAssertEqual(line, "sparse.sf2: loading its samples would take 2 GiB; a slot may take at most 1 GiB (TEMPERA_MAX_SAMPLE_MB)")
        XCTAssertLessThan(seconds, 0.2)
    }

    func testASampleRunningPastTheSampleDataIsRefused() throws {
        let path = dir + "/past.sf2"
        try Self.writeFont(Craft(sampleEnd: 1_000_000_000), to: path)
        let (line, seconds) = refusal(path)
        XCTAssertEqual(line, "past.sf2: damaged (sample 'S' runs from 0 to 1,000,000,000, past the 4,456 frames of the font's sample data)")
        XCTAssertLessThan(seconds, 0.2)
    }

    /// `tempera render` of a document whose SoundFont slots hold each of them: one line each, the render is
    /// made, and the refusals take less than 50 MB beyond the same render with a sound font.
    func testRenderWithEveryFontBombSaysOneLineEachAndStaysSmall() throws {
        let exe = TestPaths.binary
        guard FileManager.default.isExecutableFile(atPath: exe) else { throw XCTSkip("build tempera first (swift build)") }
        try Self.writeFont(Craft(), to: dir + "/sound.sf2")
        try Self.writeFont(Craft(rate: 1), to: dir + "/one-hz.sf2")
        try Self.writeFont(Craft(smplSize: 4_000_000_000), to: dir + "/liar.sf2")
        try Self.writeFont(Craft(extraSampleBytes: 2 << 30), to: dir + "/sparse.sf2")
        try Self.writeFont(Craft(sampleEnd: 1_000_000_000), to: dir + "/past.sf2")
        func slot(_ font: String) -> ClipSlot {
            var s = ClipSlot(name: font, note: 60)
            s.soundFont = font
            return s
        }
        let names = ["one-hz.sf2", "liar.sf2", "sparse.sf2", "past.sf2"]
        let markers: [(Double, Content)] = (0..<5).map { (Double($0) / 5, .clip($0 + 1)) }
        let doc = Fixture.document(tracks: [markers], slots: [slot("sound.sf2")] + names.map(slot))
        try DocumentFile.save(doc, to: dir + "/doc.tempera")
        let r = Spawn.measured(exe, ["render", dir + "/doc.tempera", "-o", dir + "/out.wav", "--tail", "0"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, """
            tempera: slot 2: one-hz.sf2: sample 'S' has a sample rate (1 Hz) outside 1 kHz to 768 kHz
            tempera: slot 3: liar.sf2: damaged or truncated (its smpl chunk declares 4,000,000,000 bytes; 8,912 are left)
            tempera: slot 4: sparse.sf2: loading its samples would take 2 GiB; a slot may take at most 1 GiB (TEMPERA_MAX_SAMPLE_MB)
            tempera: slot 5: past.sf2: damaged (sample 'S' runs from 0 to 1,000,000,000, past the 4,456 frames of the font's sample data)

            """)
        let plain = Fixture.document(tracks: [markers], slots: [ClipSlot](repeating: slot("sound.sf2"), count: 5))
        try DocumentFile.save(plain, to: dir + "/plain.tempera")
        let base = Spawn.measured(exe, ["render", dir + "/plain.tempera", "-o", dir + "/plain.wav", "--tail", "0"])
        XCTAssertEqual(base.status, 0, base.stderr)
        print("render with four SoundFont bombs: peak \(r.peakBytes >> 20) MB, \(r.seconds) s; with a sound font: "
            + "peak \(base.peakBytes >> 20) MB, \(base.seconds) s")
        XCTAssertLessThan(r.peakBytes - base.peakBytes, 50 << 20, "the refusals take less than 50 MB")
        XCTAssertLessThan(r.seconds, 5)
    }

    /// Importing a recording reads it whole: its header is checked first too.
    func testImportingARecordingChecksItsHeaderFirst() throws {
        let path = dir + "/one-hz.wav"
        var bytes = SampleBombTests.wavHeader(rate: 1, dataBytes: 4000)
        bytes += [UInt8](repeating: 7, count: 4000)
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        XCTAssertThrowsError(try AudioImport.read(path)) {
            XCTAssertEqual("\($0)", "\(path): its sample rate (1 Hz) is outside 1 kHz to 768 kHz")
        }
        let limits = SampleLimits(bytes: 1 << 20)
        XCTAssertEqual(limits.readingProblem(frames: 48_000 * 10, channels: 2, rate: 48_000),
                       "reading it would take 5.5 MiB; at most 1 MiB (TEMPERA_MAX_SAMPLE_MB)")
    }
}

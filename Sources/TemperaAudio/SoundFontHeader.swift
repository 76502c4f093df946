import Foundation
import TemperaCore

/// A SoundFont's sizes and rates checked from its chunk headers before FluidSynth reads it, as a sample file's
/// are (`SampleLimits`): FluidSynth loads a font's whole sample data into memory and trusts what its headers
/// declare, so a few kilobytes of crafted header (a chunk of gigabytes, a sparse file, samples at 1 Hz or past
/// the end of the data) must be refused in one line, at once, in little memory.
///
/// Only the headers are read (RIFF chunk headers, and the sample headers' records): at most `maxPresetData`
/// bytes, whatever the file's size.
enum SoundFontHeader {
    /// The most bytes of preset data (presets, instruments, zones, sample headers) a font may have: real fonts
    /// have well under a megabyte; FluidSynth keeps a structure of its own for every record.
    static let maxPresetData = 32 << 20
    /// A sample header record (`shdr`): name, start, end, loop start, loop end, rate, pitch, correction, link, type.
    static let sampleHeaderSize = 46
    /// The record size of each preset-data chunk: a size that is not a multiple of it is a damaged font.
    static let recordSizes: [String: Int] = ["phdr": 38, "pbag": 4, "pmod": 10, "pgen": 4, "inst": 22, "ibag": 4,
                                             "imod": 10, "igen": 4, "shdr": 46]

    struct Refusal: Error {
        let line: String
        init(_ line: String) { self.line = line }
    }

    /// Why the font at `path` cannot be loaded under `limits`, or nil when its headers are sound. The file is a
    /// regular file (checked before).
    static func problem(_ path: String, limits: SampleLimits) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "cannot be read" }
        defer { try? handle.close() }
        let fileSize = (try? handle.seekToEnd()).map(Int.init) ?? 0
        func read(_ offset: Int, _ count: Int) -> [UInt8]? {
            guard offset >= 0, count >= 0, offset + count <= fileSize else { return nil }
            guard (try? handle.seek(toOffset: UInt64(offset))) != nil, let data = try? handle.read(upToCount: count),
                  data.count == count else { return nil }
            return [UInt8](data)
        }
        func le32(_ b: [UInt8], _ at: Int) -> Int {
            Int(b[at]) | Int(b[at + 1]) << 8 | Int(b[at + 2]) << 16 | Int(b[at + 3]) << 24
        }
        func name(_ b: [UInt8], _ at: Int) -> String { String(decoding: b[at..<at + 4], as: UTF8.self) }
        let notAFont = "not a SoundFont FluidSynth can read"
        guard let head = read(0, 12), name(head, 0) == "RIFF", name(head, 8) == "sfbk" else { return notAFont }
        let riffEnd = 8 + le32(head, 4)
        if riffEnd > fileSize {
            return "damaged or truncated (it declares \(Limits.count(riffEnd)) bytes, the file holds \(Limits.count(fileSize)))"
        }
        typealias Chunk = (id: String, offset: Int, size: Int)
        // The chunks from `start` to `end` (a LIST's, or the RIFF's own), or why one does not fit in them.
        func chunks(from start: Int, to end: Int) -> Result<[Chunk], Refusal> {
            var list: [Chunk] = []
            var at = start
            while at + 8 <= end {
                guard let h = read(at, 8) else { return .failure(Refusal(notAFont)) }
                let size = le32(h, 4)
                if at + 8 + size > end {
                    return .failure(Refusal("damaged or truncated (its \(name(h, 0)) chunk declares \(Limits.count(size)) "
                        + "bytes; \(Limits.count(max(0, end - at - 8))) are left)"))
                }
                list.append((name(h, 0), at + 8, size))
                at += 8 + size + (size & 1)
            }
            return .success(list)
        }
        var lists: [String: [Chunk]] = [:]
        do {
            for chunk in try chunks(from: 12, to: riffEnd).get() where chunk.id == "LIST" {
                guard chunk.size >= 4, let kind = read(chunk.offset, 4) else { return notAFont }
                lists[name(kind, 0)] = try chunks(from: chunk.offset + 4, to: chunk.offset + chunk.size).get()
            }
        } catch {
            return error.line
        }
        guard let sdta = lists["sdta"], let pdta = lists["pdta"] else { return notAFont }
        // FluidSynth holds the sample data as it is in the file (16 bits, and the low 8 of 24-bit fonts).
        let sampleBytes = sdta.filter { $0.id == "smpl" || $0.id == "sm24" }.reduce(0) { $0 + $1.size }
        if sampleBytes > limits.bytes {
            return "loading its samples would take \(SampleLimits.size(Double(sampleBytes))); a slot may take at most "
                + "\(SampleLimits.size(Double(limits.bytes))) (TEMPERA_MAX_SAMPLE_MB)"
        }
        let presetBytes = pdta.reduce(0) { $0 + $1.size }
        if presetBytes > maxPresetData {
            return "its preset data takes \(SampleLimits.size(Double(presetBytes))); a SoundFont has at most "
                + "\(SampleLimits.size(Double(maxPresetData)))"
        }
        for chunk in pdta {
            if let record = recordSizes[chunk.id], chunk.size % record != 0 {
                return "damaged (its \(chunk.id) chunk of \(Limits.count(chunk.size)) bytes is not whole records of \(record))"
            }
        }
        let sampleFrames = (sdta.first { $0.id == "smpl" }?.size ?? 0) / 2
        guard let shdr = pdta.first(where: { $0.id == "shdr" }), let records = read(shdr.offset, shdr.size) else { return notAFont }
        let count = shdr.size / sampleHeaderSize
        // The last record ("EOS") only ends the list.
        for k in 0..<max(0, count - 1) {
            let at = k * sampleHeaderSize
            let label = String(decoding: records[at..<at + 20].prefix { $0 != 0 }, as: UTF8.self)
            let shown = "'" + label.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(String.init).joined() + "'"
            let start = le32(records, at + 20), end = le32(records, at + 24), rate = le32(records, at + 36)
            let type = Int(records[at + 44]) | Int(records[at + 45]) << 8
            // ROM samples (type bit 15) live in a sound card, not in the file.
            if type & 0x8000 != 0 { continue }
            if !SampleLimits.rates.contains(rate) {
                return "sample \(shown) has a sample rate (\(Limits.count(rate)) Hz) outside 1 kHz to 768 kHz"
            }
            // Compressed samples (SoundFont 3, type bit 4) count in bytes of the compressed data.
            let limit = type & 0x10 != 0 ? sampleFrames * 2 : sampleFrames
            if start > end || end > limit {
                return "damaged (sample \(shown) runs from \(Limits.count(start)) to \(Limits.count(end)), past the "
                    + "\(Limits.count(limit)) \(type & 0x10 != 0 ? "bytes" : "frames") of the font's sample data)"
            }
        }
        return nil
    }
}

import Foundation

/// Reads a float WAV that a recorder may still be writing, so its header's sizes are not yet set: what is on
/// disk is read to its end (libsndfile would trust the header).
public enum RecordedWAV {
    /// RMS of a float WAV's samples from byte `skip` of the file; -1 when it holds none.
    public static func rms(_ path: String, skipping skip: Int = 0) -> Double {
        guard let data = FileManager.default.contents(atPath: path), data.count > 44 else { return -1 }
        let bytes = [UInt8](data)
        var i = 12
        while i + 8 <= bytes.count {
            let id = String(decoding: bytes[i..<(i + 4)], as: UTF8.self)
            let size = Int(bytes[i + 4]) | Int(bytes[i + 5]) << 8 | Int(bytes[i + 6]) << 16 | Int(bytes[i + 7]) << 24
            if id == "data" {
                var sum = 0.0, n = 0
                let start = i + 8
                var k = start + (max(skip, start) - start) / 4 * 4
                while k + 4 <= bytes.count {
                    let bits = UInt32(bytes[k]) | UInt32(bytes[k + 1]) << 8 | UInt32(bytes[k + 2]) << 16 | UInt32(bytes[k + 3]) << 24
                    let x = Double(Float(bitPattern: bits))
                    sum += x * x
                    n += 1
                    k += 4
                }
                return n > 0 ? (sum / Double(n)).squareRoot() : -1
            }
            i += 8 + size + (size & 1)
        }
        return -1
    }
}

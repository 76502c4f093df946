/// Shortest fades, in seconds, whatever a slot asks for: a start, and a cut or gate close.
enum Fades {
    static let minimumAttack = 0.001
    static let minimumRelease = 0.0025
    /// A voice taken for a new one (polyphony limit) fades this fast.
    static let steal = 0.0025

    /// Fades the last `last` of `frames` interleaved stereo frames linearly to silence (the end of a render
    /// with no tail), the final frame reaching 0.
    static func fadeOut(_ out: UnsafeMutablePointer<Float>, frames: Int, last: Int) {
        let n = min(last, frames)
        for k in 0..<n {
            let g = Float(n - 1 - k) / Float(n)
            out[2 * (frames - n + k)] *= g
            out[2 * (frames - n + k) + 1] *= g
        }
    }
}

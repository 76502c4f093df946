import Foundation

/// How the output's clock ran against the system's during one run, from pairs of times taken in that run: `x`
/// on the system clock (a key's arrival, seconds from the heard start), `y` the same moment on the output's clock
/// (the music the player heard then, seconds of output). A straight line through them, by least squares.
///
/// The pad tests find where a pad sounds in a recording of the server's sink, whose frames run on the output's
/// clock: the player's clock follows it through the latency the server reports, and it runs a few hundred ppm off
/// the system's in these tests (−340 to +220 ppm measured, steady within a run), which over 2.6 s alone puts a pad
/// nearly a millisecond off the keys' system clock. A pad's time is therefore checked on the output's clock, and
/// the output's clock against the system's apart, by this fit.
public struct ClockRate: CustomStringConvertible {
    /// y − x at x = 0, seconds.
    public var offset: Double
    /// How much faster the output's clock ran, as a fraction (1e-6 is one ppm).
    public var drift: Double
    /// The largest distance of a pair from the line, seconds.
    public var worstResidual: Double

    public init(system x: [Double], output y: [Double]) {
        let n = Double(min(x.count, y.count))
        let pairs = Array(zip(x, y))
        guard n >= 2 else {
            offset = pairs.first.map { $0.1 - $0.0 } ?? 0
            drift = 0
            worstResidual = 0
            return
        }
        let mx = pairs.map(\.0).reduce(0, +) / n
        let md = pairs.map { $0.1 - $0.0 }.reduce(0, +) / n
        var sxx = 0.0, sxd = 0.0
        for (a, b) in pairs {
            sxx += (a - mx) * (a - mx)
            sxd += (a - mx) * ((b - a) - md)
        }
        drift = sxx > 0 ? sxd / sxx : 0
        offset = md - drift * mx
        let (o, d) = (offset, drift)
        worstResidual = pairs.map { abs(($0.1 - $0.0) - (o + d * $0.0)) }.max() ?? 0
    }

    public var description: String {
        String(format: "output clock %+.0f ppm against the system's, offset %.3f ms, worst residual %.3f ms",
               drift * 1e6, offset * 1000, worstResidual * 1000)
    }
}

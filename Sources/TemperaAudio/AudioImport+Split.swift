#if canImport(Glibc)
import Glibc
#endif
import TemperaCore

/// `--split`: the instruments of a recording learnt from the recording itself.
///
/// Each attack is described by the energy it adds in seven bands (below 150 Hz, 150–300, 300–600, 600–1200,
/// 1200–3000, 3000–6000, above 6000 Hz): the power spectrum of the 30 ms after its start (up to the next onset)
/// less that of the same length before it (`rise`). The shapes of those spectra are grouped (k-means on their
/// square roots, k from 1 to 3, a group kept only when it halves what is left unexplained and explains at
/// least 1.5% of a hit's shape per hit), and the groups' spectra are refined into instrument templates by
/// non-negative matrix factorisation, so a template no attack plays alone (a kick always struck with a hat) is
/// still learnt as its own part; each template is then held to a spectrum that falls away from its loudest band
/// (at most twice, going outwards, the least share nearer it), unless what that holds back comes with every
/// attack it leads in the same proportion (a snare's wires), and the attacks' levels are fitted again. Each
/// attack goes to its strongest template, and also to any other whose own loudest band it fills at least as
/// much as the strongest one does there, while the strongest has under 15% of the other's level in that band
/// (two drums of the same register are never both heard in one attack), and that is at least 0.75 as loud
/// against its own usual level as the strongest is against its own; a part that
/// comes with every attack another leads in the same proportion (within 15%) is that instrument's own sound
/// (a snare's sizzle), never a second track. The templates, from the lowest to the highest, go to the low,
/// middle and high tracks, each to the band it has most energy in when they differ.
extension AudioImport {
    /// The band edges of an attack's spectrum, Hz.
    public static let splitEdges: [Double] = [150, 300, 600, 1200, 3000, 6000]

    /// The energy each band of `splitEdges` gains over the 30 ms after frame `start` (up to `next`) against the
    /// same length before it, per 30 ms. `x` holds frames from `offset` on.
    static func rise(_ x: [Float], offset: Int, start: Int, next: Int?, rate: Double) -> [Double] {
        let full = Int(0.030 * rate)
        let length = max(16, min(full, (next ?? Int.max / 2) - start))
        var n = 1
        while n < full { n *= 2 }
        func power(_ from: Int) -> [Double] {
            var re = [Double](repeating: 0, count: n), im = [Double](repeating: 0, count: n)
            for k in 0..<length {
                let j = from + k - offset
                if j >= 0, j < x.count { re[k] = Double(x[j]) }
            }
            fft(&re, &im)
            return (0...(n / 2)).map { (k: Int) -> Double in re[k] * re[k] + im[k] * im[k] }
        }
        let after = power(start), before = power(start - length)
        var out = [Double](repeating: 0, count: splitEdges.count + 1)
        var gained = [Double](repeating: 0, count: out.count), lost = gained
        for bin in 0...(n / 2) {
            let f = Double(bin) * rate / Double(n)
            let b = splitEdges.firstIndex { f < $0 } ?? splitEdges.count
            gained[b] += after[bin]
            lost[b] += before[bin]
        }
        for b in out.indices { out[b] = max(0, gained[b] - lost[b]) * Double(full) / Double(length) }
        return out
    }

    /// An in-place radix-2 FFT (`re.count` a power of two).
    static func fft(_ re: inout [Double], _ im: inout [Double]) {
        let n = re.count
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        var len = 2
        while len <= n {
            let angle = -2 * Double.pi / Double(len)
            for start in stride(from: 0, to: n, by: len) {
                for k in 0..<(len / 2) {
                    let wr = cos(angle * Double(k)), wi = sin(angle * Double(k))
                    let a = start + k, b = a + len / 2
                    let tr = re[b] * wr - im[b] * wi, ti = re[b] * wi + im[b] * wr
                    re[b] = re[a] - tr; im[b] = im[a] - ti
                    re[a] += tr; im[a] += ti
                }
            }
            len *= 2
        }
    }

    /// k-means from the first point and then the farthest ones: each point's group, the centres, the cost.
    static func kmeans(_ x: [[Double]], _ k: Int) -> (labels: [Int], centres: [[Double]], cost: Double) {
        func d2(_ a: [Double], _ b: [Double]) -> Double { zip(a, b).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) } }
        var centres = [x[0]]
        while centres.count < k {
            let far = x.indices.max { i, j in centres.map { d2(x[i], $0) }.min()! < centres.map { d2(x[j], $0) }.min()! }!
            centres.append(x[far])
        }
        var labels = [Int](repeating: 0, count: x.count)
        for _ in 0..<50 {
            labels = x.map { p in centres.indices.min { d2(p, centres[$0]) < d2(p, centres[$1]) }! }
            for c in centres.indices {
                let members = x.indices.filter { labels[$0] == c }
                guard !members.isEmpty else { continue }
                centres[c] = (0..<x[0].count).map { b in members.reduce(0) { $0 + x[$1][b] } / Double(members.count) }
            }
        }
        let cost = x.indices.reduce(0) { $0 + d2(x[$1], centres[labels[$1]]) }
        return (labels, centres, cost)
    }

    /// Each onset's bands from its band rises (`rise`): see the extension's summary.
    static func classify(_ onsets: [Onset], rises: [[Double]]) -> [Onset] {
        var out = onsets
        let heard = rises.indices.filter { rises[$0].reduce(0, +) > 0 }
        guard !heard.isEmpty else {
            for i in out.indices { out[i].bands = [.middle] }
            return out
        }
        let bandsCount = splitEdges.count + 1
        let shapes = heard.map { i -> [Double] in
            let total = rises[i].reduce(0, +)
            return rises[i].map { ($0 / total).squareRoot() }
        }
        // How many instruments: each more group must halve the cost and explain 1.5% of a shape per hit.
        var k = 1
        var cost = kmeans(shapes, 1).cost
        while k < min(3, shapes.count) {
            let next = kmeans(shapes, k + 1).cost
            guard cost - next >= max(0.5 * cost, 0.015 * Double(shapes.count)) else { break }
            k += 1
            cost = next
        }
        let groups = kmeans(shapes, k)
        // Non-negative matrix factorisation of the rises (scaled to a median hit of 1), from the groups' spectra.
        let totals = heard.map { rises[$0].reduce(0, +) }.sorted()
        let scale = totals[totals.count / 2]
        let v = heard.map { rises[$0].map { $0 / scale } }
        var w = groups.centres.map { c -> [Double] in
            let e = c.map { $0 * $0 }, s = e.reduce(0, +)
            return e.map { $0 / max(s, 1e-12) }
        }
        var h = [[Double]](repeating: [Double](repeating: 1, count: k), count: v.count)
        // H ← H ⊙ (V Wᵀ) / (H W Wᵀ): the attacks' levels for the templates as they are.
        func fitLevels() {
            let wwt: [[Double]] = (0..<k).map { (a: Int) -> [Double] in
                (0..<k).map { (b: Int) -> Double in
                    (0..<bandsCount).reduce(0.0) { (sum: Double, j: Int) -> Double in sum + w[a][j] * w[b][j] }
                }
            }
            for i in v.indices {
                for c in 0..<k {
                    let num: Double = (0..<bandsCount).reduce(0.0) { (sum: Double, j: Int) -> Double in sum + v[i][j] * w[c][j] }
                    let den: Double = (0..<k).reduce(0.0) { (sum: Double, j: Int) -> Double in sum + h[i][j] * wwt[j][c] }
                    h[i][c] *= num / (den + 1e-12)
                }
            }
        }
        for _ in 0..<300 {
            fitLevels()
            // W ← W ⊙ (Hᵀ V) / (Hᵀ H W), each template then summing to 1 (its level moved into H).
            let hth: [[Double]] = (0..<k).map { (a: Int) -> [Double] in
                (0..<k).map { (b: Int) -> Double in
                    v.indices.reduce(0.0) { (sum: Double, i: Int) -> Double in sum + h[i][a] * h[i][b] }
                }
            }
            for c in 0..<k {
                for b in 0..<bandsCount {
                    let num: Double = v.indices.reduce(0.0) { (sum: Double, i: Int) -> Double in sum + h[i][c] * v[i][b] }
                    let den: Double = (0..<k).reduce(0.0) { (sum: Double, j: Int) -> Double in sum + hth[c][j] * w[j][b] }
                    w[c][b] *= num / (den + 1e-12)
                }
                let s = w[c].reduce(0, +)
                if s > 0 {
                    w[c] = w[c].map { $0 / s }
                    for i in v.indices { h[i][c] *= s }
                }
            }
        }
        // An instrument's spectrum falls away from its loudest band. A template that rises again past a band
        // where it had fallen has learnt another instrument always struck with it (a kick never struck without a
        // hat learns the hat's top as its own, and the softest hats under it are then heard as the kick alone):
        // walking out from its loudest band, each share is held to at most twice the least share nearer the
        // loudest, and the attacks' levels are fitted again to the templates so held. What is held back stays
        // when it comes with every attack the template leads in the same proportion (within 15%): that is the
        // instrument's own sound (a snare's wires), where a drummer's hat under it varies.
        if k > 1 {
            let leader = h.map { r in r.indices.max { r[$0] < r[$1] }! }
            for c in 0..<k {
                var held = w[c]
                let loudest = held.indices.max { held[$0] < held[$1] }!
                for way in [Array((loudest + 1)..<bandsCount), Array((0..<loudest).reversed())] {
                    var least = held[loudest]
                    for b in way {
                        held[b] = min(held[b], 2 * least)
                        least = min(least, held[b])
                    }
                }
                let cut = held.indices.filter { held[$0] < 0.999 * w[c][$0] }
                let led = v.indices.filter { leader[$0] == c && h[$0][c] > 0 }
                if !cut.isEmpty, led.count >= 3 {
                    let ratios = led.map { i in cut.reduce(0) { $0 + v[i][$1] } / h[i][c] }
                    let mean = ratios.reduce(0, +) / Double(ratios.count)
                    let spread = (ratios.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(ratios.count)).squareRoot()
                    if mean > 0, spread < 0.15 * mean { continue }
                }
                let s = held.reduce(0, +)
                w[c] = held.map { $0 / s }
            }
            h = [[Double]](repeating: [Double](repeating: 1, count: k), count: v.count)
            for _ in 0..<300 { fitLevels() }
        }
        // The templates' tracks: from the lowest (spectral centre) to the highest, each on the band it has most
        // energy in (low below 150 Hz, middle to 3 kHz, high above), in order and apart.
        let centre = w.map { t in t.indices.reduce(0) { $0 + Double($1) * t[$1] } }
        let order = (0..<k).sorted { centre[$0] < centre[$1] }
        func share(_ t: [Double], _ band: Band) -> Double {
            switch band {
            case .low: return t[0]
            case .middle: return t[1...4].reduce(0, +)
            case .high: return t[5...].reduce(0, +)
            }
        }
        var bestBands: [Band] = [], bestScore = -1.0
        func choose(_ from: Int, _ taken: [Band]) {
            if taken.count == k {
                let score = zip(order, taken).reduce(0) { $0 + share(w[$1.0], $1.1) }
                if score > bestScore + 1e-9 { bestScore = score; bestBands = taken }
                return
            }
            for b in Band.allCases where b.rawValue >= from { choose(b.rawValue + 1, taken + [b]) }
        }
        choose(0, [])
        var track = [Band](repeating: .middle, count: k)
        for (c, b) in zip(order, bestBands) { track[c] = b }
        let loudestBand = w.map { t in t.indices.max { t[$0] < t[$1] }! }
        let strongest = h.map { r in r.indices.max { r[$0] < r[$1] }! }
        // Each template's usual level: the median of its level in the attacks it leads.
        let usual = (0..<k).map { c -> Double in
            let led = h.indices.filter { strongest[$0] == c }.map { h[$0][c] }.sorted()
            return led.isEmpty ? 0 : led[led.count / 2]
        }
        // A part that comes with every attack another leads, always in the same proportion, is that
        // instrument's own sound (a snare's sizzle), not a second instrument struck with it.
        var partOf = [[Bool]](repeating: [Bool](repeating: false, count: k), count: k)
        for d in 0..<k {
            let led = h.indices.filter { strongest[$0] == d && h[$0][d] > 0 }
            guard led.count >= 3 else { continue }
            for c in 0..<k where c != d {
                let ratios = led.map { h[$0][c] / h[$0][d] }
                let mean = ratios.reduce(0, +) / Double(ratios.count)
                let spread = (ratios.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(ratios.count)).squareRoot()
                partOf[c][d] = mean > 0 && spread < 0.15 * mean
            }
        }
        for (row, i) in heard.enumerated() {
            let d = strongest[row]
            var chosen = [track[d]]
            for c in 0..<k where c != d && !partOf[c][d] {
                let b = loudestBand[c]
                if w[d][b] <= 0.15 * w[c][b], h[row][c] * w[c][b] >= h[row][d] * w[d][b],
                   h[row][c] * usual[d] >= 0.75 * h[row][d] * usual[c] {
                    chosen.append(track[c])
                }
            }
            out[i].bands = chosen
        }
        for i in out.indices where out[i].bands.isEmpty { out[i].bands = [track[0]] }
        return out
    }
}

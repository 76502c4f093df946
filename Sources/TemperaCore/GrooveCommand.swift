/// What the groove and step-sequencer commands (DESIGN §20) do to the session (`Session.runGroove`): the value
/// each of their entries in the command table (`Commands+Groove.swift`) runs.
public enum GrooveCommand: Hashable, Sendable {
    /// `prob P`: the selected elements sound with probability P on each pass (`p=`).
    case prob(Double)
    /// `ratchet N[:SPAN]`: the selected elements play N equal hits over SPAN seconds (default: up to the next
    /// marker); `ratchet 1` removes a ratchet.
    case ratchet(Int, span: Double?)
    /// `humanize time=MS [amp=A] [seed=K]`: each selected element moved by up to ±MS milliseconds and its
    /// amplitude by up to ±A, drawn from K (default: the document's seed) and the marker's track and time.
    case humanize(time: Double, amp: Double, seed: UInt64?)
    /// `groove extract N [grid=G]`: the selection's groove into group N, G steps a beat (default: the grid, or 4).
    case extract(Int, grid: Int?)
    /// `groove apply N [time=S] [amp=S]`: the selection moves toward group N's groove by the fractions given.
    case apply(Int, time: Double, amp: Double)

    /// The command's textual form.
    public var text: String {
        let n = DocumentFile.number
        switch self {
        case .prob(let p): return "prob \(n(p))"
        case .ratchet(let k, let span): return "ratchet \(k)" + (span.map { ":\(n($0))" } ?? "")
        case .humanize(let time, let amp, let seed):
            return "humanize time=\(n(time))" + (amp == 0 ? "" : " amp=\(n(amp))") + (seed.map { " seed=\($0)" } ?? "")
        case .extract(let g, let grid): return "groove extract \(g)" + (grid.map { " grid=\($0)" } ?? "")
        case .apply(let g, let time, let amp):
            return "groove apply \(g)" + (time == 1 ? "" : " time=\(n(time))") + (amp == 1 ? "" : " amp=\(n(amp))")
        }
    }

    /// The most milliseconds `humanize` moves a marker.
    public static let maxHumanize = 1000.0
}

extension LineParser {
    /// `N` or `N:SPAN` (a ratchet: hits, and the seconds they share).
    func ratchet(_ w: Word, usage: String) throws -> (Int, Double?) {
        if w.equals != nil { throw fail("unexpected '\(Limits.echo(w.text))' (\(usage))", at: w) }
        let parts = w.text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let countWord = Word(text: String(parts[0]), columns: Array(w.columns.prefix(parts[0].count)),
                             column: w.column, end: w.column + parts[0].count, quoted: false, equals: nil)
        let k = try integer(countWord, "ratchet", MarkerExtras.repRange)
        guard parts.count == 2 else { return (k, nil) }
        let spanWord = Word(text: String(parts[1]), columns: Array(w.columns.dropFirst(parts[0].count + 1)),
                            column: w.column + parts[0].count + 1, end: w.end, quoted: false, equals: nil)
        let span = try number(spanWord, "ratchet span", { $0 > 0 && $0 <= CommandParser.maxTime },
                              "must be greater than 0 and at most 10000000")
        return (k, span)
    }
}

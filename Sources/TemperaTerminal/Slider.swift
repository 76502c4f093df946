import Foundation

/// A horizontal slider drawn as a filled line with a knob; maps between a value and the column clicked.
struct Slider {
    /// Where the value sits, 0...1 from the left end to the right end.
    var fraction: Double

    /// The column (0-based, inside a slider `width` wide) of the knob.
    func knob(width: Int) -> Int {
        guard width > 1 else { return 0 }
        guard fraction.isFinite else { return 0 }
        return Int((min(max(fraction, 0), 1) * Double(width - 1)).rounded())
    }

    /// Draws the slider from (x, y), `width` cells wide.
    func draw(x: Int, y: Int, width: Int, _ g: Glyphs, into canvas: inout Canvas) {
        let k = knob(width: width)
        for i in 0..<width {
            if i < k {
                canvas[x + i, y] = Cell(g.sliderFill, .sliderFill)
            } else if i == k {
                canvas[x + i, y] = Cell(g.sliderKnob, .sliderKnob)
            } else {
                canvas[x + i, y] = Cell(g.sliderEmpty, .sliderEmpty)
            }
        }
    }

    /// The fraction a click on column `column` (0-based) of a slider `width` wide stands for.
    static func fraction(atColumn column: Int, width: Int) -> Double {
        guard width > 1 else { return 0 }
        return min(max(Double(column) / Double(width - 1), 0), 1)
    }

    /// The tempo slider's range: ×0.5 to ×2 on a logarithmic scale, so ×1 sits in the middle and a column is a
    /// few percent (about 6% at 24 columns) rather than a jump; tempos beyond it are typed (`tempo`, `bpm`) or
    /// stepped with the keys.
    static let tempoRange = 0.5...2.0

    static func tempoFraction(_ tempo: Double) -> Double {
        log(tempo / tempoRange.lowerBound) / log(tempoRange.upperBound / tempoRange.lowerBound)
    }

    /// The tempo at a slider fraction, rounded to two decimals (what the transport shows).
    static func tempo(atFraction f: Double) -> Double {
        let t = tempoRange.lowerBound * exp(f * log(tempoRange.upperBound / tempoRange.lowerBound))
        // The column nearest the middle is exactly x1, whatever the slider's width.
        if abs(log(t)) < 0.03 { return 1 }
        return (t * 100).rounded() / 100
    }
}

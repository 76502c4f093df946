import Foundation

/// Number formatting shared by the panes, so times and scales read the same everywhere.
enum Format {
    /// Seconds with a fixed number of decimals: `seconds(0.7342, 3)` is "0.734".
    static func seconds(_ t: Double, _ decimals: Int = 3) -> String {
        String(format: "%.\(decimals)f", t)
    }

    /// Enough decimals to tell apart times one column apart at this zoom (3 down to 25 ms a column,
    /// 4 below).
    static func decimals(secondsPerColumn spc: Double) -> Int {
        spc < 0.0025 ? 4 : 3
    }

    /// A fixed-point number: `fixed(1, 2)` is "1.00".
    static func fixed(_ x: Double, _ decimals: Int) -> String {
        String(format: "%.\(decimals)f", x)
    }

    /// A duration for humans: "25 ms", "0.4 ms", "1.5 s".
    static func duration(_ s: Double) -> String {
        if s >= 1 { return String(format: "%.3g s", s) }
        let ms = s * 1000
        if ms >= 10 { return String(format: "%.0f ms", ms) }
        return String(format: "%.2g ms", ms)
    }

    /// `text` cut to `width` characters, ending in an ellipsis when cut.
    static func fit(_ text: String, _ width: Int, ellipsis: Character) -> String {
        guard width > 0 else { return "" }
        guard text.count > width else { return text }
        return String(text.prefix(width - 1)) + String(ellipsis)
    }

    /// `text` padded with blanks (or cut) to exactly `width` characters.
    static func pad(_ text: String, _ width: Int) -> String {
        let t = text.count > width ? String(text.prefix(width)) : text
        return t + String(repeating: " ", count: max(0, width - t.count))
    }
}

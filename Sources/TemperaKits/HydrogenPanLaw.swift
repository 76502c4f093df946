import Foundation
import TemperaCore

/// Hydrogen's pan laws (the song's `pan_law_type`, with `pan_law_k_norm` for the k-norm ones), as its sampler
/// computes them: the left gain of pan p is `law(p)`, the right gain `law(-p)`. A song imports its instruments'
/// pans through its law, and a drumkit loaded alone through the default law (a new song's), so each side sounds at
/// Hydrogen's level; `slot(left:right:)` then writes that pair as a tempera gain and pan (tempera's own law is
/// equal power).
public enum HydrogenPanLaw: String, CaseIterable, Sendable {
    case ratioStraightPolygonal = "RATIO_STRAIGHT_POLYGONAL"
    case ratioConstPower = "RATIO_CONST_POWER"
    case ratioConstSum = "RATIO_CONST_SUM"
    case linearStraightPolygonal = "LINEAR_STRAIGHT_POLYGONAL"
    case linearConstPower = "LINEAR_CONST_POWER"
    case linearConstSum = "LINEAR_CONST_SUM"
    case polarStraightPolygonal = "POLAR_STRAIGHT_POLYGONAL"
    case polarConstPower = "POLAR_CONST_POWER"
    case polarConstSum = "POLAR_CONST_SUM"
    case quadraticStraightPolygonal = "QUADRATIC_STRAIGHT_POLYGONAL"
    case quadraticConstPower = "QUADRATIC_CONST_POWER"
    case quadraticConstSum = "QUADRATIC_CONST_SUM"
    case linearConstKNorm = "LINEAR_CONST_K_NORM"
    case polarConstKNorm = "POLAR_CONST_K_NORM"
    case ratioConstKNorm = "RATIO_CONST_K_NORM"
    case quadraticConstKNorm = "QUADRATIC_CONST_K_NORM"

    /// Hydrogen's default, and every demo song's: a new song's, so a drumkit loaded without a song plays by it.
    public static let standard = HydrogenPanLaw.ratioStraightPolygonal
    /// Hydrogen's default k of the k-norm laws.
    public static let standardK = 1.33333

    /// The gain of the left side at pan `p` (-1…1); the right side's is `left(-p, k)`.
    public func left(_ p: Double, k: Double = standardK) -> Double {
        let theta = 0.25 * Double.pi * (p + 1)
        switch self {
        case .ratioStraightPolygonal: return p <= 0 ? 1 : 1 - p
        case .ratioConstPower: return p <= 0 ? 1 / (1 + (1 + p) * (1 + p)).squareRoot() : (1 - p) / (1 + (1 - p) * (1 - p)).squareRoot()
        case .ratioConstSum: return p <= 0 ? 1 / (2 + p) : (1 - p) / (2 - p)
        case .linearStraightPolygonal: return p <= 0 ? 1 : (1 - p) / (1 + p)
        case .linearConstPower: return (1 - p) / (2 * (1 + p * p)).squareRoot()
        case .linearConstSum: return (1 - p) * 0.5
        case .polarStraightPolygonal: return p <= 0 ? 1 : cos(theta) / sin(theta)
        case .polarConstPower: return cos(theta)
        case .polarConstSum: return cos(theta) / (cos(theta) + sin(theta))
        case .quadraticStraightPolygonal: return p <= 0 ? 1 : ((1 - p) / (1 + p)).squareRoot()
        case .quadraticConstPower: return ((1 - p) * 0.5).squareRoot()
        case .quadraticConstSum: return (1 - p).squareRoot() / ((1 - p).squareRoot() + (1 + p).squareRoot())
        case .linearConstKNorm: return (1 - p) / pow(pow(1 - p, k) + pow(1 + p, k), 1 / k)
        case .quadraticConstKNorm: return (1 - p).squareRoot() / pow(pow(1 - p, 0.5 * k) + pow(1 + p, 0.5 * k), 1 / k)
        case .polarConstKNorm: return cos(theta) / pow(pow(cos(theta), k) + pow(sin(theta), k), 1 / k)
        case .ratioConstKNorm: return p <= 0 ? 1 / pow(1 + pow(1 + p, k), 1 / k) : (1 - p) / pow(1 + pow(1 - p, k), 1 / k)
        }
    }

    /// Both sides' gains at pan `p`.
    public func gains(_ p: Double, k: Double = standardK) -> (left: Double, right: Double) {
        let p = min(max(p, -1), 1)
        return (max(0, left(p, k: k)), max(0, left(-p, k: k)))
    }

    /// The tempera gain and pan whose sides are `left` and `right` (tempera's law: left = √2·g·cos θ, right =
    /// √2·g·sin θ with θ = (pan + 1)·π/4): exact, so a slot sounds each side at the level asked.
    public static func slot(left: Double, right: Double) -> (gain: Double, pan: Double) {
        guard left > 0 || right > 0 else { return (0, 0) }
        if left == right { return (left, 0) }
        let theta = atan2(right, left)
        return ((left * left + right * right).squareRoot() / 2.0.squareRoot(), 4 * theta / Double.pi - 1)
    }
}

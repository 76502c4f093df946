/// Shortest fades, in seconds, whatever a slot asks for: a start, and a cut or gate close.
enum Fades {
    static let minimumAttack = 0.001
    static let minimumRelease = 0.0025
    /// A voice taken for a new one (polyphony limit) fades this fast.
    static let steal = 0.0025
}

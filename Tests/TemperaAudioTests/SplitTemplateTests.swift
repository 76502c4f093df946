@testable import TemperaAudio
import XCTest

/// `--split`'s instrument templates (`AudioImport.classify`) on band rises measured from Hydrogen's GMRockKit
/// one-shots (the energy each attack adds in the seven bands of `splitEdges`), summed where hits sound together.
final class SplitTemplateTests: XCTestCase {
    static let kick: [Double] = [238_419, 19_660, 357, 73, 136, 45, 6]
    static let snare: [Double] = [2_806, 111_642, 14_024, 6_949, 16_007, 2_618, 665]
    static let softHat: [Double] = [10, 53, 137, 318, 248, 738, 11_251]
    static let mediumHat: [Double] = [26, 69, 715, 841, 838, 2_294, 31_379]
    static let hardHat: [Double] = [19, 159, 1_207, 1_553, 710, 1_510, 32_441]

    /// A swung 16th groove of four bars: a hat on every 16th (accented on the beat, each accent a little
    /// louder or softer than the last, soft on the off 16ths), the kick on 1, the 16th before 3 and 3 (and the
    /// "and" of 3 every other bar), the snare on 2 and 4. The kick is never struck without a hat; the hat
    /// under it on the 16th before 3 is a soft one, as loud as the soft hats played alone.
    func testAHatUnderAKickNeverStruckAloneIsOnTheHatTrack() {
        var rises: [[Double]] = [], expected: [Set<AudioImport.Band>] = []
        let accents: [Double] = [1.0, 0.5, 1.5, 0.7, 1.2]
        for bar in 0..<4 {
            for step in 0..<16 {
                let hat = step % 4 == 0 ? Self.hardHat : step % 2 == 0 ? Self.mediumHat : Self.softHat
                let level = step % 4 == 0 ? accents[(bar * 16 + step) % accents.count] : 1
                var r = hat.map { $0 * level }
                var bands: Set<AudioImport.Band> = [.high]
                if [0, 7, 8].contains(step) || (bar % 2 == 1 && step == 10) {
                    r = zip(r, Self.kick).map { $0 + $1 }
                    bands.insert(.low)
                }
                if [4, 12].contains(step) {
                    r = zip(r, Self.snare).map { $0 + $1 }
                    bands.insert(.middle)
                }
                rises.append(r)
                expected.append(bands)
            }
        }
        let onsets = rises.indices.map { AudioImport.Onset(time: Double($0) * 0.15, peak: 0.5) }
        let found = AudioImport.classify(onsets, rises: rises)
        let wrong = found.indices.filter { Set(found[$0].bands) != expected[$0] }
            .map { "16th \($0): \(found[$0].bands.map(\.track.name)) for \(expected[$0].map(\.track.name).sorted())" }
        XCTAssertEqual(wrong, [])
    }
}

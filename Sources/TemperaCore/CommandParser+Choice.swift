/// `section N tracks LIST|all` and `section N play K=G ...`: what a section plays.
extension Command {
    struct SectionTracks: CommandBody {
        var section: Int
        /// Tracks from 1; nil: every track.
        var tracks: [Int]?
        static let spec = CommandSpec("section N tracks", usage: "section N tracks LIST|all|none",
                                      help: "the tracks that sound in section N (LIST like 1,2,5 or 1-3; all: every track)")
        static let examples = [SectionTracks(section: 2, tracks: [1, 2, 4]), SectionTracks(section: 1, tracks: nil),
                               SectionTracks(section: 3, tracks: [])]
        static func parse(_ p: inout LineParser) throws -> SectionTracks {
            let u = spec.usage
            let first = try p.next("LIST", usage: u)
            if p.isKeyword(first, "all") || p.isKeyword(first, "none") {
                try p.end(usage: u)
                return SectionTracks(section: p.selector ?? 1, tracks: first.text == "all" ? nil : [])
            }
            var words = [first]
            while p.position < p.words.count { words.append(try p.next("LIST", usage: u)) }
            var list: [Int] = []
            for w in words {
                for piece in w.text.split(separator: ",", omittingEmptySubsequences: true) {
                    let bounds = piece.split(separator: "-", maxSplits: 1).map { Int($0) }
                    guard !bounds.isEmpty, bounds.allSatisfy({ $0 != nil }), let a = bounds.first!, let b = bounds.last!,
                          a >= 1, b >= a, b <= Limits.maxTracks else {
                        throw p.fail("tracks are numbers from 1 to \(Limits.maxTracks) like 1,2,5 or 1-3, not '\(Limits.echo(String(piece)))'", at: w)
                    }
                    list += Array(a...b)
                }
            }
            return SectionTracks(section: p.selector ?? 1, tracks: Array(Set(list)).sorted())
        }
        var text: String {
            "section \(section) tracks " + (tracks.map { $0.isEmpty ? "none" : $0.map(String.init).joined(separator: ",") } ?? "all")
        }
        func run(in session: Session) throws -> String? { try session.runSectionTracks(section, tracks) }
    }

    struct SectionPlay: CommandBody {
        var section: Int
        /// Track (from 1) and group (0: its own markers again).
        var plays: [Pair]
        struct Pair: Hashable { var track: Int; var group: Int }
        static let spec = CommandSpec("section N play", usage: "section N play K=G [K=G ...]",
                                      help: "track K plays group G through section N, repeated from its start (G 0: its own markers)")
        static let examples = [SectionPlay(section: 2, plays: [Pair(track: 1, group: 3)]),
                               SectionPlay(section: 1, plays: [Pair(track: 2, group: 1), Pair(track: 3, group: 0)])]
        static func parse(_ p: inout LineParser) throws -> SectionPlay {
            let u = spec.usage
            var plays: [Pair] = []
            repeat {
                let w = try p.next("K=G", usage: u)
                guard let key = w.key, let value = w.value, let k = Int(key), (1...Limits.maxTracks).contains(k) else {
                    throw p.fail("expected K=G (a track from 1 and a group from 1 to 16, or 0), not '\(Limits.echo(w.text))'", at: w)
                }
                let g = try p.integer(value, "group", 0...GroupBank.range.upperBound)
                plays.append(Pair(track: k, group: g))
            } while p.position < p.words.count
            return SectionPlay(section: p.selector ?? 1, plays: plays)
        }
        var text: String { "section \(section) play " + plays.map { "\($0.track)=\($0.group)" }.joined(separator: " ") }
        func run(in session: Session) throws -> String? {
            try session.runSectionPlay(section, plays.map { ($0.track, $0.group) })
        }
    }

    public static func sectionTracks(_ n: Int, _ tracks: [Int]?) -> Command { Command(SectionTracks(section: n, tracks: tracks)) }
    public static func sectionPlay(_ n: Int, track: Int, group: Int) -> Command {
        Command(SectionPlay(section: n, plays: [SectionPlay.Pair(track: track, group: group)]))
    }
}

import TemperaCore
import TemperaPlayback

/// The Song tab: one row a section (number, name, region in bars.beats, ×repeats, BPM, length), the section
/// playing highlighted with its pass, the row under the tab's cursor marked, and a summary line. Columns that do
/// not fit the tab's width give way from the right (length, then BPM).
enum SongTab {
    /// Where the song's playhead is, as the transport samples it from the player.
    typealias Playing = SongPosition

    static func draw(session: Session, view: ViewState, rect r: Rect, _ g: Glyphs,
                     into canvas: inout Canvas) -> [Spot] {
        var spots: [Spot] = []
        guard r.height >= 2, r.width >= 16 else { return spots }
        let doc = session.document
        let song = doc.song
        let columns = Column.fitting(r.width - 2)
        canvas.put(r.x, r.y, Format.fit("  " + header(columns, g), r.width, ellipsis: g.ellipsis), .dim)
        let rows = r.height - 2
        let cursor = clampedRow(view.songRow, song)
        let first = firstRow(cursor: cursor, count: song.sections.count, rows: rows)
        let timing = SongTiming(song: song, tempo: doc.transport.tempo)
        let playing = song.plays ? view.transport.song : nil
        for j in first..<min(first + rows, song.sections.count) {
            let y = r.y + 1 + j - first
            let isPlaying = playing?.section == j
            let pass = isPlaying ? playing.map { $0.pass } : nil
            let text = row(j, song.sections[j], timing.sections[j], doc.transport, columns, g, pass: pass)
            let mark = j == cursor ? String(g.play) + " " : "  "
            let role: Role = isPlaying ? .playing : j == cursor ? .toolActive : .tool
            canvas.put(r.x, y, Format.pad(Format.fit(mark + text, r.width, ellipsis: g.ellipsis), r.width), role)
            spots.append(Spot(Rect(x: r.x, y: y, width: r.width, height: 1), .section(j)))
        }
        canvas.put(r.x, r.maxY - 1, Format.fit(summary(song, timing, view: view, g), r.width, ellipsis: g.ellipsis), .dim)
        return spots
    }

    /// The columns of a row and their widths.
    enum Column: CaseIterable {
        case number, name, region, repeats, bpm, length

        var width: Int {
            switch self {
            case .number: return 3
            case .name: return 8
            case .region: return 10
            case .repeats: return 6
            case .bpm: return 7
            case .length: return 9
            }
        }

        func title(_ g: Glyphs) -> String {
            switch self {
            case .number: return "#"
            case .name: return "name"
            case .region: return "region"
            case .repeats: return g.times
            case .bpm: return "bpm"
            case .length: return "length"
            }
        }

        /// As many columns as `width` holds, in order.
        static func fitting(_ width: Int) -> [Column] {
            var out: [Column] = []
            var used = 0
            for c in allCases where used + c.width <= width {
                out.append(c)
                used += c.width
            }
            return out
        }
    }

    static func header(_ columns: [Column], _ g: Glyphs) -> String {
        columns.map { Format.pad($0.title(g), $0.width) }.joined()
    }

    /// `1  A       1.1–3.1   ×2    120    4.000 s`; `*` after a BPM marks a section with its own tempo.
    static func row(_ j: Int, _ s: Song.Section, _ t: SongTiming.Section, _ transport: Transport,
                    _ columns: [Column] = Column.allCases, _ g: Glyphs = .utf8, pass: Int? = nil) -> String {
        var out = ""
        for c in columns {
            let text: String
            switch c {
            case .number: text = "\(j + 1)"
            case .name: text = Format.fit(s.name, c.width - 1, ellipsis: g.ellipsis)
            case .region: text = transport.barBeatLabel(s.start) + g.dash + transport.barBeatLabel(s.end)
            // The section playing shows its pass instead: `2/3`.
            case .repeats: text = pass.map { "\($0 + 1)/\(s.repeats)" } ?? "\(g.times)\(s.repeats)"
            case .bpm:
                // A ramp as `90→120`.
                let bpm = Session.bpmText(transport.bpm(atTempo: t.tempo))
                if let end = s.tempoEnd, s.tempo != nil {
                    text = bpm + g.arrow + Session.bpmText(transport.bpm(atTempo: end))
                } else {
                    text = bpm + (s.tempo == nil ? "" : "*")
                }
            case .length: text = Format.seconds(t.duration) + " s"
            }
            out += c == columns.last ? text : Format.pad(text, c.width)
        }
        return out
    }

    /// The tab's cursor row kept within the song.
    static func clampedRow(_ row: Int, _ song: Song) -> Int {
        min(max(row, 0), max(song.sections.count - 1, 0))
    }

    /// The first row shown so the cursor's row is in view.
    static func firstRow(cursor: Int, count: Int, rows: Int) -> Int {
        guard rows > 0, count > rows else { return 0 }
        return min(max(0, cursor - rows + 1), count - rows)
    }

    /// `song on · loop off · 3 sections, 10.100 s`, or how to start one.
    static func summary(_ song: Song, _ timing: SongTiming, view: ViewState, _ g: Glyphs) -> String {
        guard !song.sections.isEmpty else {
            return "no section: " + (view.key("song.add").map { "\($0) adds the loop region" } ?? "section add")
        }
        let count = song.sections.count
        return "song \(song.on ? "on" : "off")\(g.separator)loop \(song.loop ? "on" : "off")\(g.separator)\(count) section"
            + (count == 1 ? "" : "s") + ", \(Format.seconds(timing.total)) s"
    }

    /// The transport's song text: `song 2/5 · pass 3/4` (from 1), with the song's own pass when it loops.
    static func transportText(_ song: Song, _ playing: Playing?, _ g: Glyphs) -> String {
        let p = playing.flatMap { $0.section < song.sections.count ? $0 : nil } ?? Playing(section: 0, pass: 0, songPass: 0)
        var text = "song \(p.section + 1)/\(song.sections.count)\(g.separator)pass \(p.pass + 1)/\(song.sections[p.section].repeats)"
        if song.loop && p.songPass > 0 { text += "\(g.separator)loop \(p.songPass + 1)" }
        return text
    }
}

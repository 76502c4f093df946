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
        let rows = r.height - 2
        let cursor = clampedRow(view.songRow, song)
        let first = firstRow(cursor: cursor, count: song.sections.count, rows: rows)
        let timing = SongTiming(song: song, tempo: doc.transport.tempo)
        let playing = song.plays ? view.transport.song : nil
        let shown = first..<min(first + rows, song.sections.count)
        let cells = shown.map { j in
            let pass = playing?.section == j ? playing.map { $0.pass } : nil
            return self.cells(j, song.sections[j], timing.sections[j], doc.transport, g, pass: pass)
        }
        let widths = Column.widths(cells)
        // The grid takes the room the list leaves, when there is room for a few of its columns.
        let listWidth = Column.allCases.reduce(2) { $0 + (widths[$1] ?? $1.width) }
        let gridWidth = r.width - listWidth - 1
        let grid = gridWidth >= 14 && !song.sections.isEmpty
        let width = grid ? listWidth : r.width
        let columns = Column.fitting(width - 2, widths: widths)
        if grid {
            spots += drawGrid(doc, view: view, cursor: cursor,
                              rect: Rect(x: r.x + listWidth + 1, y: r.y, width: gridWidth, height: r.height - 1), g, into: &canvas)
        }
        canvas.put(r.x, r.y, Format.fit("  " + header(columns, widths, g), width, ellipsis: g.ellipsis), .dim)
        for (i, j) in shown.enumerated() {
            let y = r.y + 1 + j - first
            let isPlaying = playing?.section == j
            let text = row(cells[i], columns, widths)
            let mark = j == cursor ? String(g.play) + " " : "  "
            let role: Role = isPlaying ? .playing : j == cursor ? .toolActive : .tool
            canvas.put(r.x, y, Format.pad(Format.fit(mark + text, width, ellipsis: g.ellipsis), width), role)
            spots.append(Spot(Rect(x: r.x, y: y, width: width, height: 1), .section(j)))
        }
        canvas.put(r.x, r.maxY - 1, Format.fit(summary(song, timing, view: view, g), r.width, ellipsis: g.ellipsis), .dim)
        return spots
    }

    /// The columns of a row and their least widths (a column grows to hold its longest text and a blank).
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

        /// Each column's width for these rows: its least width, or its longest text and one blank, so two
        /// columns never run together (`100→140` and `1408.075 s`).
        static func widths(_ rows: [[Column: String]]) -> [Column: Int] {
            var out: [Column: Int] = [:]
            for c in allCases { out[c] = rows.reduce(c.width) { max($0, ($1[c]?.count ?? 0) + 1) } }
            return out
        }

        /// As many columns as `width` holds, in order.
        static func fitting(_ width: Int, widths: [Column: Int] = [:]) -> [Column] {
            var out: [Column] = []
            var used = 0
            for c in allCases {
                let w = widths[c] ?? c.width
                guard used + w <= width else { continue }
                out.append(c)
                used += w
            }
            return out
        }
    }

    static func header(_ columns: [Column], _ widths: [Column: Int], _ g: Glyphs) -> String {
        columns.map { Format.pad($0.title(g), widths[$0] ?? $0.width) }.joined()
    }

    /// `1  A       1.1–3.1   ×2    120    4.000 s`: the cells laid out in the columns' widths.
    static func row(_ cells: [Column: String], _ columns: [Column], _ widths: [Column: Int]) -> String {
        var out = ""
        for c in columns {
            let text = cells[c] ?? ""
            out += c == columns.last ? text : Format.pad(text, widths[c] ?? c.width)
        }
        return out
    }

    /// One section's cells; `*` after a BPM marks a section with its own tempo, `90→120` a ramp.
    static func cells(_ j: Int, _ s: Song.Section, _ t: SongTiming.Section, _ transport: Transport, _ g: Glyphs = .utf8,
                      pass: Int? = nil) -> [Column: String] {
        var out: [Column: String] = [:]
        for c in Column.allCases {
            switch c {
            case .number: out[c] = "\(j + 1)"
            case .name: out[c] = Format.fit(s.name, c.width - 1, ellipsis: g.ellipsis)
            case .region: out[c] = transport.barBeatLabel(s.start) + g.dash + transport.barBeatLabel(s.end)
            // The section playing shows its pass instead: `2/3`.
            case .repeats: out[c] = pass.map { "\($0 + 1)/\(s.repeats)" } ?? "\(g.times)\(s.repeats)"
            case .bpm:
                let bpm = Session.bpmText(transport.bpm(atTempo: t.tempo))
                if let end = s.tempoEnd, s.tempo != nil {
                    out[c] = bpm + g.arrow + Session.bpmText(transport.bpm(atTempo: end))
                } else {
                    out[c] = bpm + (s.tempo == nil ? "" : "*")
                }
            case .length: out[c] = Format.seconds(t.duration) + " s"
            }
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

    /// The grid: a row a track, a column a section. A cell shows `*` where the track plays its own markers, the
    /// group's number where it plays a group, and the dash where it is silent; the cursor's cell is highlighted.
    static func drawGrid(_ doc: Document, view: ViewState, cursor: Int, rect r: Rect, _ g: Glyphs,
                         into canvas: inout Canvas) -> [Spot] {
        let sections = doc.song.sections, tracks = doc.tracks
        // Track names as wide as the sections leave room for (5 to 8 columns, a blank after).
        let nameWidth = max(5, min(8, r.width - 3 * sections.count))
        let cols = max(1, (r.width - nameWidth) / 3), rows = max(1, r.height - 1)
        let track = min(max(view.songTrack, 0), max(tracks.count - 1, 0))
        let firstCol = firstRow(cursor: cursor, count: sections.count, rows: cols)
        let firstTrack = firstRow(cursor: track, count: tracks.count, rows: rows)
        var header = Format.pad("grid", nameWidth)
        for j in firstCol..<min(firstCol + cols, sections.count) { header += Format.pad(String(j + 1), 3) }
        canvas.put(r.x, r.y, Format.fit(header, r.width, ellipsis: g.ellipsis), .dim)
        for t in firstTrack..<min(firstTrack + rows, tracks.count) {
            let y = r.y + 1 + t - firstTrack
            canvas.put(r.x, y, Format.pad(Format.fit(tracks[t].name, nameWidth - 1, ellipsis: g.ellipsis), nameWidth),
                       t == track ? .toolActive : .dim)
            for j in firstCol..<min(firstCol + cols, sections.count) {
                let x = r.x + nameWidth + 3 * (j - firstCol)
                let text = cell(sections[j], track: t, g)
                let here = j == cursor && t == track
                canvas.put(x, y, Format.pad(text, 2), here ? .toolActive : text == g.dash ? .dim : .tool)
            }
        }
        return []
    }

    /// A grid cell's text: `*` (its own markers), a group's number, or the dash (silent).
    static func cell(_ s: Song.Section, track t: Int, _ g: Glyphs) -> String {
        if let on = s.tracks, !on.contains(t) { return g.dash }
        return s.plays[t].map(String.init) ?? "*"
    }
}

import TemperaCore

/// The transport bar: play state, loop, tempo and volume sliders, the playhead's position; on the box's top
/// edge the document's name with its modified mark and the audio output's status.
enum TransportPane {
    static func draw(session: Session, view: ViewState, layout l: Layout, _ g: Glyphs,
                     into canvas: inout Canvas) -> [Spot] {
        var spots: [Spot] = []
        let t = session.document.transport
        let info = view.transport
        drawTitle(session: session, view: view, layout: l, g, into: &canvas)

        let y = l.transport.y
        let playText = info.isPlaying ? "\(g.play) playing" : "\(g.pause) paused"
        let region = Format.seconds(t.loopStart) + g.dash + Format.seconds(t.loopEnd)
        let position = Format.seconds(info.position) + " s"
        // Beats a minute as heard, then the factor on the document's times.
        // Padded so the sliders stay put while the tempo's digits change under a drag.
        // While playing, the tempo heard at the playhead (a section's, a ramp's), not the document's.
        let heard = info.heardTempo ?? t.tempo
        let bpmText = String(Int(t.bpm(atTempo: heard).rounded()))
        let tempoText = String(repeating: " ", count: max(0, 3 - bpmText.count)) + bpmText + " bpm \(g.times)\(Format.fixed(heard, 2)) "
        let volumeValue = "\(Int((t.volume * 100).rounded()))% "
        let song = session.document.song
        func loopText(_ compact: Bool) -> String {
            if song.plays { return "\(g.song) " + SongTab.transportText(song, info.song, g) }
            return t.loopOn ? (compact ? "\(g.loop) " : "\(g.loop) loop ") + region : "\(g.loop) loop off"
        }
        func fixedWidth(_ compact: Bool) -> Int {
            g.rewind.count + 1 + playText.count + 2 + loopText(compact).count + 2 + tempoText.count + 2
                + (compact ? "vol " : "volume ").count + volumeValue.count + 2 + position.count
        }
        var compact = false
        var sliderWidth = (l.transport.width - fixedWidth(false)) / 2
        if sliderWidth < 8 {
            compact = true
            sliderWidth = (l.transport.width - fixedWidth(true)) / 2
        }
        // Odd, so the middle column is exactly x1 on the tempo slider.
        sliderWidth = min(max(sliderWidth, 3), 23)
        if sliderWidth % 2 == 0 { sliderWidth -= 1 }

        var x = l.transport.x
        func item(_ text: String, _ role: Role, _ hit: Hit?) {
            let start = x
            x = canvas.put(x, y, text, role)
            if let hit { spots.append(Spot(Rect(x: start, y: y, width: x - start, height: 1), hit)) }
        }
        item(g.rewind, .normal, .rewind)
        x += 1
        item(playText, info.isPlaying ? .playing : .stopped, .play)
        x += 2
        // With a song, the loop / song text switches between them; without one it turns the loop on and off.
        item(loopText(compact), song.plays || t.loopOn ? .loopRegion : .dim, song.sections.isEmpty ? .loop : .songMode)
        x += 2
        item(tempoText, .normal, .tempo(t.tempo))
        let tempoX = x, w = sliderWidth
        Slider(fraction: Slider.tempoFraction(t.tempo)).draw(x: x, y: y, width: w, g, into: &canvas)
        spots.append(Spot(Rect(x: tempoX, y: y, width: w, height: 1)) { cx, _ in
            .tempo(Slider.tempo(atFraction: Slider.fraction(atColumn: cx - tempoX, width: w)))
        })
        x += w + 2
        item((compact ? "vol " : "volume ") + volumeValue, .normal, .volume(t.volume))
        let volumeX = x
        Slider(fraction: t.volume).draw(x: x, y: y, width: w, g, into: &canvas)
        spots.append(Spot(Rect(x: volumeX, y: y, width: w, height: 1)) { cx, _ in
            .volume((Slider.fraction(atColumn: cx - volumeX, width: w) * 100).rounded() / 100)
        })
        x += w + 2
        let px = max(x, l.transport.maxX - position.count)
        if px + position.count <= l.transport.maxX {
            canvas.put(px, y, position, info.isPlaying ? .playing : .normal)
        }
        return spots
    }

    /// " transport ─ name ● " at the left of the top edge, audio status at its right.
    static func drawTitle(session: Session, view: ViewState, layout l: Layout, _ g: Glyphs,
                          into canvas: inout Canvas) {
        var x = canvas.put(2, 0, " transport ", .title)
        x = canvas.put(x, 0, String(g.horizontal), .border)
        let name = session.path.map(baseName) ?? "untitled"
        x = canvas.put(x, 0, " " + Format.fit(name, 30, ellipsis: g.ellipsis), .title)
        if session.isModified {
            x = canvas.put(x, 0, " ", .border)
            x = canvas.put(x, 0, g.modified, .warning)
        }
        canvas.put(x, 0, " ", .border)

        let info = view.transport
        var parts: [(String, Role)] = []
        if DesignerTab.isAuditioning(view) { parts.append(("auditioning track \(session.currentTrack + 1)", .accent)) }
        if !info.studio.isEmpty { parts.append((info.studio, .accent)) }
        if let audio = info.audio { parts.append((audio, .warning)) }
        if let ms = info.latencyMs { parts.append(("latency \(Int(ms.rounded())) ms", .dim)) }
        if info.latencyMs != nil, info.realTime == false { parts.append(("not real-time", .dim)) }
        if info.underruns > 0 {
            parts.append(("\(info.underruns) underrun" + (info.underruns == 1 ? "" : "s"), .warning))
        }
        guard !parts.isEmpty else { return }
        // What does not fit gives way: first the latency, then the end of the longest text.
        let room = l.width - 1 - (x + 2)
        func width() -> Int { parts.reduce(0) { $0 + $1.0.count + 3 } }
        if width() > room, let i = parts.firstIndex(where: { $0.1 == .dim }) { parts.remove(at: i) }
        while width() > room, let i = parts.indices.max(by: { parts[$0].0.count < parts[$1].0.count }),
              parts[i].0.count > 8 {
            parts[i].0 = Format.fit(parts[i].0, parts[i].0.count - (width() - room), ellipsis: g.ellipsis)
            if parts[i].0.count < 8 { parts[i].0 = Format.fit(parts[i].0, 8, ellipsis: g.ellipsis) }
        }
        guard width() <= room else { return }
        var rx = l.width - 1 - width()
        for (text, role) in parts {
            rx = canvas.put(rx, 0, " ", .border)
            rx = canvas.put(rx, 0, text, role)
            rx = canvas.put(rx, 0, " ", .border)
            rx = canvas.put(rx, 0, String(g.horizontal), .border)
        }
    }

    /// BPM to a tenth, without a trailing `.0`: `120`, `92.5`.
    static func bpm(_ x: Double) -> String {
        let tenths = (x * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : String(format: "%.1f", tenths / 10)
    }

    static func baseName(_ path: String) -> String {
        String(path.split(separator: "/").last ?? Substring(path))
    }

}

extension RenderState {
    /// The playhead clock of the music heard at output frame `heard`, stamped `nanos`, with no latency left: a
    /// clock that says exactly that music at that moment (MIDI in places a hit by it, to the frame).
    func clock(heardAt heard: Int64, nanos: UInt64) -> PlayheadClock {
        var tempo = 1.0, start = 0.0, span = 0.0
        if let sn = snapshot?.pointee, section < sn.sectionCount {
            let sec = sn.sections[section]
            tempo = sec.tempo
            start = sec.start
            span = sec.span
        }
        let sameSection = section == playStartSection && songPass == playStartSongPass
        return PlayheadClock(
            nanos: nanos, music: music(at: heard), latency: 0, tempo: tempo, start: start, span: span,
            playStart: sameSection ? playStart : 0, playing: playing && !countingIn, frame: heard,
            song: Double(heard - base) / rate, songPlayStart: playStartSong, snapshot: snapshot?.pointee.seq ?? 0,
            songShift: Double(songShiftFrames) / rate)
    }
}

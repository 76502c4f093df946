import Foundation
import TemperaCore

/// The sampler: voices started for onsets, clicks, pads and previews, and mixed into the block.
extension RenderState {
    /// Lists a metronome click (the accent on a bar's first beat) as due at `offset`.
    mutating func queueClick(accent: Meter.Accent, _ click: MixClick, seq: Int, at offset: Int) {
        guard click.on, click.level > 0 else { return }
        var e = DueEvent(kind: .click, offset: offset, frame: frame + Int64(offset), track: Self.clickTrack, slot: 0, amp: 1)
        e.accent = accent
        e.seq = seq
        due.append(e)
    }

    /// Starts a metronome click (the accent on a bar's first beat) at the metronome's level.
    mutating func startClick(accent: Meter.Accent, _ click: MixClick, seq: Int) {
        let sound = accent == .bar ? click.accent : accent == .group ? click.group ?? click.accent : click.normal
        guard click.on, click.level > 0, let data = sound else { return }
        let frames = accent == .bar ? click.accentFrames : accent == .group && click.group != nil ? click.groupFrames
            : accent == .group ? click.accentFrames : click.normalFrames
        guard frames > 0 else { return }
        let v = allocateVoice()
        anyVoiceSounded = true
        order &+= 1
        voices[v] = Voice(
            active: true, stolen: false, track: Self.clickTrack, data: data, frames: frames, position: 0,
            gain: click.level, trackGain: 1, level: 0, stage: .attack,
            attackStep: 1 / Float(max(1, Int(Fades.minimumAttack * rate))), decayStep: 0,
            releaseFrames: stealFrames, releaseStep: 0, releaseAt: Int64.max, gatePass: 0, gateTime: 0,
            gateSection: 0, gateSongPass: 0, seq: seq, order: order)
    }

    /// A previewed sample: outside every track, at full level; the one before it fades out.
    mutating func startPreview(_ snap: UnsafeMutablePointer<MixSnapshot>) {
        for v in 0..<Self.voiceCapacity where voices[v].active && voices[v].track == Self.previewTrack {
            voices[v].release(over: stealFrames)
        }
        guard let data = snap.pointee.previewData, snap.pointee.previewFrames > 0 else { return }
        let v = allocateVoice()
        anyVoiceSounded = true
        order &+= 1
        voices[v] = Voice(
            active: true, stolen: false, track: Self.previewTrack, data: data, frames: snap.pointee.previewFrames,
            position: 0, gain: 1, trackGain: 1, level: 0, stage: .attack,
            attackStep: 1 / Float(max(1, Int(Fades.minimumAttack * rate))), decayStep: 0,
            releaseFrames: stealFrames, releaseStep: 0, releaseAt: Int64.max, gatePass: 0, gateTime: 0,
            gateSection: 0, gateSongPass: 0, seq: snap.pointee.seq, order: order)
    }

    /// The sampler's half of an onset: the choke, and a voice for the slot's layer.
    mutating func startOnset(_ e: DueEvent, snap: UnsafeMutablePointer<MixSnapshot>) {
        let sn = snap.pointee
        let clip = Int(e.slot)
        let slot = sn.slots[clip - 1]
        guard slot.layerCount > 0 else { return }
        let layer = sn.layers[slot.firstLayer + min(Int(e.layer), slot.layerCount - 1)]
        // The choke: this onset fades out the other slots of its group, even when it is itself silent.
        if slot.choke != 0 {
            for v in 0..<Self.voiceCapacity
                where voices[v].active && voices[v].choke == slot.choke && voices[v].slot != Int32(clip) {
                voices[v].release(over: stealFrames)
            }
        }
        guard let data = layer.data, layer.frames > 0 else { return }
        let targetGain = Int(e.track) < sn.trackCount ? sn.trackGains[Int(e.track)] : 0
        guard targetGain > 0, e.amp > 0, slot.gain > 0, layer.gain > 0 else { return }

        let v = allocateVoice()
        anyVoiceSounded = true
        order &+= 1
        // A slice that starts at its sound's first frame plays it at full level at once: the recording's own
        // beginning needs no fade-in, and one would leave the first milliseconds of a sliced loop unlike it.
        let whole = e.from == 0 && e.to > 0 && slot.decayFrames == 0
        // A slot's single file has gain 1, so `* layer.gain` leaves it exactly as before layers existed.
        voices[v] = Voice(
            active: true, stolen: false, track: e.track, slot: Int32(clip), choke: slot.choke, data: data,
            frames: layer.frames, position: e.from > 0 ? min(layer.frames, Int((e.from * rate).rounded())) : 0,
            gain: Float(e.amp) * slot.gain * layer.gain, panLeft: slot.panLeft, panRight: slot.panRight,
            trackGain: targetGain, level: whole ? 1 : 0, stage: whole ? .sustain : .attack,
            attackStep: 1 / Float(slot.attackFrames), decayStep: slot.decayFrames > 0 ? 1 / Float(slot.decayFrames) : 0,
            releaseFrames: slot.releaseFrames, releaseStep: 0,
            releaseAt: e.releaseAt,
            gatePass: e.gatePass, gateTime: e.gateTime, gateSection: e.gateSection, gateSongPass: e.gateSongPass,
            seq: e.seq, order: order)
    }

    /// The sampler: mixes the voices from `offset` to `end`, starting each listed event's sound on its frame.
    mutating func playDue(into out: UnsafeMutablePointer<Float>, from offset: Int, to end: Int) {
        var at = offset
        for i in 0..<due.count {
            let e = due[i]
            if e.offset > at {
                mixVoices(into: out + 2 * at, count: e.offset - at, firstFrame: frame + Int64(at))
                at = e.offset
            }
            switch e.kind {
            case .onset:
                if let snap = snapshot { startOnset(e, snap: snap) }
            case .cut:
                for v in 0..<Self.voiceCapacity where voices[v].active && voices[v].track == e.track {
                    voices[v].release(over: voices[v].releaseFrames)
                }
            case .click:
                if let snap = snapshot { startClick(accent: e.accent, snap.pointee.click, seq: e.seq) }
            case .pad:
                startPad(slot: Int(e.slot) - 1, velocity: Float(e.amp))
            }
        }
        if end > at { mixVoices(into: out + 2 * at, count: end - at, firstFrame: frame + Int64(at)) }
    }

    /// Lists a pad hit for the next block, `offset` frames into it (0 for a key: at once).
    mutating func queuePad(slot: Int, velocity: Float, offset: Int = 0) {
        guard (0..<EngineShared.slotCount).contains(slot), velocity > 0 else { return }
        var e = DueEvent(kind: .pad, offset: max(0, offset), frame: 0, track: Self.padTrack, slot: Int32(slot + 1),
                         amp: Double(min(velocity, 1)))
        e.seq = snapshot?.pointee.seq ?? 0
        incoming.append(e)
    }

    /// A free voice; at the polyphony limit the oldest sounding voice is stolen (it fades out in a few ms).
    mutating func allocateVoice() -> Int {
        var live = 0, oldest = -1, free = -1
        for v in 0..<Self.voiceCapacity {
            if voices[v].active {
                if !voices[v].stolen {
                    live += 1
                    if oldest < 0 || voices[v].order < voices[oldest].order { oldest = v }
                }
            } else if free < 0 {
                free = v
            }
        }
        if live >= polyphony, oldest >= 0 {
            voices[oldest].stolen = true
            voices[oldest].release(over: stealFrames)
        }
        if free >= 0 { return free }
        // Every slot busy: reuse the quietest of the fading (stolen) voices, never one still sounding.
        var quietest = -1
        for v in 0..<Self.voiceCapacity
            where voices[v].stolen && (quietest < 0 || voices[v].level < voices[quietest].level) {
            quietest = v
        }
        return quietest >= 0 ? quietest : max(oldest, 0)
    }

    mutating func releaseAll(pads: Bool) {
        for v in 0..<Self.voiceCapacity where voices[v].active && (pads || voices[v].track != Self.padTrack) {
            voices[v].release(over: min(voices[v].releaseFrames, stealFrames * 4))
        }
    }

    /// A pad hit: the slot's sample from its first frame, at the start of the block being rendered, at
    /// `velocity` times the slot's gain. It plays through no track (unit gain; no `-` cuts it) and to its end
    /// whatever the slot's mode, since a key has no release to close a gate with.
    mutating func startPad(slot: Int, velocity: Float) {
        guard let snap = snapshot, (0..<EngineShared.slotCount).contains(slot), velocity > 0 else { return }
        let sn = snap.pointee
        let s = sn.slots[slot]
        guard s.layerCount > 0 else { return }
        // The velocity picks the layer as a marker's amplitude does, and chokes the slot's group as an onset does.
        let layer = sn.layers[s.firstLayer + (s.layerCount > 1 ? s.layer(for: Double(velocity), in: sn.layers) : 0)]
        if s.choke != 0 {
            for v in 0..<Self.voiceCapacity
                where voices[v].active && voices[v].choke == s.choke && voices[v].slot != Int32(slot + 1) {
                voices[v].release(over: stealFrames)
            }
        }
        guard let data = layer.data, layer.frames > 0, s.gain > 0, layer.gain > 0 else { return }
        let v = allocateVoice()
        anyVoiceSounded = true
        order &+= 1
        voices[v] = Voice(
            active: true, stolen: false, track: Self.padTrack, slot: Int32(slot + 1), choke: s.choke, data: data,
            frames: layer.frames, position: 0, gain: min(velocity, 1) * s.gain * layer.gain,
            panLeft: s.panLeft, panRight: s.panRight, trackGain: 1, level: 0, stage: .attack,
            attackStep: 1 / Float(s.attackFrames), decayStep: s.decayFrames > 0 ? 1 / Float(s.decayFrames) : 0,
            releaseFrames: s.releaseFrames, releaseStep: 0, releaseAt: Int64.max, gatePass: 0, gateTime: 0,
            gateSection: 0, gateSongPass: 0, seq: sn.seq, order: order)
    }

    // MARK: - Mixing

    mutating func mixVoices(into out: UnsafeMutablePointer<Float>, count: Int, firstFrame: Int64) {
        guard count > 0 else { return }
        let snap = snapshot
        for v in 0..<Self.voiceCapacity where voices[v].active {
            let t = Int(voices[v].track)
            var target: Float = 0
            if t < 0 {
                target = 1
            } else if let snap, t < snap.pointee.trackCount {
                target = snap.pointee.trackGains[t]
            }
            let k = stems.buffer == nil ? -1 : stems.index(track: voices[v].track, slot: voices[v].slot)
            if k >= 0 {
                mixVoice(v, stem: k, into: out, count: count, at: Int(firstFrame - frame), firstFrame: firstFrame,
                         target: target)
                continue
            }
            voices[v].mix(into: out, count: count, firstFrame: firstFrame, targetTrackGain: target,
                          smoothing: trackSmoothing)
        }
    }
}

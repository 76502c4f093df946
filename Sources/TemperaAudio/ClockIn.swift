import Foundation

/// MIDI clock in (`--clock in`) on the audio thread: the frames its clocks arrived on, and a straight line
/// through the last ones (least squares: frame ≈ a + b·n for clock n since Start), so a jittery clock gives
/// steady beats. The line looks back `window` clocks (two beats); when the newest clocks leave it (a tempo
/// change), it starts again from them, so a change is followed within a beat. Like a PLL that re-locks, it takes
/// a clock off the line for noise, not a new phase: a clock that arrives a whole number of clocks off the line
/// right after one on it is renumbered (a lost clock: the music stays on the sender's count) or dropped (a
/// doubled one), and a single clock far off the line between clocks on it (a late one) leaves the line untouched.
struct ClockIn {
    /// Following at all (set before the output starts).
    var on = false
    static let window = 48
    /// Residuals (frames) beyond which a run of clocks means the tempo changed.
    static let changeFrames = 96.0
    static let changeRun = 3
    /// Clocks the line needs before a run off it counts as a change (fewer give too rough a line to judge by).
    static let settled = 12
    /// The clocks' frames, a ring of `window`.
    let frames: UnsafeMutablePointer<Int64>
    let numbers: UnsafeMutablePointer<Int>
    private(set) var count = 0
    /// The next clock's number since the last Start.
    private(set) var next = 0
    /// Clocks in a row off the line, with the same sign.
    private var offRun = 0
    private var offSign = 0.0
    /// How far off the line the last clock off it was (frames).
    private var lastOff = 0.0
    /// The line: clock n falls on output frame `a + b·n`; valid once two clocks were seen.
    private(set) var a = 0.0
    private(set) var b = 0.0
    var valid: Bool { count >= 2 && b > 0 }
    /// A Start, Stop or Continue waiting for the next block (0: none).
    var pending: UInt8 = 0

    static func make() -> ClockIn {
        let f = UnsafeMutablePointer<Int64>.allocate(capacity: window)
        f.initialize(repeating: 0, count: window)
        let n = UnsafeMutablePointer<Int>.allocate(capacity: window)
        n.initialize(repeating: 0, count: window)
        return ClockIn(frames: f, numbers: n)
    }

    func deallocate() {
        frames.deallocate()
        numbers.deallocate()
    }

    /// A system real-time message arrived on output frame `frame`.
    mutating func receive(_ status: UInt8, at frame: Int64) {
        switch status {
        case 0xF8: tick(at: frame)
        case 0xFA:
            // The next clock is the music's first.
            next = 0
            count = 0
            offRun = 0
            pending = status
        case 0xFB, 0xFC: pending = status
        default: break
        }
    }

    private mutating func tick(at frame: Int64) {
        var n = next
        if count >= Self.settled {
            let residual = Double(frame) - (a + b * Double(n))
            let whole = b > 0 ? (residual / b).rounded() : 0
            if offRun == 0 && abs(residual) > b / 2 && abs(residual - whole * b) <= b / 4 {
                // Whole clocks off right after a clock on the line: one was lost, or one came twice.
                if whole < 0 { return }
                n += Int(whole)
            } else if abs(residual) > Self.changeFrames {
                let sign: Double = residual > 0 ? 1 : -1
                offRun = sign == offSign ? offRun + 1 : 1
                offSign = sign
                lastOff = abs(residual)
            } else {
                // Back on the line after a single clock far off it (a quarter clock): that one was late, not a
                // change, and leaves the line (nearer ones are jitter, which the line averages).
                if offRun == 1 && lastOff > b / 4 { count -= 1 }
                offRun = 0
            }
            if offRun >= Self.changeRun {
                // The tempo changed: the line starts again from the clocks off it.
                let keep = min(count, Self.changeRun - 1)
                for k in 0..<keep {
                    frames[k] = frames[(count - keep + k) % Self.window]
                    numbers[k] = numbers[(count - keep + k) % Self.window]
                }
                count = keep
                offRun = 0
            }
        }
        next = n + 1
        if count < Self.window {
            frames[count] = frame
            numbers[count] = n
            count += 1
        } else {
            // Oldest out: shift (the window is small).
            for k in 1..<Self.window {
                frames[k - 1] = frames[k]
                numbers[k - 1] = numbers[k]
            }
            frames[Self.window - 1] = frame
            numbers[Self.window - 1] = n
        }
        fit()
    }

    private mutating func fit() {
        guard count >= 2 else { return }
        let x0 = Double(numbers[0]), y0 = Double(frames[0])
        var sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
        for k in 0..<count {
            let x = Double(numbers[k]) - x0, y = Double(frames[k]) - y0
            sx += x
            sy += y
            sxx += x * x
            sxy += x * y
        }
        let c = Double(count)
        let d = c * sxx - sx * sx
        guard d > 0 else { return }
        let slope = (c * sxy - sx * sy) / d
        let intercept = (sy - slope * sx) / c
        b = slope
        a = y0 + intercept - slope * x0
    }
}

extension RenderState {
    /// Follows MIDI clock in at the start of a block: its Start, Stop and Continue, and its phase (the music put
    /// where the clock's line says it is; the tempo comes with the snapshot, published from the line's slope).
    mutating func followClockIn() {
        guard clockIn.on else { return }
        switch clockIn.pending {
        case 0xFA:
            apply(TransportCommand(.rewind))
            apply(TransportCommand(.play))
        case 0xFB:
            apply(TransportCommand(.play))
        case 0xFC:
            apply(TransportCommand(.pause))
        default:
            break
        }
        clockIn.pending = 0
        if clockIn.valid {
            shared.pointee.clockInFramesPerClock.store(clockIn.b.bitPattern, ordering: .relaxed)
        }
        guard playing, clockIn.valid, let snap = snapshot, section < snap.pointee.sectionCount else { return }
        let sn = snap.pointee
        let tempo = sn.sections[section].tempo
        guard tempo > 0 else { return }
        // The music the clock says is here: clock n is music n·beat/24 from the Start, the song's time at x1
        // unwrapped across sections and passes (every section plays at the clock's one tempo, as under Link).
        let target = (Double(frame) - clockIn.a) / clockIn.b * sn.beat / 24
        let error = target - linkMusic(at: frame)
        let shift = Int64((error / tempo * rate).rounded())
        if shift != 0 { base -= shift }
    }
}

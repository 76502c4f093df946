import TemperaAudio

/// Pumps `frames` frames from an engine on the null output in blocks of 256, as a device would ask for
/// them, and returns them interleaved.
public func pump(_ engine: AudioEngine, _ frames: Int) -> [Float] {
    var out: [Float] = []
    var left = frames
    while left > 0 {
        let n = min(256, left)
        out += engine.pump(frames: n)
        left -= n
    }
    return out
}

/// Where sound starts in interleaved stereo: exact frames, for clips whose first frame is not zero.
public enum Onsets {
    /// The first frame at or after `from` whose left sample is not zero.
    public static func firstSound(_ stereo: [Float], from: Int = 0) -> Int? {
        var i = from
        while i < stereo.count / 2 {
            if stereo[2 * i] != 0 { return i }
            i += 1
        }
        return nil
    }

    /// Frames where sound starts (in either channel) after at least `gap` silent frames: the onsets of
    /// clips that do not overlap.
    public static func soundStarts(_ stereo: [Float], gap: Int = 8) -> [Int] {
        var starts: [Int] = []
        var silent = gap
        for i in 0..<(stereo.count / 2) {
            if stereo[2 * i] == 0 && stereo[2 * i + 1] == 0 {
                silent += 1
            } else {
                if silent >= gap { starts.append(i) }
                silent = 0
            }
        }
        return starts
    }
}

extension Onsets {
    /// Frames where one channel of interleaved audio with `channels` channels sounds after at least `gap`
    /// silent frames (samples exactly zero).
    public static func soundStarts(_ interleaved: [Float], channels: Int, channel: Int, gap: Int = 100) -> [Int] {
        var starts: [Int] = []
        var silent = gap
        var i = channel, frame = 0
        while i < interleaved.count {
            if interleaved[i] == 0 {
                silent += 1
            } else {
                if silent >= gap { starts.append(frame) }
                silent = 0
            }
            i += channels
            frame += 1
        }
        return starts
    }
}

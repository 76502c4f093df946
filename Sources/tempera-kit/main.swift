// Generates the default kit: 16 drum and percussion sounds synthesised from scratch (no recordings, so no
// licence question), written as 48 kHz mono 24-bit WAV files named after `Document.kitNames`.
// Usage: tempera-kit DIRECTORY. Deterministic: the same files every run.
import CSndfile
import Foundation
import TemperaAudio
import TemperaCore

let directory = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "Samples"
try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)

var failed = false
// The 16 kit sounds, and the tone a MIDI-note slot without a file plays.
for name in Document.kitNames + [SampleBank.noteSampleName] {
    var synth = KitSynth(seed: UInt64(name.utf8.reduce(5381) { ($0 &* 33) &+ UInt64($1) }))
    let samples = KitSynth.finish(synth.sound(named: name))
    let path = "\(directory)/\(name).wav"
    do {
        try KitSynth.writeWAV(samples, to: path)
        let ms = Double(samples.count) / KitSynth.rate * 1000
        print("\(path)  \(Int(ms)) ms")
    } catch {
        FileHandle.standardError.write("tempera-kit: \(error)\n".data(using: .utf8)!)
        failed = true
    }
}
exit(failed ? 1 : 0)

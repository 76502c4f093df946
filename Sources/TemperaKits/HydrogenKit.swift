import Foundation
import TemperaCore

/// A Hydrogen drumkit as `drumkit.xml` describes it, read from the folder it is installed in.
///
/// Three layouts occur in Debian's own kits, and all are read: layers inside `instrumentComponent` (Hydrogen
/// 0.9.7 and later), layers directly inside `instrument` (0.9.4–0.9.6), and one `filename` per instrument (the
/// oldest). Pan is `pan` (-1…1) in new kits and `pan_L`/`pan_R` (0…1 each) in old ones, converted as Hydrogen
/// converts them. The samples stay where they are: layers name them by absolute path.
public struct HydrogenKit: Hashable, Sendable {
    public struct Instrument: Hashable, Sendable {
        public var name: String
        /// `volume` × `gain`.
        public var gain: Double
        /// -1…1.
        public var pan: Double
        /// Hydrogen's mute group: -1 for none, else 0, 1, …
        public var muteGroup: Int
        /// Files by absolute path, ranges 0…1, gains (the component's gain included), pitch in semitones (the
        /// instrument's pitch offset included).
        public var layers: [ClipSlot.Layer]
    }

    public var name: String
    public var licence: String
    public var author: String
    /// The folder holding `drumkit.xml` and the samples.
    public var folder: String
    public var instruments: [Instrument]
    /// The volume of the kit's component (`componentList`), which Hydrogen multiplies every instrument by: 1
    /// when the kit names none, or several that differ.
    public var componentVolume: Double = 1

    /// Reads `FOLDER/drumkit.xml`.
    public static func read(folder: String) throws -> HydrogenKit {
        let folder = folder.hasSuffix("/") && folder.count > 1 ? String(folder.dropLast()) : folder
        let path = folder + "/drumkit.xml"
        let root = try HydrogenXML.root(of: path, what: "kit")
        guard root.name == "drumkit_info" else {
            throw KitError("kit: \(path) is not a Hydrogen drumkit (its root is <\(root.name)>, not <drumkit_info>)")
        }
        let instruments = (root.element("instrumentList")?.elements(named: "instrument") ?? []).map {
            instrument($0, folder: folder)
        }
        let folderName = (folder as NSString).lastPathComponent
        return HydrogenKit(name: root.text("name").flatMap { $0.isEmpty ? nil : $0 } ?? folderName,
                           licence: root.text("license") ?? "", author: root.text("author") ?? "",
                           folder: folder, instruments: instruments,
                           componentVolume: componentVolume(of: root) ?? 1)
    }

    /// The volume of the components a kit or song lists (`componentList`): nil when they differ (one volume for
    /// all of them is all a slot can carry), 1 when there are none.
    static func componentVolume(of root: HydrogenXML.Element) -> Double? {
        let components = root.element("componentList")?.elements(named: "drumkitComponent") ?? []
        let volumes = Set(components.map { $0.number("volume") ?? 1 })
        guard volumes.count <= 1 else { return nil }
        return clamp(volumes.first ?? 1, 0, 16)
    }

    /// One `<instrument>` of a kit (or of a song's instrument list, whose layers name files of `folder`).
    static func instrument(_ e: HydrogenXML.Element, folder: String) -> Instrument {
        let volume = e.number("volume") ?? 1
        let gain = e.number("gain") ?? 1
        let pitchOffset = e.number("pitchOffset") ?? 0
        func file(_ name: String) -> String { name.hasPrefix("/") ? name : folder + "/" + name }
        func layer(_ l: HydrogenXML.Element, componentGain: Double) -> ClipSlot.Layer? {
            guard let name = l.text("filename"), !name.isEmpty else { return nil }
            var lo = clamp(l.number("min") ?? 0, 0, 1), hi = clamp(l.number("max") ?? 1, 0, 1)
            if lo > hi { swap(&lo, &hi) }
            return ClipSlot.Layer(file: file(name), min: lo, max: hi,
                                  gain: clamp((l.number("gain") ?? 1) * componentGain, 0, 16),
                                  pitch: clamp((l.number("pitch") ?? 0) + pitchOffset, -48, 48))
        }
        var layers: [ClipSlot.Layer] = []
        // Layout 1: components; the first one holding layers is the instrument's sound.
        for c in e.elements(named: "instrumentComponent") {
            let found = c.elements(named: "layer").compactMap { layer($0, componentGain: c.number("gain") ?? 1) }
            if !found.isEmpty { layers = found; break }
        }
        // Layout 2: layers straight inside the instrument.
        if layers.isEmpty { layers = e.elements(named: "layer").compactMap { layer($0, componentGain: 1) } }
        // Layout 3: one file.
        if layers.isEmpty, let name = e.text("filename"), !name.isEmpty {
            layers = [ClipSlot.Layer(file: file(name), pitch: clamp(pitchOffset, -48, 48))]
        }
        return Instrument(name: e.text("name") ?? "", gain: clamp(volume * gain, 0, 16), pan: pan(of: e),
                          muteGroup: e.integer("muteGroup") ?? -1, layers: layers)
    }

    /// `pan` when the file has it, else `pan_L`/`pan_R` as Hydrogen reads old files: equal sides are the centre,
    /// and the quieter side over the louder gives the distance from it.
    static func pan(of e: HydrogenXML.Element) -> Double {
        if let p = e.number("pan") { return clamp(p, -1, 1) }
        let l = clamp(e.number("pan_L") ?? 1, 0, 1), r = clamp(e.number("pan_R") ?? 1, 0, 1)
        if l == r { return 0 }
        return l > r ? r / l - 1 : 1 - l / r
    }

    static func clamp(_ v: Double, _ lo: Double, _ hi: Double) -> Double { min(max(v, lo), hi) }

    /// The instruments that have a sound: many kits keep empty places in their list of 32.
    public var sounding: [Instrument] { instruments.filter { !$0.layers.isEmpty } }

    /// The kit as slots: one per instrument that has a sound, in the kit's order, each at the level Hydrogen
    /// plays it with a new song's settings (its default pan law, the kit's component volume), as a song using
    /// the kit imports it.
    public var kit: Kit {
        Kit(name: name, licence: licence, folder: folder, slots: sounding.map { $0.slot(carried: componentVolume) })
    }
}

extension HydrogenKit.Instrument {
    /// The gain and pan of a slot that sounds each side at Hydrogen's level: the instrument's level × `carried`
    /// (what else Hydrogen multiplies every instrument by: the component's volume, a song's volume above 1) ×
    /// the side that `law` gives its pan, written exactly through tempera's own law (`HydrogenPanLaw.slot`).
    public func levels(law: HydrogenPanLaw = .standard, k: Double = HydrogenPanLaw.standardK,
                       carried: Double = 1) -> (gain: Double, pan: Double) {
        let sides = law.gains(pan, k: k)
        let level = gain * carried
        let (g, p) = HydrogenPanLaw.slot(left: level * sides.left, right: level * sides.right)
        return (min(g, 16), min(max(p, -1), 1))
    }

    /// A slot that plays the instrument at Hydrogen's level (`levels`): one file when it has one plain layer,
    /// else its velocity layers.
    public func slot(law: HydrogenPanLaw = .standard, k: Double = HydrogenPanLaw.standardK, carried: Double = 1) -> ClipSlot {
        let (gain, pan) = levels(law: law, k: k, carried: carried)
        var s = ClipSlot(name: name, gain: gain, pan: pan, choke: muteGroup >= 0 ? min(muteGroup + 1, ClipSlot.chokeGroups.upperBound) : 0)
        if layers.count == 1, layers[0].min == 0, layers[0].max == 1, layers[0].gain == 1, layers[0].pitch == 0 {
            s.file = layers[0].file
        } else {
            s.layers = layers
        }
        return s
    }
}

/// A drum kit made ready for slots: its name, licence and one slot per instrument, in the kit's order.
public struct Kit: Hashable, Sendable {
    public var name: String
    /// The kit's licence as it states it ("" when it states none).
    public var licence: String
    /// The folder the kit was read from.
    public var folder: String
    /// One slot per instrument: name, gain, pan, choke group and velocity layers (files by absolute path).
    public var slots: [ClipSlot]

    public init(name: String, licence: String, folder: String, slots: [ClipSlot]) {
        self.name = name
        self.licence = licence
        self.folder = folder
        self.slots = slots
    }
}

/// Where `kit list` and `kit load` find kits. The core knows no file format; the program hands the session a
/// source (Hydrogen drumkits, read where they are installed).
public protocol KitSource: AnyObject {
    /// The kits installed, by name, each with its instrument count and licence; problems reading one are left
    /// to `load`, so one broken kit does not hide the others.
    func list() -> [(name: String, instruments: Int, licence: String)]
    /// A kit by name (as `list` gives it) or by the path of its folder or its file. Throws one line.
    func load(_ nameOrPath: String) throws -> Kit
}

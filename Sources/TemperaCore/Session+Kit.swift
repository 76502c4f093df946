extension Session {
    func runKitList() throws -> String? {
        guard let kits else { throw CommandError("no kit library here (kit list needs the tempera program)") }
        let all = kits.list()
        if all.isEmpty { return "no kits found (Hydrogen drumkits are looked for where Hydrogen installs them)" }
        return "\(all.count) kits: " + all.map { k in
            "\(k.name) (\(k.instruments)" + (k.licence.isEmpty ? ")" : ", \(k.licence))")
        }.joined(separator: ", ")
    }

    /// The kit's instruments onto slots `from`, `from`+1, ... as one undo step; the rest are named, not loaded.
    func runKitLoad(_ name: String, from: Int) throws -> String? {
        guard let kits else { throw CommandError("no kit library here (kit load needs the tempera program)") }
        guard ClipSlot.range.contains(from) else { throw CommandError("no slot \(from) (slots are 1-16)") }
        let kit = try kits.load(name)
        guard !kit.slots.isEmpty else { throw CommandError("kit \(kit.name) has no instruments") }
        let count = min(kit.slots.count, ClipSlot.count - from + 1)
        try perform("kit load \(kit.name)") { edit in
            for i in 0..<count { edit.setSlot(from + i, kit.slots[i]) }
        }
        var message = "kit \(kit.name)" + (kit.licence.isEmpty ? "" : " (\(kit.licence))")
            + " on slots \(from)-\(from + count - 1)"
        if count < kit.slots.count {
            let left = kit.slots[count...].map(\.name)
            message += "; \(left.count) more instruments left out: " + left.joined(separator: ", ")
        }
        return message
    }
}

import TemperaCore
import TemperaNet

/// The protocol, from both ends: each line of the input is read as the host reads a participant's line
/// (hello, run, view, play, got, ping) and taken on a shared document as the host takes it, then read as a
/// participant reads the host's line (welcome, a streamed document's parts, deltas, replies, presence,
/// transport). A line is taken or refused in one line; whatever is taken stays within the limits: the
/// participants' views, the presence the host would send (read back the same), the transport a participant
/// follows, and the document it holds.
public func fuzzProtocol(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let shared = SharedDocument(session: Session(document: protocolStart))
    shared.reservedNames = ["host"]
    shared.join(key: "k1", name: "ana")
    let participant = Participant(host: "fuzz", port: 0, name: "bo")
    var lines = 0
    for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true) {
        lines += 1
        // Commands cost most of an input's time: a few dozen lines reach deep enough.
        if lines > 32 { break }
        let line = Array(line)
        if let message = try? ParticipantMessage.read(line) {
            switch message {
            case .hello(let h):
                let key = h.session.isEmpty ? "k\(lines + 1)" : h.session
                if shared.nameProblem(h.name, key: shared.participants[key] == nil ? nil : key) == nil {
                    shared.join(key: key, name: h.name)
                }
            case .view(let v):
                _ = try? shared.updateView(of: "k1", from: v)
            case .run(let text, let id, let view):
                if let view, (try? shared.updateView(of: "k1", from: view)) == nil { break }
                // Saving writes files: the host's own tests cover it.
                if text.contains("save") || text.contains("export") || text.contains("render") { break }
                _ = shared.run(text, by: "k1", id: id)
            case .ping(let t):
                _ = Wire.pong(t, host: 0)
            case .got, .play:
                break
            }
        }
        participant.receive(line: line)
    }
    // What the host would tell everyone reads back the same, within the limits.
    let people = shared.present.map { ($0.name, $0.view.cursor, $0.view.currentTrack) }
    for p in people {
        if (try? Limits.checkCursor(p.1)) == nil || (try? Limits.checkTrack(p.2)) == nil {
            fatalError("a participant's view went outside the limits: \(p)")
        }
    }
    let presence = Wire.presence(people)
    guard let read = try? JSONMessage.parse(Array(presence.utf8)), let list = read["presence"]?.array,
          list.count == people.count, list.allSatisfy({ Wire.read(presence: $0) != nil }) else {
        fatalError("the host's presence does not read back: \(presence)")
    }
    participant.sync { p in
        for other in p.presence where (try? Limits.checkCursor(other.cursor)) == nil {
            fatalError("a participant took a presence outside the limits: \(other)")
        }
        let t = p.transport
        if !(t.at.isFinite && t.music.isFinite && t.rate.isFinite && t.span.isFinite) {
            fatalError("a participant took a transport that is not finite: \(t)")
        }
        if (try? Limits.checkCursor(p.view.cursor)) == nil { fatalError("a participant's own view went outside the limits") }
        // A document taken from a host (the empty one before any) must save.
        if p.seq >= 0 { _ = DocumentFile.encodeBytes(p.document) }
    }
    return 0
}

/// A small document with two tracks of four markers.
let protocolStart: Document = {
    let tracks: [Track] = ["kick", "hat"].map { (name: String) -> Track in
        let markers: [Marker] = (0..<4).map { (i: Int) -> Marker in
            Marker(id: MarkerID(i), time: Double(i) * 0.5, amp: 0.8, content: .clip(i + 1))
        }
        return Track(name: name, markers: MarkerList(markers))
    }
    return Document(tracks: tracks)
}()

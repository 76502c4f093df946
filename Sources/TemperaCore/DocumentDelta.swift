/// A change to a document as data, to be applied to another copy of the document in the state before it: what
/// a shared document's host sends every participant after each step.
///
/// It names markers by id (a delta keeps the ids the host gave, so later deltas and selections find them) and
/// carries, for each track, the markers it removed and the new state of the markers it added or changed. Every
/// other part of the document (slots, groups, transport, designer, pattern, track names and settings) travels
/// as the `head`: the document file's own text with the markers left out, sent only when some of it changed.
/// Reusing the file format means a setting the file gains is carried without a change here. A step that
/// reorders or deletes tracks, and a participant joining, get the `whole` document with its ids.
///
/// Encoded as one line of JSON (no newline inside), so it can travel in a line-based protocol.
public struct DocumentDelta: Equatable, Sendable {
    /// One track's marker changes (the track counted from 0, in the document after the change).
    public struct TrackMarkers: Equatable, Sendable {
        public var track: Int
        public var removed: [MarkerID]
        /// New or changed markers, with their ids.
        public var put: [Marker]

        public init(track: Int, removed: [MarkerID], put: [Marker]) {
            self.track = track
            self.removed = removed
            self.put = put
        }
    }

    /// The whole document (ids included); when set, the other fields are ignored.
    public var whole: Document?
    /// Everything but the markers, when any of it changed: its tracks have no markers, and its track count is
    /// the count after the change (tracks are appended or dropped at the end to match).
    public var head: Document?
    public var markers: [TrackMarkers]
    /// The document's next unused marker id after the change.
    public var nextMarkerID: MarkerID

    public init(whole: Document? = nil, head: Document? = nil, markers: [TrackMarkers] = [], nextMarkerID: MarkerID) {
        self.whole = whole
        self.head = head
        self.markers = markers
        self.nextMarkerID = nextMarkerID
    }

    /// The whole document, for a participant joining.
    public static func snapshot(_ document: Document) -> DocumentDelta {
        DocumentDelta(whole: document, nextMarkerID: document.nextMarkerID)
    }

    /// `document` with every track's markers left out: what `head` holds.
    public static func head(of document: Document) -> Document {
        var h = document
        for t in h.tracks.indices { h.tracks[t].markers = MarkerList() }
        return h
    }

    /// The head's text, to tell whether a step changed anything but markers (compare it before and after).
    public static func headText(of document: Document) -> [UInt8] {
        DocumentFile.encodeBytes(head(of: document), asShown: true)
    }

    /// The change a recorded step made, given the document after it. `headChanged` says whether anything but
    /// markers changed (compare `headText` before and after); the step's own fields cannot say so for parts of
    /// the document it does not know about.
    public init(step: History.Step, after document: Document, headChanged: Bool) {
        nextMarkerID = document.nextMarkerID
        markers = []
        // Tracks deleted, moved or duplicated: the whole document (rare, and the ids stay right).
        if step.tracks != nil {
            whole = document
            return
        }
        for change in step.markers {
            let kept = Set(change.after.map(\.id))
            markers.append(TrackMarkers(track: change.track, removed: change.before.map(\.id).filter { !kept.contains($0) },
                                        put: change.after))
        }
        for (k, track) in step.addedTracks.enumerated() where !track.markers.isEmpty {
            markers.append(TrackMarkers(track: step.tracksBefore + k, removed: [], put: Array(track.markers)))
        }
        if headChanged || !step.addedTracks.isEmpty { head = DocumentDelta.head(of: document) }
    }

    /// True when applying it changes nothing but possibly the next marker id.
    public var isEmpty: Bool { whole == nil && head == nil && markers.isEmpty }

    // MARK: Applying

    /// Applies the change to a document in the state before it. A delta that does not fit the document (a
    /// track that is not there) throws and leaves the document untouched.
    public func apply(to document: inout Document) throws {
        if let whole {
            document = whole
            return
        }
        var doc = document
        if let head {
            if head.tracks.count < doc.tracks.count {
                doc.tracks.removeLast(doc.tracks.count - head.tracks.count)
            } else {
                while doc.tracks.count < head.tracks.count { doc.tracks.append(Track(name: "")) }
            }
        }
        for change in markers {
            guard change.track >= 0, change.track < doc.tracks.count else {
                throw CommandError("a change names track \(change.track + 1), but the document has \(doc.tracks.count)")
            }
            var list = doc.tracks[change.track].markers
            let olds = list.markers(ids: change.put.map(\.id))
            var moves: [(old: Marker, new: Marker)] = []
            var fresh: [Marker] = []
            for m in change.put {
                guard m.time.isFinite else { throw CommandError("a change holds a marker with no finite time") }
                if let old = olds[m.id] { moves.append((old, m)) } else { fresh.append(m) }
            }
            list.apply(removing: change.removed, upserting: MarkerList.updateOrder(moves) + fresh)
            doc.tracks[change.track].markers = list
        }
        if let head {
            var merged = head
            for t in merged.tracks.indices { merged.tracks[t].markers = doc.tracks[t].markers }
            doc = merged
        }
        doc.nextMarkerID = max(nextMarkerID, doc.nextMarkerID)
        document = doc
    }

    // MARK: Encoding

    /// One line of JSON: `{"next":N,"head":{...},"changes":[{"track":0,"removed":[3],"ids":[7],"markers":[...]}]}`
    /// or `{"next":N,"whole":{"document":{...},"ids":[[...],...]}}`.
    public func encoded() -> String {
        var out = "{\"next\":\(nextMarkerID)"
        if let whole {
            out += ",\"whole\":{\"document\":" + DocumentDelta.oneLine(DocumentFile.encodeBytes(whole, asShown: true)) + ",\"ids\":["
            out += whole.tracks.map { "[" + $0.markers.map { String($0.id) }.joined(separator: ",") + "]" }
                .joined(separator: ",")
            out += "]}}"
            return out
        }
        if let head { out += ",\"head\":" + DocumentDelta.oneLine(DocumentFile.encodeBytes(head, asShown: true)) }
        if !markers.isEmpty {
            out += ",\"changes\":["
            out += markers.map { change in
                // The file's own marker writer, so a marker field the file gains travels too.
                let list = MarkerList(change.put)
                var text = "{\"track\":\(change.track),\"removed\":["
                text += change.removed.map { String($0) }.joined(separator: ",")
                text += "],\"ids\":[" + list.map { String($0.id) }.joined(separator: ",") + "],\"markers\":"
                text += DocumentDelta.oneLine(DocumentDelta.markersText(list))
                return text + "}"
            }.joined(separator: ",")
            out += "]"
        }
        return out + "}"
    }

    /// JSON text with its line breaks taken out (the writer never puts one inside a string: it escapes them).
    static func oneLine(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.filter { $0 != 0x0A }, as: UTF8.self)
    }

    /// Reads what `encoded()` wrote (already parsed as part of a message).
    public init(decoding message: JSONMessage) throws {
        let v = message.value
        let o = try DocumentFile.Decoder.Object(v, "a change", allowed: ["next", "whole", "head", "changes"])
        nextMarkerID = MarkerID(try DocumentFile.Decoder.int(try o.required("next", in: "a change"), "next",
                                                             0...Int(MarkerID.max)))
        markers = []
        if let w = o.optional("whole") {
            let wo = try DocumentFile.Decoder.Object(w, "a whole document", allowed: ["document", "ids"])
            var doc = try DocumentFile.Decoder.document(try wo.required("document", in: "a whole document"))
            let ids = try DocumentFile.Decoder.array(try wo.required("ids", in: "a whole document"), "ids")
            guard ids.count == doc.tracks.count else { throw w.error("ids name \(ids.count) tracks, the document has \(doc.tracks.count)") }
            for t in doc.tracks.indices {
                let list = try DocumentDelta.ids(ids[t])
                guard list.count == doc.tracks[t].markers.count else {
                    throw ids[t].error("\(list.count) ids for \(doc.tracks[t].markers.count) markers")
                }
                doc.tracks[t].markers = MarkerList(zip(doc.tracks[t].markers, list).map { m, id in
                    var m = m
                    m.id = id
                    return m
                })
            }
            doc.nextMarkerID = nextMarkerID
            whole = doc
            return
        }
        if let h = o.optional("head") { head = try DocumentFile.Decoder.document(h) }
        if let c = o.optional("changes") {
            for item in try DocumentFile.Decoder.array(c, "changes") {
                let co = try DocumentFile.Decoder.Object(item, "a track's change", allowed: ["track", "removed", "ids", "markers"])
                let track = try DocumentFile.Decoder.int(try co.required("track", in: "a track's change"), "track", 0...Int(Int32.max))
                let removed = try DocumentDelta.ids(try co.required("removed", in: "a track's change"))
                let ids = try DocumentDelta.ids(try co.required("ids", in: "a track's change"))
                let mv = try co.required("markers", in: "a track's change")
                guard case .markers(let read) = mv.kind else { throw mv.error("markers must be a list") }
                guard read.count == ids.count else { throw mv.error("\(ids.count) ids for \(read.count) markers") }
                markers.append(TrackMarkers(track: track, removed: removed, put: zip(read, ids).map { m, id in
                    var m = m
                    m.id = id
                    return m
                }))
            }
        }
    }

    /// A marker list as the file writes it, in brackets.
    static func markersText(_ list: MarkerList) -> [UInt8] {
        let bound = 4 + list.count * DocumentFile.markerLineMax
        return [UInt8](unsafeUninitializedCapacity: bound) { buffer, initialized in
            var w = ByteWriter(buffer.baseAddress!)
            w.append("[")
            DocumentFile.writeMarkers(list, to: &w)
            w.append("]")
            initialized = w.cursor - buffer.baseAddress!
        }
    }

    static func ids(_ v: JSONValue) throws -> [MarkerID] {
        try DocumentFile.Decoder.array(v, "ids").map {
            MarkerID(try DocumentFile.Decoder.int($0, "an id", 0...Int(MarkerID.max)))
        }
    }
}

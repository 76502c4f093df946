/// The whole document as a stream of short lines, for a participant joining a shared document: a document at
/// the marker limit (10,000,000 markers, some 500 MB of text) is never held as one text, neither by the host
/// that writes it nor by the participant that reads it.
///
/// The first line is the head (everything but the markers, as `DocumentDelta`'s head: the file's own text with
/// the markers left out), the number of markers of each track and the next marker id:
/// `{"snapshot":SEQ,"next":N,"counts":[3,0],"head":{…}}`. Then come the markers, in each track's order, a run
/// of at most `MarkerList.chunkMax` at a time: `{"part":0,"ids":[1,2,3],"markers":[{"t": 0.25, …},…]}`. The
/// snapshot is complete when every track has its count.
public enum DocumentSnapshot {
    /// Writes a document's snapshot a line at a time (each with its newline), as the connection takes them.
    ///
    /// It holds a copy of the document (a value: it shares the host's storage until the host changes it).
    public struct Writer: Sendable {
        let document: Document
        let seq: Int
        private var started = false
        private var track = 0
        private var run = 0

        public init(_ document: Document, seq: Int) {
            self.document = document
            self.seq = seq
        }

        /// The next line, or nil when the snapshot has been written whole.
        public mutating func next() -> [UInt8]? {
            if !started {
                started = true
                var line = "{\"snapshot\":\(seq),\"next\":\(document.nextMarkerID),\"counts\":["
                line += document.tracks.map { String($0.markers.count) }.joined(separator: ",")
                line += "],\"head\":" + DocumentDelta.oneLine(DocumentDelta.headText(of: document)) + "}\n"
                return Array(line.utf8)
            }
            while track < document.tracks.count {
                let runs = document.tracks[track].markers.runs
                if run < runs.count {
                    defer { run += 1 }
                    return DocumentSnapshot.part(track: track, runs[run])
                }
                track += 1
                run = 0
            }
            return nil
        }
    }

    /// A part line: a track's markers with their ids.
    static func part(track: Int, _ markers: [Marker]) -> [UInt8] {
        let head = Array("{\"part\":\(track),\"ids\":[".utf8)
        let bound = head.count + markers.count * (11 + DocumentFile.markerLineMax) + 32
        return [UInt8](unsafeUninitializedCapacity: bound) { buffer, initialized in
            var w = ByteWriter(buffer.baseAddress!)
            head.withUnsafeBufferPointer { w.write(bytes: $0) }
            for (k, m) in markers.enumerated() {
                if k > 0 { w.append(",") }
                w.write(integer: Int64(m.id))
            }
            w.append("],\"markers\":[")
            DocumentFile.writeMarkers(markers, to: &w)
            w.append("]}\n")
            // The marker writer's line breaks are left out: the part is one line.
            var out = buffer.baseAddress!
            var p = buffer.baseAddress!
            while p < w.cursor {
                if p.pointee != 0x0A {
                    out.pointee = p.pointee
                    out += 1
                }
                p += 1
            }
            out.pointee = 0x0A
            initialized = out - buffer.baseAddress! + 1
        }
    }

    /// Gathers a snapshot's lines into the document, a run at a time.
    public struct Reader {
        /// The number of the last change the snapshot holds.
        public let seq: Int
        private var document: Document
        private let counts: [Int]
        private var lists: [MarkerList]

        /// Starts from the first line (already parsed); throws a one-line error when it is not a snapshot's.
        public init(header m: JSONMessage) throws {
            let o = try DocumentFile.Decoder.Object(m.value, "a snapshot", allowed: ["snapshot", "next", "counts", "head"])
            seq = try DocumentFile.Decoder.int(try o.required("snapshot", in: "a snapshot"), "snapshot", 0...Int.max)
            let next = try DocumentFile.Decoder.int(try o.required("next", in: "a snapshot"), "next", 0...Int(MarkerID.max))
            counts = try DocumentFile.Decoder.array(try o.required("counts", in: "a snapshot"), "counts").map {
                try DocumentFile.Decoder.int($0, "a count", 0...Limits.maxMarkers)
            }
            document = try DocumentFile.Decoder.document(try o.required("head", in: "a snapshot"))
            guard counts.count == document.tracks.count else {
                throw CommandError("a snapshot counts markers for \(counts.count) tracks, its document has \(document.tracks.count)")
            }
            document.nextMarkerID = MarkerID(next)
            lists = Array(repeating: MarkerList(), count: counts.count)
        }

        /// True once every track has all its markers.
        public var isComplete: Bool {
            zip(lists, counts).allSatisfy { $0.count == $1 }
        }

        /// Adds a part line (already parsed): throws when it does not fit (a track that is not there, more markers
        /// than counted, markers out of order).
        public mutating func add(part m: JSONMessage) throws {
            let o = try DocumentFile.Decoder.Object(m.value, "a snapshot's part", allowed: ["part", "ids", "markers"])
            let track = try DocumentFile.Decoder.int(try o.required("part", in: "a snapshot's part"), "part", 0...Int(Int32.max))
            guard track < counts.count else { throw CommandError("a snapshot's part names track \(track + 1) of \(counts.count)") }
            let ids = try DocumentDelta.ids(try o.required("ids", in: "a snapshot's part"))
            let mv = try o.required("markers", in: "a snapshot's part")
            guard case .markers(var read) = mv.kind else { throw mv.error("markers must be a list") }
            guard read.count == ids.count else { throw mv.error("\(ids.count) ids for \(read.count) markers") }
            guard lists[track].count + read.count <= counts[track] else {
                throw CommandError("a snapshot sends track \(track + 1) more than its \(counts[track]) markers")
            }
            for k in read.indices { read[k].id = ids[k] }
            guard lists[track].append(inOrder: read) else {
                throw CommandError("a snapshot's markers of track \(track + 1) are out of order")
            }
        }

        /// The document, once complete.
        public func finished() -> Document {
            var doc = document
            for t in doc.tracks.indices { doc.tracks[t].markers = lists[t] }
            return doc
        }
    }
}

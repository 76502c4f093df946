extension JSONValue.Reader {
    /// A list of markers read into a `MarkerList` a run at a time, so a long list is never held twice; the
    /// cursor is on the `[`. Markers out of (time, id) order (a file edited by hand) are gathered and sorted.
    mutating func markerListInOrder() throws -> MarkerList {
        index += 1
        var list = MarkerList()
        var run: [Marker] = []
        run.reserveCapacity(MarkerList.chunkTarget)
        var unordered: [Marker] = []
        var inOrder = true
        func flush() {
            if inOrder, !list.append(inOrder: run) {
                inOrder = false
                unordered = Array(list)
                list = MarkerList()
            }
            if !inOrder { unordered.append(contentsOf: run) }
            run.removeAll(keepingCapacity: true)
        }
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return list
        }
        while true {
            skipSpace()
            run.append(try marker(id: nextMarkerID))
            nextMarkerID &+= 1
            if run.count == MarkerList.chunkTarget { flush() }
            skipSpace()
            guard index < bytes.count else { throw error("the file ends inside a list (missing ']')") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; break }
            throw error("expected ',' or ']', found \(found)")
        }
        flush()
        return inOrder ? list : MarkerList(unordered)
    }
}

/// One element of a stored group: a marker relative to the group's first element.
public struct GroupElement: Hashable, Sendable {
    /// Seconds after the group's first element.
    public var offset: Double
    /// Tracks below the track the group was taken from (0 = the same track).
    public var trackOffset: Int
    public var amp: Double
    public var content: Content?
    /// The marker's probability, ratchet and slice offset.
    public var extras = MarkerExtras()

    public init(offset: Double, trackOffset: Int = 0, amp: Double, content: Content?, extras: MarkerExtras = MarkerExtras()) {
        self.extras = extras
        self.offset = offset
        self.trackOffset = trackOffset
        self.amp = amp
        self.content = content
    }
}

/// A reusable sequence of markers and clips: the copy buffer of tempera, kept with the document.
public struct Group: Hashable, Sendable {
    public var elements: [GroupElement]
    /// The span one stamp occupies (so repeated stamps follow each other); at least the last offset.
    public var span: Double

    public init(elements: [GroupElement] = [], span: Double = 0) {
        self.elements = elements
        self.span = span
    }

    public var isEmpty: Bool { elements.isEmpty }
}

/// The 16 group slots.
public struct GroupBank: Hashable, Sendable {
    public static let range = 1...16
    public var slots: [Group] = Array(repeating: Group(), count: 16)

    public init() {}

    /// Group `n`, counted from 1.
    public subscript(n: Int) -> Group {
        get { slots[n - 1] }
        set { slots[n - 1] = newValue }
    }
}

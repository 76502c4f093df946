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
    /// A groove taken with `groove extract` (the elements are then its steps as markers).
    public var groove: Groove?

    public init(elements: [GroupElement] = [], span: Double = 0, groove: Groove? = nil) {
        self.elements = elements
        self.span = span
        self.groove = groove
    }

    public var isEmpty: Bool { elements.isEmpty && groove == nil }
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

/// A groove: for each grid step of a span, how far from the grid its markers fell on average and how
/// loud they were; `groove apply` moves other markers toward it. Ableton's groove pool, exact.
public struct Groove: Hashable, Sendable {
    /// Grid steps a beat (`grid=G`): a step is `beat / steps` seconds.
    public var steps: Int
    /// The step's length in seconds when it was taken (beat / steps).
    public var step: Double
    /// Per step of the span, from its first: the mean offset from the grid point in seconds, nil where no
    /// marker fell.
    public var offsets: [Double?]
    /// Per step: the mean amplitude, nil where no marker fell.
    public var amps: [Double?]

    public init(steps: Int, step: Double, offsets: [Double?], amps: [Double?]) {
        self.steps = steps
        self.step = step
        self.offsets = offsets
        self.amps = amps
    }
}

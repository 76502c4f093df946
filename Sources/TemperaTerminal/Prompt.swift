/// The `:` line being typed: its text, the insertion point and a walk through earlier lines.
/// Pure editing, no terminal: the dispatcher feeds it prompt actions and typed characters.
public struct Prompt: Hashable, Sendable {
    public private(set) var text: [Character]
    /// Insertion point, 0...text.count.
    public private(set) var cursor: Int
    /// Earlier accepted lines, oldest first.
    public private(set) var history: [String]
    /// The history entry shown (nil: the line being written).
    private var historyIndex: Int?
    /// What was typed before walking into the history, restored when walking back out.
    private var draft: [Character] = []
    /// The whole text is selected: typing or deleting replaces it, moving the insertion point drops the selection.
    /// A field pre-filled with a value to change (the pattern code) starts so.
    public private(set) var selected = false

    /// How many accepted lines are remembered.
    public static let historyLimit = 200

    public init(_ text: String = "", history: [String] = []) {
        self.text = Array(text)
        cursor = self.text.count
        self.history = history
    }

    public var line: String { String(text) }

    /// Selects the whole text (typing replaces it).
    public mutating func selectAll() { selected = !text.isEmpty }

    /// Drops a whole-text selection before an edit replaces it; returns true when there was one.
    private mutating func replaceSelection() -> Bool {
        guard selected else { return false }
        selected = false
        text = []
        cursor = 0
        return true
    }

    public mutating func insert(_ c: Character) {
        _ = replaceSelection()
        text.insert(c, at: cursor)
        cursor += 1
        historyIndex = nil
    }

    public mutating func insert(_ s: String) { for c in s { insert(c) } }

    /// Puts the insertion point at a position (clamped).
    public mutating func move(to position: Int) {
        selected = false
        cursor = min(max(position, 0), text.count)
    }

    /// Left and right first collapse a selection to its start or end, as text fields do.
    public mutating func left() { selected ? move(to: 0) : move(to: cursor - 1) }
    public mutating func right() { selected ? move(to: text.count) : move(to: cursor + 1) }
    public mutating func home() { move(to: 0) }
    public mutating func end() { move(to: text.count) }

    public mutating func backspace() {
        if replaceSelection() { return }
        guard cursor > 0 else { return }
        text.remove(at: cursor - 1)
        cursor -= 1
    }

    public mutating func delete() {
        if replaceSelection() { return }
        guard cursor < text.count else { return }
        text.remove(at: cursor)
    }

    /// Deletes the word before the insertion point (and the blanks after it), as C-w does in a shell.
    public mutating func deleteWordBackward() {
        if replaceSelection() { return }
        var i = cursor
        while i > 0, text[i - 1] == " " { i -= 1 }
        while i > 0, text[i - 1] != " " { i -= 1 }
        text.removeSubrange(i..<cursor)
        cursor = i
    }

    public mutating func killToEnd() {
        if replaceSelection() { return }
        text.removeSubrange(cursor..<text.count)
    }

    /// The leading characters `clear` keeps (a pre-filled command word: `save ` of `save PATH`), so Ctrl-u
    /// removes what was offered, not the command it is for.
    public var kept = 0

    public mutating func clear() {
        selected = false
        let keep = min(kept, text.count)
        text = Array(text.prefix(keep))
        cursor = keep
        kept = 0
    }

    /// Shows the previous (older) history line.
    public mutating func historyPrevious() {
        guard !history.isEmpty else { return }
        selected = false
        if historyIndex == nil { draft = text }
        let i = max(0, (historyIndex ?? history.count) - 1)
        historyIndex = i
        text = Array(history[i])
        cursor = text.count
    }

    /// Shows the next (newer) history line, and finally what was being typed.
    public mutating func historyNext() {
        guard let i = historyIndex else { return }
        if i + 1 < history.count {
            historyIndex = i + 1
            text = Array(history[i + 1])
        } else {
            historyIndex = nil
            text = draft
        }
        cursor = text.count
    }

    /// Completes the first word from `names` when exactly one name starts with it (or extends it to the
    /// longest common prefix). Returns the candidates, for a message when there are several.
    @discardableResult
    public mutating func complete(from names: [String]) -> [String] {
        selected = false
        let firstWordEnd = text.firstIndex(of: " ") ?? text.count
        guard cursor <= firstWordEnd else { return [] }
        let word = String(text[0..<cursor])
        let candidates = names.filter { $0.hasPrefix(word) }.sorted()
        guard let first = candidates.first else { return [] }
        var common = first
        for c in candidates.dropFirst() {
            while !c.hasPrefix(common) { common.removeLast() }
        }
        var completion = String(common.dropFirst(word.count))
        if candidates.count == 1, firstWordEnd == text.count { completion += " " }
        insert(completion)
        return candidates
    }

    /// Records an accepted line in the history (blank lines and repeats of the last line are not kept).
    public mutating func remember(_ line: String) {
        let trimmed = line.trimmingCharacters(in: " ")
        guard !trimmed.isEmpty, history.last != line else { return }
        history.append(line)
        if history.count > Prompt.historyLimit { history.removeFirst(history.count - Prompt.historyLimit) }
    }
}

extension String {
    func trimmingCharacters(in set: Character) -> String {
        String(drop { $0 == set }.reversed().drop { $0 == set }.reversed())
    }
}

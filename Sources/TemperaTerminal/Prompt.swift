/// What the line at the bottom edits: a command, the code of a pattern tool (fill, pattern select),
/// which Enter stores and applies at once, or a name.
public enum PromptPurpose: Hashable, Sendable {
    case command
    case pattern(Tool)
    /// Track `track`'s name (from 0).
    case rename(track: Int)
    /// A section's name (from 0).
    case renameSection(Int)
}

/// The line at the bottom while it is open (the `:` line, the pattern editor, a name editor): its text, the
/// insertion point, what it is for and where it stands in a walk through the history.
///
/// Its one home is `ViewState.prompt`: the prompt input mode edits it there and the status line draws it from
/// there. Pure editing, no terminal: the dispatcher feeds it prompt actions and typed characters.
public struct Prompt: Hashable, Sendable {
    public private(set) var text: [Character]
    /// Insertion point, 0...text.count.
    public private(set) var cursor: Int
    /// What Enter does with the line.
    public var purpose: PromptPurpose
    /// The history line shown, its index from the oldest (nil: the line being written).
    private var historyIndex: Int?
    /// What was typed before walking into the history, restored when walking back out.
    private var draft: [Character] = []
    /// The selected characters: typing or deleting replaces them, moving the insertion point drops the selection.
    /// A field pre-filled with a value to change (the pattern code) starts with the whole text selected, the
    /// Euclid line with the row's old beat count.
    public private(set) var selection: Range<Int>?
    /// Something is selected.
    public var selected: Bool { selection != nil }

    public init(_ text: String = "", purpose: PromptPurpose = .command) {
        self.text = Array(text)
        cursor = self.text.count
        self.purpose = purpose
    }

    /// What the line shows before the text: `:` for commands, `fill pattern: ` for the pattern editor.
    public var label: String {
        switch purpose {
        case .command: return ":"
        case .pattern(let tool): return (tool == .fill ? "fill" : "select") + " pattern: "
        case .rename(let track): return "rename track \(track + 1): "
        case .renameSection(let j): return "rename section \(j + 1): "
        }
    }
    public var line: String { String(text) }

    /// Selects the whole text (typing replaces it).
    public mutating func selectAll() { selection = text.isEmpty ? nil : 0..<text.count }

    /// Selects the characters of `range` (clamped), the insertion point at its end: typing replaces them.
    public mutating func select(_ range: Range<Int>) {
        let r = min(max(range.lowerBound, 0), text.count)..<min(max(range.upperBound, 0), text.count)
        selection = r.isEmpty ? nil : r
        cursor = r.upperBound
    }

    /// Drops a whole-text selection before an edit replaces it; returns true when there was one.
    private mutating func replaceSelection() -> Bool {
        guard let r = selection else { return false }
        selection = nil
        text.removeSubrange(r)
        cursor = r.lowerBound
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
        selection = nil
        cursor = min(max(position, 0), text.count)
    }

    /// Left and right first collapse a selection to its start or end, as text fields do.
    public mutating func left() { move(to: selection?.lowerBound ?? cursor - 1) }
    public mutating func right() { move(to: selection?.upperBound ?? cursor + 1) }
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
        selection = nil
        let keep = min(kept, text.count)
        text = Array(text.prefix(keep))
        cursor = keep
        kept = 0
    }

    /// Shows the previous (older) line of `history`.
    public mutating func historyPrevious(in history: CommandHistory) {
        let lines = history.lines
        guard !lines.isEmpty else { return }
        selection = nil
        if historyIndex == nil { draft = text }
        let i = max(0, (historyIndex ?? lines.count) - 1)
        historyIndex = i
        text = Array(lines[i])
        cursor = text.count
    }

    /// Shows the next (newer) line of `history`, and finally what was being typed.
    public mutating func historyNext(in history: CommandHistory) {
        guard let i = historyIndex else { return }
        let lines = history.lines
        if i + 1 < lines.count {
            historyIndex = i + 1
            text = Array(lines[i + 1])
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
        selection = nil
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
}

extension String {
    func trimmingCharacters(in set: Character) -> String {
        String(drop { $0 == set }.reversed().drop { $0 == set }.reversed())
    }
}

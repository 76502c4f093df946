import Foundation
import TemperaCore

/// What the line at the bottom edits: a command, the code of a pattern tool (fill, pattern select),
/// which Enter stores and applies at once, or the current track's name.
enum PromptPurpose: Equatable {
    case command
    case pattern(Tool)
    case rename
    /// A section's name (from 0).
    case renameSection(Int)
}

/// The `:` line, the pattern editor of the fill and pattern-select tools, and the track-name editor: one
/// `Prompt` at the bottom of the screen whose Enter runs a command line, applies a code or renames.
extension Dispatcher {
    /// Opens the `:` line with `text`; `keep` leading characters (a command word) survive Ctrl-u.
    func openPrompt(_ text: String, cursorBack: Int = 0, keep: Int = 0) {
        var p = Prompt(text, history: history)
        p.move(to: p.text.count - cursorBack)
        p.kept = keep
        prompt = p
        promptPurpose = .command
        syncPrompt()
    }

    /// The pattern editor of the fill and pattern-select tools: the document's code, selected so that typing
    /// replaces it and the arrows edit it. Enter stores and applies it; Esc closes it, the tool staying chosen.
    func openPatternEditor(for tool: Tool) {
        var p = Prompt(session.document.pattern)
        p.selectAll()
        prompt = p
        promptPurpose = .pattern(tool)
        syncPrompt()
    }

    /// The current track's name, selected so that typing replaces it and the arrows edit it; Enter renames.
    func openRenameEditor() {
        var p = Prompt(session.document.tracks[session.currentTrack].name)
        p.selectAll()
        prompt = p
        promptPurpose = .rename
        syncPrompt()
    }

    /// Section `j`'s name (from 0), selected as the track's is; Enter renames it.
    func openSectionRenameEditor(_ j: Int) {
        var p = Prompt(session.document.song.sections[j].name)
        p.selectAll()
        prompt = p
        promptPurpose = .renameSection(j)
        syncPrompt()
    }

    func syncPrompt() {
        view.commandLine = prompt?.line
        view.commandCursor = prompt?.cursor ?? 0
        view.commandSelected = prompt?.selected ?? false
        switch (prompt, promptPurpose) {
        case (nil, _), (_, .command):
            view.commandLabel = ":"
            view.patternInput = nil
        case (let p?, .pattern(let tool)):
            view.commandLabel = (tool == .fill ? "fill" : "select") + " pattern: "
            view.patternInput = p.line
        case (_?, .rename):
            view.commandLabel = "rename track \(session.currentTrack + 1): "
            view.patternInput = nil
        case (_?, .renameSection(let j)):
            view.commandLabel = "rename section \(j + 1): "
            view.patternInput = nil
        }
    }

    /// Enter in the pattern editor: a code that reads stores it and applies it (fill from the cursor or over
    /// the selection, pattern select from the cursor) as one undo step. A bad code keeps the editor open with
    /// the error.
    func acceptPattern(_ code: String, tool: Tool) {
        let s = session
        let parsed: PatternCode
        do {
            parsed = try PatternParser.parse(code)
        } catch {
            fail(error)
            return
        }
        prompt = nil
        syncPrompt()
        say("")
        do {
            if tool == .fill {
                // Fill stores the code in the same step as it fills.
                try command(.fill(parsed))
            } else {
                if code != s.document.pattern { try command(.pattern(code)) }
                try command(.select(.init(.pattern(parsed))))
            }
        } catch {
            // The code is kept even when there is nothing to apply it to yet: Enter on the timeline retries.
            if code != s.document.pattern { try? session.run(.pattern(code)) }
            fail(error)
        }
    }

    func performPrompt(_ verb: Verb.PromptVerb) {
        guard var p = prompt else { return }
        // An error shown beside the line is about the text as it was.
        if view.messageIsError, verb != .accept { say("") }
        if verb == .accept, case .pattern(let tool) = promptPurpose {
            acceptPattern(p.line, tool: tool)
            return
        }
        if promptPurpose == .rename, verb == .accept || verb == .cancel {
            let newName = p.line
            prompt = nil
            syncPrompt()
            if verb == .accept {
                do { try command(.trackName(track: nil, name: newName)) } catch { fail(error) }
            }
            return
        }
        if case .renameSection(let j) = promptPurpose, verb == .accept || verb == .cancel {
            let newName = p.line
            prompt = nil
            syncPrompt()
            if verb == .accept {
                do { try command(.section(j + 1, .name(newName))) } catch { fail(error) }
            }
            return
        }
        if verb == .cancel, case .pattern(let tool) = promptPurpose {
            prompt = nil
            syncPrompt()
            let key = view.key(tool.action) ?? tool.action
            let code = session.document.pattern
            say("\(tool == .fill ? "fill" : "pattern select"): "
                + (code.isEmpty ? "\(key) types a code" : "Enter applies \"\(code)\", \(key) edits it"))
            return
        }
        switch verb {
        case .accept:
            let line = p.line
            p.remember(line)
            history = p.history
            prompt = nil
            syncPrompt()
            do { try runLine(line) } catch { fail(error) }
            return
        case .cancel:
            prompt = nil
            // The quit question is still on the status line; it must not look as if it waited for y/n/c.
            if quitAfterSave { say("quit cancelled: nothing saved") }
            quitAfterSave = false
            syncPrompt()
            return
        case .left: p.left()
        case .right: p.right()
        case .home: p.home()
        case .end: p.end()
        case .backspace:
            if p.text.isEmpty {
                prompt = nil
                syncPrompt()
                return
            }
            p.backspace()
        case .delete: p.delete()
        case .wordBackspace: p.deleteWordBackward()
        case .kill: p.killToEnd()
        case .clear: p.clear()
        case .historyPrev: p.historyPrevious()
        case .historyNext: p.historyNext()
        case .complete:
            // A pattern code or a name has no command names to complete.
            if promptPurpose != .command { break }
            let candidates = p.complete(from: EditorCommands.completions)
            if candidates.count > 1 { say(candidates.joined(separator: " ")) }
        }
        prompt = p
        syncPrompt()
    }

    /// The accepted history of the `:` line, oldest first (kept across sessions by the editor).
    public var commandHistory: [String] {
        get { history }
        set { history = newValue }
    }

    /// Runs one line as the `:` line does: the editor's commands (`EditorCommands`: quit, write, open,
    /// theme...) first, then the document's command language.
    public func runLine(_ line: String) throws {
        let trimmed = line.trimmingCharacters(in: " ")
        guard !trimmed.isEmpty else { return }
        let word = String(trimmed.prefix { $0 != " " })
        if let entry = EditorCommands.entry(named: word) {
            if entry.spec.flags.contains(.refusedWhenShared), session.remote != nil {
                return say("\(entry.spec.head) is not available on a shared document", error: true)
            }
            let rest = String(trimmed.dropFirst(word.count)).trimmingCharacters(in: " ")
            return try entry.run(self, Dispatcher.unquote(rest))
        }
        let cursor = session.cursor
        defer { revealIfMoved(from: cursor) }
        if let message = try session.run(line: trimmed) { say(message) } else { say("") }
    }
}

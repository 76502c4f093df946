import Foundation
import TemperaCore

/// The `:` line, the pattern editor of the fill and pattern-select tools, and the track-name editor: one
/// `Prompt` at the bottom of the screen (`view.prompt`, its one home) whose Enter runs a command line, applies a
/// code or renames.
extension Dispatcher {
    /// Opens the `:` line with `text`; `keep` leading characters (a command word) survive Ctrl-u.
    func openPrompt(_ text: String, cursorBack: Int = 0, keep: Int = 0) {
        var p = Prompt(text)
        p.move(to: p.text.count - cursorBack)
        p.kept = keep
        view.prompt = p
    }

    /// A field pre-filled with `value`, selected so that typing replaces it and the arrows edit it.
    private func openField(_ value: String, for purpose: PromptPurpose) {
        var p = Prompt(value, purpose: purpose)
        p.selectAll()
        view.prompt = p
    }

    /// The pattern editor of the fill and pattern-select tools: the document's code, selected. Enter stores and
    /// applies it; Esc closes it, the tool staying chosen.
    func openPatternEditor(for tool: Tool) {
        openField(session.document.pattern, for: .pattern(tool))
    }

    /// The current track's name, selected; Enter renames.
    func openRenameEditor() {
        openField(session.document.tracks[session.currentTrack].name, for: .rename(track: session.currentTrack))
    }

    /// Section `j`'s name (from 0), selected as the track's is; Enter renames it.
    func openSectionRenameEditor(_ j: Int) {
        openField(session.document.song.sections[j].name, for: .renameSection(j))
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
        view.prompt = nil
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
            if code != s.document.pattern { _ = try? session.run(.pattern(code)) }
            fail(error)
        }
    }

    func performPrompt(_ verb: Verb.PromptVerb) {
        guard var p = view.prompt else { return }
        // An error shown beside the line is about the text as it was.
        if view.messageIsError, verb != .accept { say("") }
        if verb == .accept || verb == .cancel, p.purpose != .command {
            return closeField(p, accept: verb == .accept)
        }
        switch verb {
        case .accept:
            let line = p.line
            commandHistory.remember(line)
            view.prompt = nil
            do { try runLine(line) } catch { fail(error) }
            return
        case .cancel:
            view.prompt = nil
            // The quit question is still on the status line; it must not look as if it waited for y/n/c.
            if quitAfterSave { say("quit cancelled: nothing saved") }
            quitAfterSave = false
            return
        case .left: p.left()
        case .right: p.right()
        case .home: p.home()
        case .end: p.end()
        case .backspace:
            if p.text.isEmpty {
                view.prompt = nil
                return
            }
            p.backspace()
        case .delete: p.delete()
        case .wordBackspace: p.deleteWordBackward()
        case .kill: p.killToEnd()
        case .clear: p.clear()
        case .historyPrev: p.historyPrevious(in: commandHistory)
        case .historyNext: p.historyNext(in: commandHistory)
        case .complete:
            // A pattern code or a name has no command names to complete.
            if p.purpose != .command { break }
            let candidates = p.complete(from: CommandTable.completions)
            if candidates.count > 1 { say(candidates.joined(separator: " ")) }
        }
        view.prompt = p
    }

    /// Enter or Esc in the pattern editor or a name editor.
    private func closeField(_ p: Prompt, accept: Bool) {
        switch p.purpose {
        case .command:
            return
        case .pattern(let tool):
            if accept { return acceptPattern(p.line, tool: tool) }
            view.prompt = nil
            let key = view.key(tool.action) ?? tool.action
            let code = session.document.pattern
            say("\(tool == .fill ? "fill" : "pattern select"): "
                + (code.isEmpty ? "\(key) types a code" : "Enter applies \"\(code)\", \(key) edits it"))
        case .rename:
            view.prompt = nil
            guard accept else { return }
            do { try command(.trackName(track: nil, name: p.line)) } catch { fail(error) }
        case .renameSection(let j):
            view.prompt = nil
            guard accept else { return }
            do { try command(.section(j + 1, .name(p.line))) } catch { fail(error) }
        }
    }

    /// Runs one line as the `:` line does: any command of the table, the transport's, files' and screen's
    /// landing on this dispatcher as the session's host. A command that would leave a shared document is refused.
    public func runLine(_ line: String) throws {
        let trimmed = line.trimmingCharacters(in: " ")
        guard let command = try CommandParser.parse(trimmed) else { return }
        if command.spec.flags.contains(.refusedWhenShared), session.remote != nil {
            return say("\(command.spec.head) is not available on a shared document", error: true)
        }
        let cursor = session.cursor
        defer { revealIfMoved(from: cursor) }
        // The host's commands (and `save`, which the editor runs as its host) say what they did themselves.
        let host = command.spec.flags.contains(.host) || command.is(Command.Save.self) && session.remote == nil
        let message: String?
        do {
            message = try session.run(command)
        } catch {
            // The transport's, files' and screen's problems are said here, as their questions are; the document's
            // go to the caller, which says them with the line's column.
            guard host else { throw error }
            return fail(error)
        }
        // A host command says what it did itself (its questions included); the others' lines are shown here.
        if let message { say(message) } else if !host { say("") }
    }
}

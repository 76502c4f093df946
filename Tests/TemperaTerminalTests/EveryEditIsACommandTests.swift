import XCTest
@testable import TemperaTerminal
import TemperaCore

/// Every change the editor makes to the document goes through a `Command` with a textual form: the test
/// drives every action of the key map in every context (and the mouse on the timeline and the sliders),
/// records what the session heard, then replays the recorded command lines, parsed from their text, on a
/// fresh session in the same editing context, transactions and all. After each step the replay's document
/// must equal the editor's; an edit that bypassed the commands would leave the replay behind.
final class EveryEditIsACommandTests: XCTestCase {
    struct Step {
        var event: Session.Event
        /// The editor's document right after the event.
        var document: Document
    }

    /// Actions that replace the session, leave the editor or touch files: not edits of this document.
    static let skipped: Set<Verb> = [.quit, .new, .open, .save, .saveAs, .help, .play, .rewind, .none, .command, .render]

    func testEveryActionInEveryContextRecordsCommandsThatReplayToTheSameDocument() throws {
        let start = Document.demo()
        let d = Dispatcher(session: Session(document: start), width: 120, height: 40, clock: { 0 })
        d.fitView()
        var steps: [Step] = []
        let session = d.session
        session.observer = { [unowned session] event in steps.append(Step(event: event, document: session.document)) }

        let verbs = Verb.table.map(\.verb).filter { v in
            if Self.skipped.contains(v) { return false }
            if case .prompt = v { return false }
            return true
        }
        let runLines = KeyMap.standard.bindings.filter { $0.action.verb == .run }.map(\.action.argument) + ["pattern \"1 2x2\""]
        func act(_ v: Verb, _ argument: String = "") {
            d.perform(Action(v, argument))
            // Lines a key opens are accepted as typed (loop, cursor, rename, pattern, designer...).
            if d.view.prompt != nil { d.perform(Action(.prompt(.accept))) }
            if d.view.prompt != nil { d.perform(Action(.prompt(.cancel))) }
            if d.view.question != nil { d.handle(Key(name: "n")!) }
            XCTAssertTrue(d.session === session, "\(v) replaced the session")
        }
        let setups: [(String, () -> Void)] = [
            ("timeline", { d.view.focus = .timeline; d.view.tool = .drawSingle }),
            ("selection, shift tool", { d.view.focus = .timeline; act(.run, "select all"); d.view.tool = .shift }),
            ("selection, scale tool", { d.view.focus = .timeline; act(.run, "select all"); d.view.tool = .scale }),
            ("clip mode", { d.view.focus = .timeline; act(.modeClip); act(.run, "select all"); d.view.tool = .shift }),
            ("clips tab", { act(.modeClip); act(.tab(.clips)) }),
            ("groups tab", { act(.run, "select left"); act(.tab(.groups)) }),
            ("designer top", { act(.tab(.designer)); act(.designer(.rowTop)) }),
            ("designer bottom", { act(.tab(.designer)); act(.designer(.rowBottom)) }),
            ("designer map", { act(.tab(.designer)); act(.designer(.rowMap)) }),
            ("designer slider", { act(.run, "select all"); act(.tab(.designer)); act(.designer(.rowSlider)) }),
            ("song tab", { act(.tab(.song)); act(.song(.add)); act(.song(.add)) }),
        ]
        for (_, setup) in setups {
            setup()
            for v in verbs {
                if v == .run {
                    // Every command line a shipped key runs, and one typed.
                    for line in runLines { act(.run, line) }
                } else {
                    act(v)
                }
                // Steps that drive a drag twice, so a drag holds more than one step.
                if case .cursor = v { act(v) }
            }
            act(.esc)
            d.finishDrag()
        }

        // The mouse: a click with each tool on the timeline, a shift drag, the tempo slider dragged.
        let l = d.layout
        let y = l.timeline.y + 1
        for tool in Tool.allCases {
            act(.run, "select none")
            if tool == .shift || tool == .scale { act(.run, "select all") }
            d.view.tool = tool
            for x in [l.timeline.x + 3, l.timeline.x + l.timeline.width / 3] {
                d.handle(MouseEvent(.press, x: x, y: y))
                d.handle(MouseEvent(.drag, x: x + 4, y: y))
                d.handle(MouseEvent(.drag, x: x + 9, y: y))
                d.handle(MouseEvent(.release, x: x + 9, y: y))
                if d.view.prompt != nil { d.perform(Action(.prompt(.cancel))) }
            }
        }
        d.finishDrag()

        XCTAssertGreaterThan(steps.count, 200)
        XCTAssertNotEqual(d.session.document, start, "the drive changed nothing: it tests nothing")

        // The replay, from the recorded text alone.
        let replay = Session(document: start)
        for (i, step) in steps.enumerated() {
            switch step.event {
            case .ran(let command, let view):
                if command.is(Command.Save.self) { continue }
                let text = command.text
                let parsed = try XCTUnwrap(try CommandParser.parse(text), text)
                XCTAssertEqual(parsed, command, "'\(text)' does not read back as the command that ran")
                replay.view = view
                XCTAssertNoThrow(try replay.run(parsed), "step \(i): \(text)")
            case .began(let name): replay.beginTransaction(name)
            case .committed: replay.commitTransaction()
            case .aborted: replay.abortTransaction()
            }
            guard replay.document == step.document else {
                return XCTFail("step \(i) (\(step.event)): the replayed document differs from the editor's")
            }
        }
        XCTAssertEqual(replay.document, d.session.document, "an edit after the last command bypassed the commands")
    }

    func testAnEditOutsideTheCommandsIsCaughtByTheReplay() throws {
        // The check itself: a document changed without a command (a new session's document swapped in,
        // the only way left outside the core) leaves the replay behind.
        let start = Document.demo()
        let s = Session(document: start)
        var events: [Session.Event] = []
        s.observer = { events.append($0) }
        try s.run(.cursor(0.5))
        try s.run(.markerAdd(time: 0.5, amp: 0.3, content: .clip(2)))
        let replay = Session(document: start)
        for case .ran(let c, let view) in events {
            replay.view = view
            try replay.run(XCTUnwrap(CommandParser.parse(c.text)))
        }
        XCTAssertEqual(replay.document, s.document)
        var bypassed = s.document
        bypassed.pattern = "1 - 1"
        XCTAssertNotEqual(replay.document, bypassed)
    }
}
